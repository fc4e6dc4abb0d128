"""A finished match replayed from its event log: the board after each action, and what it did.

The log keeps every action's canonical text and the match keeps its seed, so the engine plays
the match again exactly (``games`` are pure and seeded). Only finished matches are replayed:
their secrets are public by then, so each step may show the action itself, a secret choice
included. A match that ended outside the rules (a resignation, a timeout) ends with the same
``conclude`` the bot ran.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import games
from bot.service.replays import outside_ending
from db.site import FinishedMatch
from games.base import AnyGame, GameError
from games.board import Board
from games.review.replay import played


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


def steps(match: FinishedMatch, names: tuple[str, str]) -> list[Step]:
    """Every step of ``match`` from its first action to its end, the start first."""
    engine = games.get(match.game)
    state = engine.new(match.options, match.seed)
    found = [Step(0, None, "", (), state)]
    try:
        for step in played(engine, match.options, match.seed, match.actions):
            shown = tuple(event.render(names) for event in step.events if event.public)
            found.append(Step(len(found), step.seat, step.text, shown, step.after))
            state = step.after
    except ValueError:
        pass  # a log the engine no longer reads (GameError is one): show the steps it does
    ending = outside_ending(match)
    if engine.outcome(state) is None and ending is not None:
        try:
            state, events = engine.conclude(state, ending)
        except GameError:
            return found
        shown = tuple(event.render(names) for event in events if event.public)
        found.append(Step(len(found), None, "", shown, state))
    return found


def board(engine: AnyGame, step: Step) -> Board:
    """The board as the public sees it after ``step``."""
    return engine.board(engine.view(step.state, None))
