"""``games.base.evolve``: the games' copy-with-changes, which must make what
``dataclasses.replace`` makes."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from games import GAMES
from games.base import evolve


def played_state(name: str, moves: int = 6) -> Any:
    """A state of ``name`` some random moves in, so that its fields hold more than defaults."""
    game = GAMES[name]
    rng = random.Random(name)
    state = game.new(game.options(game.new({}, 1)), 1)
    for _ in range(moves):
        if game.outcome(state) is not None:
            break
        seat = rng.choice(sorted(game.to_act(state)))
        state, _ = game.apply(state, seat, rng.choice(list(game.legal_actions(state, seat))))
    return state


@pytest.mark.parametrize("name", sorted(GAMES))
def test_evolve_makes_what_replace_makes(name: str) -> None:
    state = played_state(name)
    other = played_state(name, moves=0)
    for field in dataclasses.fields(state):
        changed = getattr(other, field.name)
        copy = evolve(state, **{field.name: changed})
        assert copy == dataclasses.replace(state, **{field.name: changed})
        assert type(copy) is type(state)
        assert getattr(copy, field.name) is changed
    assert evolve(state) == state
    assert evolve(state) is not state


@pytest.mark.parametrize("name", sorted(GAMES))
def test_evolve_leaves_the_original_and_keeps_the_copy_frozen(name: str) -> None:
    state = played_state(name)
    before = dataclasses.asdict(state)
    field = dataclasses.fields(state)[0].name
    copy = evolve(state, **{field: None})
    assert dataclasses.asdict(state) == before
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(copy, field, 1)


def test_evolve_refuses_a_field_the_record_does_not_have() -> None:
    state = played_state("flag")
    with pytest.raises(TypeError, match="has no field colour"):
        evolve(state, colour="red")
