"""Hypothesis strategies, play helpers and checks shared by the engine tests."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TypeVar

import pytest
from hypothesis import strategies as st

from games.base import AnyGame, Event, Game, GameError, Seat
from games.board import text as board_text

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


def public_differences(events_a: Iterable[Event], events_b: Iterable[Event]) -> list[Event]:
    """The public events of ``events_a`` that read or carry other facts than their counterparts."""
    return [
        a
        for a, b in zip(events_a, events_b, strict=False)
        if a.public and (a.render(NAMES), a.data) != (b.render(NAMES), b.data)
    ]


def reloaded(game: Game[S, Any, Any], state: S) -> S:
    """The state after storing it as JSON and loading it back."""
    return game.load(json.loads(json.dumps(game.dump(state))))


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


def answer(game: AnyGame, state: Any, seat: Seat, text: str) -> str:
    """What ``seat`` learns from trying ``text``: the refusal in words, or the action accepted."""
    try:
        action = game.parse(state, seat, text)
        game.apply(state, seat, action)
    except GameError as error:
        return f"{type(error).__name__}: {error}"
    return f"accepted {action}"


def assert_alike(game: AnyGame, a: Any, b: Any, viewers: Iterable[Seat | None], seat: Seat) -> None:
    """``a`` and ``b`` look the same to ``viewers`` (views and their text), have the same seats
    to act, and offer ``seat`` the same actions."""
    for viewer in viewers:
        assert game.view(a, viewer) == game.view(b, viewer)
        assert game.board(game.view(a, viewer)) == game.board(game.view(b, viewer))
    assert game.to_act(a) == game.to_act(b)
    assert list(game.legal_actions(a, seat)) == list(game.legal_actions(b, seat))


def drawn(game: AnyGame, state: Any, viewer: Seat | None) -> list[str]:
    """The board ``viewer`` sees, in plain text (``games.board.text``), line by line."""
    return board_text(game.board(game.view(state, viewer))).splitlines()
