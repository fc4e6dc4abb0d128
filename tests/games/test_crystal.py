"""Crystal Capture: the rule book's game, docs/rules.md's rules and computed facts, bad input."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import (
    Ask,
    GameOver,
    IllegalAction,
    InvalidInput,
    InvalidOptions,
    NotYourTurn,
    Outcome,
    Reason,
    Seat,
    other,
)
from games.crystal import CRYSTALS, GAME, TARGET, Capture, State
from tests.games.helpers import drawn, play, public_texts, refused, reloaded, seeds

Position = tuple[tuple[int, ...], tuple[int, int], Seat]
"""What decides the rest of a game: the pool, both totals, and the seat to move."""


def test_book_example_game() -> None:
    state = GAME.new({}, seed=3)
    assert drawn(GAME, state, None) == [
        "Crystals (exactly 15 wins):",
        "[1] [2] [3]",
        "[4] [5] [6]",
        "[7] [8] [9]",
        "Player 1: 0 points",
        "Player 2: 0 points",
    ]
    state, events = play(GAME, state, [(0, "8")])
    assert public_texts(events) == ["Ann captures crystal 8: 8 points."]
    state, _ = play(GAME, state, [(1, "7"), (0, "6")])
    assert drawn(GAME, state, 1)[1:] == [
        "[ 1  ] [ 2  ] [ 3  ]",
        "[ 4  ] [ 5  ] [6 P1]",
        "[7 P2] [8 P1] [ 9  ]",
        "Player 1: 14 points",
        "Player 2: 7 points",
    ]
    # Player 2's two illegal attempts are refused and cost nothing.
    assert "over 15" in str(refused(GAME, state, 1, "9"))
    assert isinstance(refused(GAME, state, 1, "9"), IllegalAction)
    assert "already been captured" in str(refused(GAME, state, 1, "8"))
    assert isinstance(refused(GAME, state, 1, "8"), IllegalAction)
    assert GAME.to_act(state) == {1}
    state, _ = play(GAME, state, [(1, "4")])
    assert GAME.view(state, None).points == (14, 11)
    assert GAME.view(state, None).pool == (1, 2, 3, 5, 9)
    state, events = play(GAME, state, [(0, "1")])
    assert GAME.outcome(state) == Outcome(0, Reason.TARGET)
    assert public_texts(events) == [
        "Ann captures crystal 1: 15 points.",
        "Ann wins with exactly 15 points.",
    ]
    assert [e.kind for e in events] == ["capture", "end"]
    assert GAME.to_act(state) == frozenset()
    assert drawn(GAME, state, None)[-2:] == ["Player 1: 15 points", "Player 2: 11 points"]


# --- computed facts (docs/rules.md) -------------------------------------------------------------


def _position(state: State) -> Position:
    view = GAME.view(state, None)
    if view.to_act is not None:
        return view.pool, view.points, view.to_act
    # Over: the seat to move is the one who could not, after the last capture.
    return view.pool, view.points, other(view.captures[-1].seat)


def _children(state: State) -> list[State]:
    (seat,) = GAME.to_act(state)
    return [GAME.apply(state, seat, action)[0] for action in GAME.legal_actions(state, seat)]


def test_first_player_wins_with_perfect_play() -> None:
    memo: dict[Position, Seat | None] = {}

    def winner(state: State) -> Seat | None:
        """The winner under perfect play from ``state`` (None: a draw)."""
        result = GAME.outcome(state)
        if result is not None:
            return result.winner
        key = _position(state)
        if key not in memo:
            (seat,) = GAME.to_act(state)
            results = {winner(child) for child in _children(state)}
            memo[key] = seat if seat in results else None if None in results else other(seat)
        return memo[key]

    assert winner(GAME.new({}, seed=0)) == 0


def test_101_reachable_end_positions_leave_neither_player_a_capture() -> None:
    """Positions are (pool, Player 1 points, Player 2 points, seat to move), as in a game tree."""
    seen: set[Position] = set()
    stuck: set[Position] = set()
    frontier = [GAME.new({}, seed=0)]
    while frontier:
        state = frontier.pop()
        key = _position(state)
        if key in seen:
            continue
        seen.add(key)
        result = GAME.outcome(state)
        if result is None:
            frontier.extend(_children(state))
        elif result.reason is Reason.NO_MOVES:
            pool, points, _ = key
            assert result.winner is None
            assert pool, "two totals under 15 cannot use up 1-9 (sum 45)"
            assert all(TARGET - total < min(pool) for total in points)
            stuck.add(key)
    assert len(stuck) == 101


def test_both_stuck_is_a_draw_announced_with_two_passes() -> None:
    state, _ = play(GAME, GAME.new({}, seed=0), [(0, "9"), (1, "8"), (0, "4"), (1, "6")])
    state, events = play(GAME, state, [(0, "1")])
    assert GAME.outcome(state) == Outcome(None, Reason.NO_MOVES)
    assert [e.kind for e in events] == ["capture", "pass", "pass", "end"]
    assert public_texts(events)[1:] == [
        "Bob cannot capture without going over 15 and passes.",
        "Ann cannot capture without going over 15 and passes.",
        "Draw: neither player can capture without going over 15 (14 to 14).",
    ]
    assert drawn(GAME, state, 0)[-2:] == ["Player 1: 14 points", "Player 2: 14 points"]


def test_a_stuck_player_passes_and_the_other_moves_again() -> None:
    state, _ = play(GAME, GAME.new({}, seed=0), [(0, "9"), (1, "1"), (0, "5")])
    # Player 1 has 14 and the 1 is gone: after Player 2's capture Player 1 must pass.
    state, events = play(GAME, state, [(1, "2")])
    assert public_texts(events) == [
        "Bob captures crystal 2: 3 points.",
        "Ann cannot capture without going over 15 and passes.",
    ]
    assert GAME.to_act(state) == {1}
    assert GAME.legal_actions(state, 0) == ()
    assert isinstance(refused(GAME, state, 0, "3"), NotYourTurn)
    state, events = play(GAME, state, [(1, "3")])
    assert events[-1].kind == "pass" and GAME.to_act(state) == {1}


# --- rules and bad input -------------------------------------------------------------------


def test_legal_actions_are_the_crystals_that_keep_the_player_at_most_15() -> None:
    state, _ = play(GAME, GAME.new({}, seed=0), [(0, "9"), (1, "2")])
    assert GAME.legal_actions(state, 0) == tuple(Capture(c) for c in (1, 3, 4, 5, 6))
    assert GAME.legal_actions(state, 1) == ()
    assert GAME.ask(state, 0) is Ask.ACTION


@pytest.mark.parametrize("text", ["8", " 8 ", "capture 8", "Crystal 8", "CAPTURE crystal 8", "08"])
def test_parse_accepts_forgiving_text(text: str) -> None:
    assert GAME.parse(GAME.new({}, seed=0), 0, text) == Capture(8)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "cannot be read"),
        ("abc", "cannot be read"),
        ("8 8", "cannot be read"),
        ("-3", "cannot be read"),
        ("crystal", "cannot be read"),
        ("0", "crystals are numbered 1-9"),
        ("10", "crystals are numbered 1-9"),
    ],
)
def test_unreadable_text_is_invalid_input(text: str, says: str) -> None:
    error = refused(GAME, GAME.new({}, seed=0), 0, text)
    assert isinstance(error, InvalidInput)
    assert says in str(error) and "1-9" in str(error)


def test_refusals_leave_the_state_unchanged() -> None:
    state, _ = play(GAME, GAME.new({}, seed=0), [(0, "8"), (1, "7"), (0, "6")])
    assert isinstance(refused(GAME, state, 0, "1"), NotYourTurn)
    taken = refused(GAME, state, 1, "6")
    assert isinstance(taken, IllegalAction)
    assert str(taken) == "Crystal 6 has already been captured: you can capture 1, 2, 3, 4, 5."
    assert isinstance(refused(GAME, state, 1, Capture(12)), IllegalAction)
    over = refused(GAME, state, 1, "9")
    assert str(over) == "Crystal 9 would take you to 16, over 15: you can capture 1, 2, 3, 4, 5."
    ended, _ = play(GAME, state, [(1, "4"), (0, "1")])
    assert isinstance(refused(GAME, ended, 1, "2"), GameOver)
    assert isinstance(refused(GAME, ended, 0, "2"), GameOver)


def test_crystal_capture_has_no_options() -> None:
    assert GAME.options(GAME.new({}, seed=5)) == {}
    with pytest.raises(InvalidOptions, match="no options"):
        GAME.new({"target": 20}, seed=5)


def test_conclude_ends_the_game_once() -> None:
    state, _ = play(GAME, GAME.new({}, seed=0), [(0, "5")])
    ended, events = GAME.conclude(state, Outcome(0, Reason.RESIGN))
    assert public_texts(events) == ["Ann wins: Bob resigned."]
    assert GAME.outcome(ended) == Outcome(0, Reason.RESIGN)
    assert GAME.to_act(ended) == frozenset() and GAME.legal_actions(ended, 1) == ()
    assert drawn(GAME, ended, None)[-2:] == ["Player 1: 5 points", "Player 2: 0 points"]
    with pytest.raises(GameOver):
        GAME.conclude(ended, Outcome(1, Reason.TIMEOUT))
    assert isinstance(refused(GAME, ended, 1, "4"), GameOver)


@settings(max_examples=100, deadline=None)
@given(seed=seeds, rng=st.randoms(use_true_random=False))
def test_random_play_round_trips_and_ends_as_the_rules_say(seed: int, rng: random.Random) -> None:
    state = GAME.new({}, seed)
    for _ in CRYSTALS:
        assert reloaded(GAME, state) == state
        if GAME.outcome(state) is not None:
            break
        (seat,) = GAME.to_act(state)
        legal = GAME.legal_actions(state, seat)
        assert all(GAME.parse(state, seat, str(action)) == action for action in legal)
        state, _ = GAME.apply(state, seat, rng.choice(legal))
    result = GAME.outcome(state)
    assert result is not None
    view = GAME.view(state, None)
    if result.reason is Reason.TARGET:
        assert result.winner is not None and view.points[result.winner] == TARGET
    else:
        assert result == Outcome(None, Reason.NO_MOVES)
        assert all(points + min(view.pool) > TARGET for points in view.points)
