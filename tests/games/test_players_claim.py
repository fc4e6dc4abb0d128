"""Number Claim's player: the largest number left, so the first player always wins."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import Ask, Outcome, Reason
from games.claim import GAME, ClaimCell, ClaimNumber, State
from games.players import player_for
from tests.games.helpers import seeds

HARD = player_for("claim", "hard")


def outcomes(state: State) -> Iterator[Outcome]:
    """The outcome of every game hard (seat 0) plays from ``state``, seat 1 trying each claim."""
    while (outcome := GAME.outcome(state)) is None:
        (seat,) = GAME.to_act(state)
        legal = GAME.legal_actions(state, seat)
        if seat == 1:
            for action in legal:
                yield from outcomes(GAME.apply(state, 1, action)[0])
            return
        action = HARD.choose(GAME.view(state, 0), Ask.ACTION, legal, random.Random(0))
        state, _ = GAME.apply(state, 0, action)
    yield outcome


def test_hard_as_first_player_beats_every_opponent_on_the_3x3_grid() -> None:
    """Exhaustive: 8 x 6 x 4 x 2 lines for the second player, all lost (*computed*)."""
    results = list(outcomes(GAME.new({}, 11)))
    assert len(results) == 8 * 6 * 4 * 2
    assert set(results) == {Outcome(0, Reason.SCORE)}


@settings(max_examples=100, deadline=None)
@given(seed=seeds, level=st.sampled_from(["easy", "normal", "hard"]))
def test_hard_as_first_player_beats_any_opponent_on_the_4x4_grid(seed: int, level: str) -> None:
    """Each turn hard claims a larger number than the second player's next claim can be."""
    rng = random.Random(seed)
    state = GAME.new({"size": 4}, seed)
    players = (HARD, player_for("claim", level))
    while GAME.outcome(state) is None:
        (seat,) = GAME.to_act(state)
        legal = GAME.legal_actions(state, seat)
        action = players[seat].choose(GAME.view(state, seat), Ask.ACTION, legal, rng)
        state, _ = GAME.apply(state, seat, action)
    assert GAME.outcome(state) == Outcome(0, Reason.SCORE)


@pytest.mark.parametrize("size", [3, 4])
def test_hard_claims_the_largest_number_left(size: int) -> None:
    rng = random.Random(size)
    state = GAME.new({"size": size}, size)
    while GAME.outcome(state) is None:
        (seat,) = GAME.to_act(state)
        legal = GAME.legal_actions(state, seat)
        action = HARD.choose(GAME.view(state, seat), Ask.ACTION, legal, rng)
        assert action == max(legal)
        assert isinstance(action, ClaimNumber)
        state, _ = GAME.apply(state, seat, action)


def test_with_hidden_numbers_hard_claims_any_cell() -> None:
    """Every hidden cell is worth the same in expectation: the claims are spread at random."""
    state = GAME.new({"hidden": True}, 4)
    legal = GAME.legal_actions(state, 0)
    view = GAME.view(state, 0)
    picks = {HARD.choose(view, Ask.ACTION, legal, random.Random(s)) for s in range(200)}
    assert picks == set(legal)
    assert all(isinstance(pick, ClaimCell) for pick in picks)
