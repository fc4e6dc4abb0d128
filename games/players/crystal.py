"""Crystal Capture, played perfectly: full minimax over the pool, remembered per position.

A position is the pool and both totals, so there are few enough to search all of them. Wins
are worth more the sooner they come and losses less the later, so a winning player finishes
quickly and a losing one holds out longest (and takes any draw there is).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache
from typing import Final

from games.base import Ask
from games.crystal import CRYSTALS, TARGET, Capture, View
from games.players.base import random_action

WIN: Final = 100
"""A win's score before the moves it takes are subtracted; a loss scores the negative."""


def _capturable(pool: int, points: int) -> list[int]:
    return [c for c in CRYSTALS if pool >> c & 1 and points + c <= TARGET]


@cache
def score(pool: int, mover: int, waiting: int) -> int:
    """The value of a position for the player to move, with best play on both sides.

    ``pool`` holds crystal ``c`` as bit ``c``; ``mover`` and ``waiting`` are the totals of
    the player to move (who has a legal capture) and the other player. Positive: the mover
    wins (``WIN`` minus the captures it takes); negative: it loses; 0: a draw.
    """
    return max(capture_score(pool, mover, waiting, c) for c in _capturable(pool, mover))


def capture_score(pool: int, mover: int, waiting: int, crystal: int) -> int:
    """The value for the mover of capturing ``crystal`` now (see ``score``)."""
    points = mover + crystal
    if points == TARGET:
        return WIN - 1
    left = pool & ~(1 << crystal)
    if _capturable(left, waiting):
        after = -score(left, waiting, points)
    elif _capturable(left, points):
        after = score(left, points, waiting)  # the other player passes
    else:
        return 0  # neither can capture: a draw
    return after - 1 if after > 0 else after + 1 if after < 0 else 0


def strategy(view: View, ask: Ask, legal: Sequence[Capture], rng: random.Random) -> Capture:
    """The best capture for the seat whose ``view`` this is, ties broken at random."""
    seat = view.seat
    if seat is None or not legal:
        return random_action(legal, rng)
    pool = sum(1 << c for c in view.pool)
    points = view.points
    values = {a: capture_score(pool, points[seat], points[1 - seat], a.crystal) for a in legal}
    best = max(values.values())
    return rng.choice([a for a in legal if values[a] == best])
