"""Finished matches for the review tests: played by the built-in players from a seed."""

from __future__ import annotations

import random
from typing import Any

import games
from games.base import Ask, Outcome, Reason, other
from games.players import LEVELS, decide, player_for
from games.review import Played


def match_log(
    name: str,
    options: dict[str, Any],
    seed: int,
    levels: tuple[str, str] | None = None,
    stop: int | None = None,
) -> list[Played]:
    """The log of a match between built-in players (levels drawn from ``seed`` unless
    given), to its end or its first ``stop`` actions."""
    game = games.get(name)
    rng = random.Random(seed)
    chosen = levels or (rng.choice(LEVELS), rng.choice(LEVELS))
    players = [player_for(name, level) for level in chosen]
    state = game.new(options, seed)
    log: list[Played] = []
    while game.outcome(state) is None and (stop is None or len(log) < stop):
        seat = min(game.to_act(state))
        action = decide(game, state, seat, players[seat], rng)
        log.append((seat, game.ask(state, seat).value, str(action)))
        state, _ = game.apply(state, seat, action)
    return log


LONGEST = 120
"""Actions after which ``finished_match`` ends a match by timeout: random guessing in a large
Safe Cracker shape would go on for thousands of guesses."""


def finished_match(
    name: str, options: dict[str, Any], seed: int, levels: tuple[str, str] | None = None
) -> tuple[list[Played], Outcome | None]:
    """A finished match's log, and its outcome when it ended by timeout after ``LONGEST``
    actions rather than by its rules."""
    log = match_log(name, options, seed, levels, stop=LONGEST)
    game = games.get(name)
    state = game.new(options, seed)
    for seat, _, text in log:
        state, _ = game.apply(state, seat, game.parse(state, seat, text))
    if game.outcome(state) is not None:
        return log, None
    return log, Outcome(other(min(game.to_act(state))), Reason.TIMEOUT)


def turn_moves(log: list[Played]) -> int:
    """How many of ``log``'s actions a review judges (moves and Crown hints, not secrets)."""
    return sum(1 for _, ask, _ in log if Ask(ask) is not Ask.SECRET)
