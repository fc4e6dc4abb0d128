"""Swiss, round-robin and knockout pairings: properties on random events, checked by brute force."""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import replace

import pytest
import rustworkx as rx
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.service.tournaments.knockout import (
    knockout_bracket,
    knockout_next_entrants,
    knockout_next_game,
    knockout_round,
    knockout_winner,
    seed_order,
)
from bot.service.tournaments.pairing import (
    Entrant,
    Pairing,
    round_robin_schedule,
    swiss_round,
    swiss_round_count,
)
from bot.service.tournaments.rounds import LEFT

RESULTS = (1.0, 0.5, 0.0)

# --- An oracle written apart from the module: plain sums and exhaustive search ----------------


def points_of(history: Sequence[Pairing]) -> defaultdict[int, float]:
    points: defaultdict[int, float] = defaultdict(float)
    for game in history:
        if game.seat1 is None:
            points[game.seat0] += 1
        elif game.score0 is not None:
            points[game.seat0] += game.score0
            points[game.seat1] += 1 - game.score0
    return points


def meetings(history: Sequence[Pairing]) -> Counter[frozenset[int]]:
    return Counter(frozenset((g.seat0, g.seat1)) for g in history if g.seat1 is not None)


def byes_of(history: Sequence[Pairing]) -> Counter[int]:
    return Counter(game.seat0 for game in history if game.seat1 is None)


def matchings(players: list[int]) -> Iterator[list[tuple[int, int]]]:
    """Every perfect matching of an even number of players."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for k, partner in enumerate(rest):
        for others in matchings(rest[:k] + rest[k + 1 :]):
            yield [(first, partner), *others]


def squared_differences(pairs: Sequence[tuple[int, int]], points: dict[int, float]) -> float:
    return sum((points[a] - points[b]) ** 2 for a, b in pairs)


def repeats(pairs: Sequence[tuple[int, int]], met: Counter[frozenset[int]]) -> int:
    return sum(1 for a, b in pairs if met[frozenset((a, b))])


def best(
    players: list[int], points: dict[int, float], met: Counter[frozenset[int]]
) -> tuple[int, float]:
    """The fewest repeats any pairing has, and the least squared differences among those."""
    return min((repeats(m, met), squared_differences(m, points)) for m in matchings(players))


def played(round_: Sequence[Pairing]) -> list[Pairing]:
    return [p for p in round_ if p.seat1 is not None]


def byes_in(round_: Sequence[Pairing]) -> tuple[int, ...]:
    return tuple(p.seat0 for p in round_ if p.seat1 is None)


def pairs_of(round_: Sequence[Pairing]) -> list[tuple[int, int]]:
    return [(p.seat0, p.seat1) for p in round_ if p.seat1 is not None]


# --- Random events: rounds paired by the module or at random, random results, withdrawals ---


def play(round_: Sequence[Pairing], data: st.DataObject) -> list[Pairing]:
    """The round's games with random results (some left without one), and its byes."""
    outcomes = st.sampled_from((*RESULTS, *RESULTS, None))
    return [
        game
        if game.seat1 is None
        else Pairing(game.round, game.seat0, game.seat1, data.draw(outcomes))
        for game in round_
    ]


def random_round(players: Sequence[Entrant], number: int, data: st.DataObject) -> list[Pairing]:
    """Any pairing of the active players, repeats and all, as an arbiter's manual round."""
    active = [p.user_id for p in players if p.active]
    order = data.draw(st.permutations(active))
    pairs = [Pairing(number, a, b) for a, b in zip(order[::2], order[1::2], strict=False)]
    bye = [Pairing(number, order[-1], None, 1.0, ended=True)] if len(order) % 2 else []
    return pairs + bye


def withdraw_some(players: list[Entrant], data: st.DataObject) -> list[Entrant]:
    active = [p for p in players if p.active]
    if len(active) > 2 and data.draw(st.integers(0, 4)) == 0:
        leaving = data.draw(st.sampled_from(active)).user_id
        return [Entrant(p.user_id, p.rating, LEFT) if p.user_id == leaving else p for p in players]
    return players


def random_players(data: st.DataObject, low: int, high: int) -> list[Entrant]:
    count = data.draw(st.integers(low, high), label="players")
    ratings = st.sampled_from((1200, 1400, 1500, 1600))
    chosen = data.draw(st.lists(ratings, min_size=count, max_size=count), label="ratings")
    return [Entrant(i + 1, rating) for i, rating in enumerate(chosen)]


# --- Swiss -----------------------------------------------------------------------------------


