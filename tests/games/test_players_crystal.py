"""Crystal Capture's player: perfect play, so the first player always wins."""

from __future__ import annotations

import random
from collections.abc import Iterator

from games.base import Ask, Outcome, Reason
from games.crystal import CRYSTALS, GAME, State
from games.players import player_for
from games.players.crystal import capture_score, score

HARD = player_for("crystal", "hard")
FULL = sum(1 << c for c in CRYSTALS)


def outcomes(state: State, hard_seat: int) -> Iterator[Outcome]:
    """The outcome of every game the hard player (``hard_seat``) plays from ``state``, the
    other seat trying each of its legal captures in turn."""
    while (outcome := GAME.outcome(state)) is None:
        (seat,) = GAME.to_act(state)
        legal = GAME.legal_actions(state, seat)
        if seat != hard_seat:
            for action in legal:
                yield from outcomes(GAME.apply(state, seat, action)[0], hard_seat)
            return
        action = HARD.choose(GAME.view(state, seat), Ask.ACTION, legal, random.Random(0))
        state, _ = GAME.apply(state, seat, action)
    yield outcome


def test_the_first_player_wins_with_perfect_play() -> None:
    """docs/rules.md *computed*."""
    assert score(FULL, 0, 0) > 0
    winning = {c for c in CRYSTALS if capture_score(FULL, 0, 0, c) > 0}
    assert winning == {6, 7, 8}


def test_hard_as_first_player_beats_every_opponent() -> None:
    """Exhaustive: every line the second player may choose ends in the first player's win."""
    results = list(outcomes(GAME.new({}, 0), hard_seat=0))
    assert len(results) >= len(CRYSTALS) - 1  # at least one line per reply
    assert all(result == Outcome(0, Reason.TARGET) for result in results)


def test_hard_as_second_player_never_loses_where_the_first_slips() -> None:
    """After an opening capture that loses (all but 6, 7, 8), the hard second player wins; after
    1 or 9 it at least draws."""
    for opening in CRYSTALS:
        state, _ = GAME.apply(GAME.new({}, 0), 0, GAME.parse(GAME.new({}, 0), 0, str(opening)))
        value = capture_score(FULL, 0, 0, opening)
        results = set(outcomes(state, hard_seat=1))
        if value < 0:
            assert results == {Outcome(1, Reason.TARGET)}
        elif value == 0:
            assert all(result.winner != 0 for result in results)
