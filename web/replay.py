"""A finished match replayed from its event log: the board after each action, and what it did.

The log keeps every action's canonical text and the match keeps its seed, so the engine plays
the match again exactly (``games`` are pure and seeded). Only finished matches are replayed:
their secrets are public by then, so each step may show the action itself, a secret choice
included. A match that ended outside the rules (a resignation, a timeout) ends with the same
``conclude`` the bot ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import games
from db.site import FinishedGame, LoggedAction
from games.base import AnyGame, GameError, Outcome, Reason
from games.board import Board
from games.review.replay import played

REASONS = frozenset(reason.value for reason in Reason)


@dataclass(frozen=True)
class Step:
    """The match after one action (step 0: before any)."""

    number: int
    seat: int | None
    """Who acted; None for the start and for an end from outside the rules."""
    action: str
    """The action's canonical text, empty for the start."""
    events: tuple[str, ...]
    """What happened, as everyone reads it, with the players' names."""
    state: Any
    """The game after this step: ``board`` draws it, for the one step a page shows."""


def steps(
    match: FinishedGame, actions: Sequence[LoggedAction], names: tuple[str, str]
) -> list[Step]:
    """Every step of ``match`` from its first action to its end, the start first."""
    engine = games.get(match.game)
    state = engine.new(match.options, match.seed)
    found = [Step(0, None, "", (), state)]
    logged = [(action.seat, action.ask, action.text) for action in actions]
    try:
        for step in played(engine, match.options, match.seed, logged):
            shown = tuple(event.render(names) for event in step.events if event.public)
            found.append(Step(len(found), step.seat, step.text, shown, step.after))
            state = step.after
    except ValueError:
        pass  # a log the engine no longer reads (GameError is one): show the steps it does
    if engine.outcome(state) is None and match.end_reason in REASONS:
        try:
            state, events = engine.conclude(
                state, Outcome(match.winner_seat, Reason(match.end_reason))
            )
        except GameError:
            return found
        shown = tuple(event.render(names) for event in events if event.public)
        found.append(Step(len(found), None, "", shown, state))
    return found


def board(engine: AnyGame, step: Step) -> Board:
    """The board as the public sees it after ``step``."""
    return engine.board(engine.view(step.state, None))