def check_swiss_round(
    players: Sequence[Entrant], history: Sequence[Pairing], round_: Sequence[Pairing]
) -> None:
    active = [p for p in players if p.active]
    ids = [p.user_id for p in active]
    points, met, byes = points_of(history), meetings(history), byes_of(history)
    seated = [player for pair in pairs_of(round_) for player in pair]
    bye = byes_in(round_)
    assert sorted(seated + list(bye)) == sorted(ids), "every active player once"
    assert len(bye) == len(ids) % 2

    # The bye: fewest byes first; among those the lowest-ranked that leaves a repeat-free round.
    ranked = sorted(active, key=lambda p: (-points[p.user_id], -p.rating, p.user_id))
    fewest = min((byes[i] for i in ids), default=0)
    candidates = [p.user_id for p in reversed(ranked) if byes[p.user_id] == fewest]
    if bye:
        choices = [[i for i in ids if i != c] for c in candidates]
    else:
        candidates, choices = [], [ids]
    free = [
        c for c, rest in zip(candidates, choices, strict=False) if best(rest, points, met)[0] == 0
    ]
    exists_free = any(best(rest, points, met)[0] == 0 for rest in choices)
    if bye:
        assert byes[bye[0]] == fewest, "no second bye before everyone has had one"
        assert bye[0] == (free[0] if free else candidates[0])

    rest = [i for i in ids if i not in bye]
    pairs = pairs_of(round_)
    fewest_repeats, least_cost = best(rest, points, met)
    if exists_free:
        assert repeats(pairs, met) == 0, "no repeat while a round without one exists"
    assert repeats(pairs, met) == fewest_repeats
    assert squared_differences(pairs, points) == least_cost

    # Seat 0 to the player owed it: seat balance, then the last seat.
    def owed(player: int) -> tuple[int, int]:
        games = [g for g in history if g.seat1 is not None and player in (g.seat0, g.seat1)]
        balance = sum(1 if g.seat0 == player else -1 for g in games)
        last = None if not games else 0 if max(games, key=lambda g: g.round).seat0 == player else 1
        return (-balance, {None: 0, 0: -1, 1: 1}[last])

    for pairing in played(round_):
        assert pairing.seat1 is not None
        assert owed(pairing.seat0) >= owed(pairing.seat1)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_swiss_rounds_avoid_repeats_and_keep_opponents_close_in_score(data: st.DataObject) -> None:
    players = random_players(data, 2, 10)
    history: list[Pairing] = []
    for number in range(1, data.draw(st.integers(1, len(players) + 1), label="rounds") + 1):
        players = withdraw_some(players, data)
        if sum(p.active for p in players) < 2:
            break
        round_ = swiss_round(players, history, number)
        check_swiss_round(players, history, round_)
        if data.draw(st.booleans(), label="arbiter pairs this round"):
            round_ = random_round(players, number, data)
        history.extend(play(round_, data))


def optimum_on_complete_graph(
    ids: Sequence[int], points: dict[int, float], met: Counter[frozenset[int]]
) -> float:
    """The least squared differences of a repeat-free pairing, from one matching of all pairs."""
    graph = rx.PyGraph()
    graph.add_nodes_from(ids)
    edges = [
        (i, j, 10**6 - int(4 * (points[a] - points[b]) ** 2))
        for (i, a), (j, b) in itertools.combinations(enumerate(ids), 2)
        if not met[frozenset((a, b))]
    ]
    graph.add_edges_from(edges)
    mates = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    assert len(mates) == len(ids) // 2
    return squared_differences([(ids[i], ids[j]) for i, j in mates], points)


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_larger_swiss_rounds_match_the_best_pairing_on_the_complete_graph(
    data: st.DataObject,
) -> None:
    players = random_players(data, 12, 60)
    history: list[Pairing] = []
    for number in range(1, swiss_round_count(len(players)) + 2):
        players = withdraw_some(players, data)
        round_ = swiss_round(players, history, number)
        points, met = points_of(history), meetings(history)
        rest = [p.user_id for p in players if p.active and p.user_id not in byes_in(round_)]
        assert repeats(pairs_of(round_), met) == 0
        assert squared_differences(pairs_of(round_), points) == optimum_on_complete_graph(
            rest, points, met
        )
        history.extend(play(round_, data))


def test_the_first_round_pairs_the_top_half_with_the_bottom_half_seats_alternating() -> None:
    players = [Entrant(i, 2000 - 10 * i) for i in range(1, 9)]

    round_ = swiss_round(players, [], 1)

    assert pairs_of(round_) == [(1, 5), (6, 2), (3, 7), (8, 4)]
    assert byes_in(round_) == ()


def test_a_player_floats_across_as_many_score_groups_as_it_must() -> None:
    players = [Entrant(i, 1500) for i in range(1, 5)]
    history = [
        Pairing(1, 1, 2, 1.0),
        Pairing(1, 3, 4, 1.0),
        Pairing(2, 1, 3, 1.0),
        Pairing(2, 4, 2, 0.5),
    ]
    # Points: 1 has 2, 3 has 1, 2 and 4 have 0.5. 1 has met 2 and 3, so 1 meets 4 at last.
    round_ = swiss_round(players, history, 3)

    assert sorted(map(frozenset, pairs_of(round_))) == sorted(
        [frozenset((1, 4)), frozenset((2, 3))]
    )


