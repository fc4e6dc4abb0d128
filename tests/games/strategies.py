"""Hypothesis strategies and checks shared by the engine tests."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

import pytest
from hypothesis import strategies as st

from games.base import AnyGame, Event, Game, GameError, Seat

S = TypeVar("S")

seeds = st.integers(min_value=0, max_value=2**32 - 1)
"""A game seed."""

NAMES = ("Ann", "Bob")
"""Player names for rendering event texts."""


def play(
    game: Game[S, Any, Any], state: S, moves: Iterable[tuple[Seat, str]]
) -> tuple[S, list[Event]]:
    """The state after parsing and applying each ``(seat, text)``, and every event on the way."""
    events: list[Event] = []
    for seat, text in moves:
        state, new_events = game.apply(state, seat, game.parse(state, seat, text))
        events.extend(new_events)
    return state, events


def public_texts(events: Iterable[Event]) -> list[str]:
    """The rendered texts of the public events."""
    return [event.render(NAMES) for event in events if event.public]


def refused(game: AnyGame, state: Any, seat: Seat, attempt: object) -> GameError:
    """The error the game raises for ``attempt`` (text to parse, or an action) by ``seat``.

    Fails unless the game refuses with a ``GameError`` and leaves ``state`` as it was.
    """
    before = game.dump(state)
    with pytest.raises(GameError) as raised:
        action = game.parse(state, seat, attempt) if isinstance(attempt, str) else attempt
        game.apply(state, seat, action)
    assert game.dump(state) == before
    return raised.value
