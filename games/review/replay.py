"""A finished match played again from its log: every state on the way, for the review and the
web pages' replay."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from games.base import JSON, AnyGame, Ask, Event, Outcome, Seat

Played: TypeAlias = tuple[Seat, Ask | str, str]
"""One logged action: the seat, what it was asked for, and the action's text."""


@dataclass(frozen=True)
class Step:
    """One action of the match: the states around it and what it caused."""

    seat: Seat
    ask: Ask
    text: str
    action: Any
    before: Any
    after: Any
    events: tuple[Event, ...]


@dataclass(frozen=True)
class Replay:
    """A whole match: its steps in order, its last state and how it ended."""

    game: AnyGame
    options: Mapping[str, JSON]
    seed: int
    steps: tuple[Step, ...]
    final: Any
    outcome: Outcome


def played(
    game: AnyGame, options: Mapping[str, JSON], seed: int, actions: Sequence[Played]
) -> Iterator[Step]:
    """Each of ``actions`` applied in turn from ``game.new(options, seed)``, as it is applied.

    Raises ``ValueError`` at the first action that does not fit the match (another seat or ask
    than the game expects, a refused action): a reader may keep the steps before it.
    """
    state = game.new(options, seed)
    for number, (seat, asked, text) in enumerate(actions, 1):
        ask = Ask(asked)
        if seat not in game.to_act(state) or game.ask(state, seat) is not ask:
            raise ValueError(f"action {number} ({text!r}): seat {seat} was not asked {ask}")
        action = game.parse(state, seat, text)
        after, events = game.apply(state, seat, action)
        yield Step(seat, ask, text, action, state, after, tuple(events))
        state = after


def replay(
    game: AnyGame,
    options: Mapping[str, JSON],
    seed: int,
    actions: Sequence[Played],
    outcome: Outcome | None = None,
) -> Replay:
    """The match ``actions`` play from ``game.new(options, seed)``.

    A match the rules did not end (resign, timeout) ends with ``outcome`` through the game's
    ``conclude``. Raises ``ValueError`` when an action does not fit the match (another seat
    or ask than the game expects, a refused action), when the match has not ended and no
    ``outcome`` is given, or when ``outcome`` contradicts the rules' own ending.
    """
    steps = tuple(played(game, options, seed, actions))
    state = steps[-1].after if steps else game.new(options, seed)
    ended = game.outcome(state)
    if ended is None:
        if outcome is None:
            raise ValueError("the match has not ended: give the outcome it ended with")
        state, _ = game.conclude(state, outcome)
        ended = outcome
    elif outcome is not None and outcome != ended:
        raise ValueError(f"the moves end the match as {ended}, not {outcome}")
    return Replay(game, game.options(state), seed, steps, state, ended)