def test_seat_zero_goes_by_seat_balance_then_to_whoever_had_seat_one_last() -> None:
    players = [Entrant(1, 1500), Entrant(2, 1400), Entrant(3, 1300), Entrant(4, 1200)]
    history = [
        Pairing(1, 1, 3, 0.5),
        Pairing(1, 4, 2, 0.5),
        Pairing(2, 1, 4, 0.5),
        Pairing(2, 3, 2, 0.5),
    ]

    round_ = swiss_round(players, history, 3)

    # 1 has had seat 0 twice and 2 never; 3 and 4 are even, and 4 had seat 1 last.
    assert pairs_of(round_) == [(2, 1), (4, 3)]


def test_the_bye_goes_to_the_lowest_ranked_player_who_has_not_had_one() -> None:
    players = [Entrant(i, 1500 - i) for i in range(1, 6)]
    history = [Pairing(1, 1, 3, 1.0), Pairing(1, 4, 2, 0.0), Pairing(1, 5, None, 1.0)]

    round_ = swiss_round(players, history, 2)

    # 3 and 4 have no points; 4 is rated lower, and 5 has had its bye.
    assert byes_in(round_) == (4,)


def test_a_second_bye_comes_only_once_everyone_has_had_one() -> None:
    players = [Entrant(i, 1500 - i) for i in range(1, 4)]
    history = [
        Pairing(1, 1, 2, 1.0),
        Pairing(1, 3, None),
        Pairing(2, 3, 1, 0.0),
        Pairing(2, 2, None),
    ]
    assert byes_in(swiss_round(players, history, 3)) == (1,)

    history += [Pairing(3, 2, 3, 0.0), Pairing(3, 1, None)]
    assert byes_in(swiss_round(players, history, 4)) == (2,)


def test_withdrawn_players_are_not_paired() -> None:
    players = [Entrant(1, 1500), Entrant(2, 1500, withdrawn=LEFT), Entrant(3, 1500)]

    round_ = swiss_round(players, [Pairing(1, 1, 2, 0.0)], 2)

    assert pairs_of(round_) == [(3, 1)]
    assert byes_in(round_) == ()


@pytest.mark.parametrize(("players", "rounds"), [(1, 0), (2, 1), (8, 3), (9, 4), (256, 8)])
def test_the_default_swiss_length_is_log2_of_the_players(players: int, rounds: int) -> None:
    assert swiss_round_count(players) == rounds


def test_a_game_refuses_a_score_other_than_a_win_a_draw_or_a_loss() -> None:
    with pytest.raises(ValueError, match=r"1, 0\.5 or 0"):
        Pairing(1, 1, 2, 0.75)


# --- Round robin -------------------------------------------------------------------------------


@given(st.integers(2, 21))
def test_a_round_robin_meets_every_pair_exactly_once(count: int) -> None:
    players = [Entrant(i, 1500 + (i % 3)) for i in range(1, count + 1)]

    schedule = round_robin_schedule(players)

    assert len(schedule) == count - 1 + count % 2
    met = Counter(frozenset(pair) for round_ in schedule for pair in pairs_of(round_))
    assert set(met) == {frozenset(pair) for pair in itertools.combinations(range(1, count + 1), 2)}
    assert set(met.values()) == {1}
    for round_ in schedule:
        seated = [p for pair in pairs_of(round_) for p in pair] + list(byes_in(round_))
        assert sorted(seated) == list(range(1, count + 1))
        assert len(byes_in(round_)) == count % 2
    assert Counter(p for round_ in schedule for p in byes_in(round_)) == (
        Counter(range(1, count + 1)) if count % 2 else Counter()
    )

    # Seats: balanced to one game, and never the same seat three games running.
    for player in range(1, count + 1):
        seats = [
            0 if pairing.seat0 == player else 1
            for round_ in schedule
            for pairing in played(round_)
            if player in (pairing.seat0, pairing.seat1)
        ]
        assert abs(seats.count(0) - seats.count(1)) <= 1
        assert all(len(set(seats[k : k + 3])) == 2 for k in range(len(seats) - 2))


@given(st.integers(3, 12), st.data())
def test_a_round_robin_drops_only_the_games_of_the_withdrawn(
    count: int, data: st.DataObject
) -> None:
    players = [Entrant(i, 1000 + i) for i in range(1, count + 1)]
    gone = set(data.draw(st.sets(st.integers(1, count), max_size=count - 2)))
    withdrawn = [Entrant(p.user_id, p.rating, LEFT if p.user_id in gone else None) for p in players]

    for full, reduced in zip(
        round_robin_schedule(players), round_robin_schedule(withdrawn), strict=True
    ):
        assert pairs_of(reduced) == [p for p in pairs_of(full) if not set(p) & gone]
        assert byes_in(reduced) == tuple(p for p in byes_in(full) if p not in gone)


