"""Flag Chase gives no puzzles: its review scores moves by the built-in player's race
estimate, never exactly (``games.review.flag``), and a puzzle's answer must be one that no
better search could overturn."""

from __future__ import annotations

from games.base import AnyGame, Ask, Seat
from games.flag import State
from games.puzzles.choosing import Position


def position(game: AnyGame, state: State, seat: Seat, ask: Ask) -> Position | None:
    """``None``: no Flag Chase position is decided exactly."""
    return None
