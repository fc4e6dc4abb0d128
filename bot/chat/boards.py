"""What the games' emoji boards are drawn with: the marks, keycap numbers and grid rows."""

from __future__ import annotations

from collections.abc import Callable

from games.grid import Cell

EMPTY = "⬜"
MISS = "❌"
CROWN = "👑"
CAPTURED = "💥"
HIDDEN = "❔"
SEAT_SQUARES = ("🟦", "🟥")
AGENTS = ("🔵", "🔴")
FLAGS = ("🚩", "🏁")
WENT_OFF = "💥"
TRAP = "🪤"

_KEYCAPS = {n: f"{n}\ufe0f\u20e3" for n in range(10)} | {10: "🔟"}


def number(value: int) -> str:
    """``value`` as a keycap emoji (0-9 and 🔟), or in digits beyond 10."""
    return _KEYCAPS.get(value, str(value))


def grid_rows(size: int, mark: Callable[[Cell], str], gap: str = "") -> list[str]:
    """The grid row by row, each cell drawn by ``mark``, cells separated by ``gap``."""
    return [gap.join(mark((row, col)) for col in range(1, size + 1)) for row in range(1, size + 1)]