# --- Knockout ----------------------------------------------------------------------------------


def favourites_win(players: Sequence[Entrant], round_: Sequence[Pairing]) -> list[Pairing]:
    rating = {p.user_id: p.rating for p in players}
    return [
        replace(p, score0=1.0 if rating[p.seat0] > rating[p.seat1 or 0] else 0.0, ended=True)
        for p in played(round_)
    ]


@given(st.integers(2, 70))
def test_a_knockout_bracket_is_complete_and_seeded(count: int) -> None:
    # Entrant i is seed i: ratings fall with the id.
    players = [Entrant(i, 3000 - i) for i in range(1, count + 1)]

    entrants = knockout_bracket(players)

    size = len(entrants)
    assert size & (size - 1) == 0 and count <= size < 2 * count
    assert sorted(e for e in entrants if e is not None) == list(range(1, count + 1))
    byes = byes_in(knockout_round(players, entrants, [], 1))
    assert sorted(byes) == list(range(1, size - count + 1)), "byes only to the top seeds"

    # With every favourite winning, seed s meets seed (slots + 1 - s) in every round, up to 1 v 2.
    history: list[Pairing] = []
    number = 1
    while len(entrants) > 1:
        for first, second in zip(entrants[::2], entrants[1::2], strict=True):
            assert first is not None
            if second is not None:
                assert first + second == len(entrants) + 1
        round_ = knockout_round(players, entrants, history, number)
        history += favourites_win(players, round_)
        entrants = knockout_next_entrants(players, entrants, history)
        number += 1
    assert entrants == (1,)
    assert number - 1 == (size - 1).bit_length()


def test_seed_order_puts_the_top_seeds_in_opposite_halves() -> None:
    assert seed_order(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
    assert knockout_bracket([Entrant(i, -i) for i in range(1, 6)]) == (
        *(1, None, 4, 5),
        *(2, None, 3, None),
    )


TOP, UNDERDOG = Entrant(1, 1800), Entrant(2, 1600)
MATCH = (2, 1)


def test_a_decisive_game_settles_a_knockout_match() -> None:
    games = [Pairing(1, 2, 1, 1.0)]

    assert knockout_winner([TOP, UNDERDOG], MATCH, games) == 2
    assert knockout_next_game(MATCH, games) is None


def test_a_drawn_knockout_game_is_replayed_with_seats_swapped() -> None:
    games = [Pairing(1, 2, 1, 0.5)]

    assert knockout_winner([TOP, UNDERDOG], MATCH, games) is None
    assert knockout_next_game(MATCH, games) == (1, 2)
    assert knockout_winner([TOP, UNDERDOG], MATCH, [*games, Pairing(1, 1, 2, 0.0)]) == 2


def test_after_two_draws_the_higher_rated_player_goes_through() -> None:
    games = [Pairing(1, 2, 1, 0.5), Pairing(1, 1, 2, 0.5)]

    assert knockout_winner([TOP, UNDERDOG], MATCH, games) == 1
    assert knockout_next_game(MATCH, games) is None


def test_games_without_a_result_do_not_count_in_a_knockout_match() -> None:
    games = [Pairing(1, 2, 1, 0.5), Pairing(1, 1, 2)]

    assert knockout_winner([TOP, UNDERDOG], MATCH, games) is None
    assert knockout_next_game(MATCH, games) == (1, 2)
    assert knockout_next_game(MATCH, []) == MATCH


def test_a_withdrawn_player_never_goes_through() -> None:
    players = [Entrant(i, 2000 - i) for i in range(1, 5)]
    entrants = knockout_bracket(players)  # 1 v 4, 2 v 3
    withdrawn = [
        Entrant(p.user_id, p.rating, LEFT if p.user_id in (2, 4) else None) for p in players
    ]
    history = [Pairing(1, 1, 4, 1.0), Pairing(1, 2, 3, 1.0)]

    # 4 lost anyway; 2 won at the board and withdrew after: nobody takes its place.
    assert knockout_next_entrants(withdrawn, entrants, history) == (1, None)
    final = knockout_round(withdrawn, (1, None), history, 2)
    assert played(final) == [] and byes_in(final) == (1,)


def test_the_next_knockout_round_waits_for_every_match() -> None:
    players = [Entrant(i, 2000 - i) for i in range(1, 5)]

    with pytest.raises(ValueError, match="not decided"):
        knockout_next_entrants(players, knockout_bracket(players), [Pairing(1, 1, 4, 0.5)])
