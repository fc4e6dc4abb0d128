"""What a tournament does next: match ends as results, withdrawals, replays, rounds, the end."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.service.tournaments.pairing import Entrant, Pairing
from bot.service.tournaments.rounds import (
    LEFT,
    TIMEOUTS,
    Format,
    MatchEnd,
    Progress,
    advance,
    lapsed_twice,
    result_of,
    round_count,
    table_of,
)

GAME = Pairing(round=1, seat0=10, seat1=20)


def finished(winner: int | None, reason: str = "capture") -> MatchEnd:
    return MatchEnd("finished", winner, reason, frozenset({0, 1}))


@pytest.mark.parametrize(
    ("end", "score0", "lapsed"),
    [
        (finished(0), 1.0, (False, False)),
        (finished(1), 0.0, (False, False)),
        (finished(None, "no_moves"), 0.5, (False, False)),
        (finished(0, "resign"), 1.0, (False, False)),
        (finished(0, "timeout"), 1.0, (False, True)),
        (finished(1, "timeout"), 0.0, (True, False)),
        # Setup ran out: only the player who chose no secret loses; neither chose, no result.
        (MatchEnd("aborted", None, "timeout", frozenset({0})), 1.0, (False, True)),
        (MatchEnd("aborted", None, "timeout", frozenset({1})), 0.0, (True, False)),
        (MatchEnd("aborted", None, "timeout", frozenset()), None, (True, True)),
        # Resigning before the start is a loss like any resignation.
        (
            MatchEnd("aborted", None, "resign", frozenset({1}), called_off_by=10),
            0.0,
            (False,) * 2,
        ),
        (MatchEnd("aborted", None, "resign", frozenset(), called_off_by=20), 1.0, (False,) * 2),
        (MatchEnd("aborted", None, "called_off", frozenset({0, 1})), None, (False, False)),
    ],
)
def test_a_match_end_is_a_result(
    end: MatchEnd, score0: float | None, lapsed: tuple[bool, bool]
) -> None:
    ended = result_of(GAME, end)
    assert (ended.ended, ended.score0, ended.lapsed) == (True, score0, lapsed)


def test_two_games_in_a_row_out_of_time_withdraw_a_player_but_a_bye_does_not_break_the_run() -> (
    None
):
    entrants = [Entrant(10, 1500), Entrant(20, 1500), Entrant(30, 1500)]
    late = (False, True)
    games = [
        Pairing(1, 10, 20, board=0, ended=True, score0=1.0, lapsed=late),
        Pairing(2, 30, None, board=0, ended=True, score0=1.0),
        Pairing(2, 20, None, board=1, ended=True, score0=1.0),
        Pairing(3, 30, 20, board=0, ended=True, score0=1.0, lapsed=late),
    ]
    assert lapsed_twice(entrants, games) == {20}
    # A game played in between, even lost, breaks the run.
    between = [*games[:1], Pairing(2, 30, 20, board=0, ended=True, score0=1.0), *games[3:]]
    assert lapsed_twice(entrants, between) == set()
    # Already withdrawn players are not withdrawn again; unfinished games do not count.
    assert lapsed_twice([replace(entrants[1], withdrawn=LEFT)], games) == set()
    assert lapsed_twice(entrants, [*games[:3], replace(games[3], ended=False)]) == set()


def test_round_counts() -> None:
    people = [Entrant(i, 1500) for i in range(1, 9)]
    assert round_count("swiss", people, None) == 3
    assert round_count("swiss", people, 5) == 5
    assert round_count("round_robin", people, None) == 7
    assert round_count("round_robin", people[:5], None) == 5
    assert round_count("knockout", people[:5], None) == 3


# --- Whole events with random results ---------------------------------------------------------


def play(progress: Progress, rng: random.Random, draws: float = 0.2) -> list[Pairing]:
    """Every pairing, with a random result for each game not yet ended."""
    played = []
    for pairing in progress.pairings:
        if not pairing.ended:
            score = 0.5 if rng.random() < draws else rng.choice((1.0, 0.0))
            pairing = replace(pairing, ended=True, score0=score)
        played.append(pairing)
    return played


def run(
    format: Format, players: int, seed: int, draws: float = 0.2
) -> tuple[list[Entrant], Progress, int]:
    """An event played to its end with random results; the entrants, its end, and how many
    times ``advance`` was called."""
    rng = random.Random(seed)
    people = [Entrant(100 + i, float(rng.randrange(1200, 1800))) for i in range(players)]
    total = round_count(format, people, None)
    progress = advance(format, total, people, [], 0, {})
    brackets = dict(progress.brackets)
    calls = 1
    while not progress.over:
        pairings = [replace(p, id=n) for n, p in enumerate(play(progress, rng, draws), start=1)]
        progress = advance(format, total, people, pairings, progress.round, brackets)
        brackets.update(progress.brackets)
        calls += 1
        assert calls < 100
    return people, progress, calls


@settings(max_examples=30, deadline=None)
@given(players=st.integers(2, 12), seed=st.integers(0, 10**6))
def test_a_swiss_pairs_everyone_each_round_without_repeats_and_ends_after_its_rounds(
    players: int, seed: int
) -> None:
    people, progress, _ = run("swiss", players, seed)
    rounds = round_count("swiss", people, None)
    assert progress.round == rounds
    met = Counter(frozenset((f.seat0, f.seat1)) for f in progress.pairings if f.seat1 is not None)
    assert max(met.values()) == 1  # ceil(log2 n) rounds never force a repeat
    for number in range(1, rounds + 1):
        seated = [
            p for f in progress.pairings if f.round == number for p in (f.seat0, f.seat1) if p
        ]
        assert sorted(seated) == sorted(e.user_id for e in people)
    byes = [f.seat0 for f in progress.pairings if f.seat1 is None]
    assert len(byes) == len(set(byes)) == (rounds if players % 2 else 0)
    table = table_of("swiss", people, progress.pairings)
    assert progress.winner == table[0].player


@settings(max_examples=20, deadline=None)
@given(players=st.integers(2, 9), seed=st.integers(0, 10**6))
def test_a_round_robin_pairs_every_two_players_exactly_once(players: int, seed: int) -> None:
    people, progress, _ = run("round_robin", players, seed)
    met = Counter(frozenset((f.seat0, f.seat1)) for f in progress.pairings if f.seat1 is not None)
    everyone = [e.user_id for e in people]
    assert set(met) == {frozenset(pair) for pair in itertools.combinations(everyone, 2)}
    assert set(met.values()) == {1}
    assert progress.round == round_count("round_robin", people, None)


@settings(max_examples=30, deadline=None)
@given(players=st.integers(2, 17), seed=st.integers(0, 10**6))
def test_a_knockout_ends_with_one_winner_who_lost_no_match(players: int, seed: int) -> None:
    people, progress, _ = run("knockout", players, seed, draws=0.4)
    assert progress.over and progress.winner is not None
    rounds = round_count("knockout", people, None)
    assert progress.round == rounds
    # Every match between two players went on until decided: at most three games, each game
    # after a draw with the seats swapped.
    boards: dict[tuple[int, int], list[Pairing]] = {}
    for pairing in progress.pairings:
        if pairing.seat1 is not None:
            boards.setdefault((pairing.round, pairing.board), []).append(pairing)
    for games in boards.values():
        games.sort(key=lambda f: f.replay)
        assert [g.replay for g in games] == list(range(len(games)))
        assert all(g.score0 == 0.5 for g in games[:-1]) and len(games) <= 3
        for before, after in itertools.pairwise(games):
            assert (after.seat0, after.seat1) == (before.seat1, before.seat0)
    losers = [_match_loser(games, people) for games in boards.values()]
    # Everyone but the winner lost exactly one match.
    assert sorted(losers) == sorted(e.user_id for e in people if e.user_id != progress.winner)


def _match_loser(games: list[Pairing], people: list[Entrant]) -> int:
    last = games[-1]
    assert last.seat1 is not None
    if last.score0 == 1.0:
        return last.seat1
    if last.score0 == 0.0:
        return last.seat0
    rating = {e.user_id: e.rating for e in people}
    return max((last.seat0, last.seat1), key=lambda p: (-rating[p], p))


def test_a_five_player_knockout_gives_the_top_three_seeds_a_bye() -> None:
    people = [Entrant(i, 2000.0 - i) for i in range(1, 6)]
    progress = advance("knockout", 3, people, [], 0, {})
    assert progress.round == 1
    assert progress.brackets[1] == (1, None, 4, 5, 2, None, 3, None)
    games = progress.pairings
    assert [{f.seat0, f.seat1} for f in games if f.seat1] == [{4, 5}]
    assert sorted(f.seat0 for f in games if f.seat1 is None) == [1, 2, 3]
    assert all(f.ended and f.score0 == 1.0 for f in games if f.seat1 is None)


def test_a_drawn_knockout_match_is_replayed_seats_swapped_then_goes_to_the_higher_rated() -> None:
    people = [Entrant(1, 1400.0), Entrant(2, 1600.0)]
    start = advance("knockout", 1, people, [], 0, {})
    (first,) = start.pairings
    drawn = replace(first, id=1, ended=True, score0=0.5)
    again = advance("knockout", 1, people, [drawn], 1, start.brackets)
    replay = again.new_pairings
    assert [(f.seat0, f.seat1, f.replay) for f in replay] == [(first.seat1, first.seat0, 1)]
    assert not again.over
    # No result (neither chose a secret in time) is played again with the same seats.
    nothing = replace(replay[0], id=2, ended=True, score0=None, lapsed=(True, True))
    third = advance("knockout", 1, people, [drawn, nothing], 1, start.brackets)
    assert [(f.seat0, f.seat1, f.replay) for f in third.new_pairings] == [
        (first.seat1, first.seat0, 2)
    ]
    # Two draws: the higher rated goes through, and here wins.
    second_draw = replace(third.new_pairings[0], id=3, ended=True, score0=0.5)
    end = advance("knockout", 1, people, [drawn, nothing, second_draw], 1, start.brackets)
    assert end.over and end.winner == 2


def test_players_out_of_time_twice_are_withdrawn_and_paired_no_more() -> None:
    people = [Entrant(i, 1500.0 + i) for i in range(1, 5)]
    start = advance("swiss", 3, people, [], 0, {})
    late = start.round
    pairings = [
        replace(f, id=n, ended=True, score0=None, lapsed=(True, True))
        if 1 in (f.seat0, f.seat1)
        else replace(f, id=n, ended=True, score0=1.0)
        for n, f in enumerate(start.pairings, start=1)
    ]
    second = advance("swiss", 3, people, pairings, late, {})
    assert second.withdrawn == {} and second.round == 2
    pairings2 = [
        replace(f, id=10 + n, ended=True, score0=0.0, lapsed=(True, False))
        if f.seat0 == 1
        else replace(f, id=10 + n, ended=True, score0=1.0, lapsed=(False, True))
        if f.seat1 == 1
        else replace(f, id=10 + n, ended=True, score0=1.0)
        for n, f in enumerate(second.new_pairings)
    ]
    third = advance("swiss", 3, people, [*pairings, *pairings2], 2, {})
    assert third.withdrawn == {1: TIMEOUTS}
    round3 = [f for f in third.new_pairings if f.round == 3]
    assert 1 not in {p for f in round3 for p in (f.seat0, f.seat1)}


def test_an_event_with_one_player_left_ends_with_that_player() -> None:
    people = [Entrant(1, 1500.0), Entrant(2, 1500.0, withdrawn=LEFT), Entrant(3, 1500.0, LEFT)]
    progress = advance("swiss", 3, people, [], 0, {})
    assert progress.over and progress.winner == 1 and progress.round == 0
