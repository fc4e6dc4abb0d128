"""Emoji boards: each game's board drawn from its public view, for the board embed.

Pure, and drawn only from what the view holds: a secret (a Crown, a trap) is drawn only once the
game is over and the view reveals it. Players are named by seat, as the embed's legend does.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from games.base import SEATS, other
from games.claim import View as ClaimView
from games.crown import SIZE as CROWN_SIZE
from games.crown import CrownView
from games.crystal import View as CrystalView
from games.flag import SIZE as FLAG_SIZE
from games.flag import View as FlagView
from games.grid import Cell
from games.safe import SafeView

EMPTY = "⬜"
MISS = "❌"
CROWN = "👑"
HIDDEN = "❔"
SEAT_SQUARES = ("🟦", "🟥")
AGENTS = ("🔵", "🔴")
FLAGS = ("🚩", "🏁")
WENT_OFF = "💥"
TRAP = "🪤"
SAFE_ROWS = 10
"""Guesses shown per player: the latest ones, so a long game stays well under 1,000 characters."""

_KEYCAPS = {n: f"{n}\ufe0f\u20e3" for n in range(10)} | {10: "🔟"}


def number(value: int) -> str:
    """``value`` as a keycap emoji (0-9 and 🔟), or in digits beyond 10."""
    return _KEYCAPS.get(value, str(value))


def emoji_board(game: str, view: Any) -> str | None:
    """``game``'s board drawn in emoji from ``view``; ``None`` for an unknown game or no view."""
    draw = _BOARDS.get(game)
    return None if draw is None or view is None else draw(view)


def crown_board(view: CrownView) -> str:
    """Each player's grid with the attacks it received; Crowns only once the game is over."""
    lines = []
    for owner in SEATS:
        received = {record.cell: record.hit for record in view.attacks[other(owner)]}
        crown = view.crowns[owner] if view.outcome is not None else None
        lines.append(f"Player {owner + 1}'s grid:")
        lines.extend(_rows(CROWN_SIZE, partial(_crown_mark, received=received, crown=crown)))
    return "\n".join(lines)


def _crown_mark(cell: Cell, received: dict[Cell, bool], crown: Cell | None) -> str:
    if received.get(cell) or cell == crown:
        return CROWN
    return MISS if cell in received else EMPTY


def claim_board(view: ClaimView) -> str:
    """The grid: unclaimed numbers (❔ when hidden), claimed cells in their claimer's colour."""
    owners = view.owners

    def mark(cell: Cell) -> str:
        index = (cell[0] - 1) * view.size + cell[1] - 1
        owner, value = owners[index], view.grid[index]
        if owner is not None:
            return SEAT_SQUARES[owner]
        return HIDDEN if value is None else number(value)

    legend = " · ".join(f"{SEAT_SQUARES[seat]} Player {seat + 1}" for seat in SEATS)
    # Spaced, so numbers beyond 10 (in digits) stay apart.
    return "\n".join([*_rows(view.size, mark, " "), legend])


def crystal_board(view: CrystalView) -> str:
    """The crystals left in the pool, then each player's captures and points."""
    pool = " ".join(number(crystal) for crystal in view.pool) or "empty"
    lines = [f"Pool: {pool}"]
    for seat in SEATS:
        taken = " ".join(number(c.crystal) for c in view.captures if c.seat == seat) or "none"
        lines.append(f"Player {seat + 1}: {taken} ({_points(view.points[seat])})")
    return "\n".join(lines)


def _points(points: int) -> str:
    return f"{points} point{'' if points == 1 else 's'}"


def flag_board(view: FlagView) -> str:
    """The grid: agents, flags, traps that went off, and traps only once revealed at the end."""
    went_off = {t.cell for t in view.triggered}
    revealed: set[Cell] = set()
    if view.result is not None:
        for traps in view.traps:
            revealed.update(traps or ())

    def mark(cell: Cell) -> str:
        for seat in SEATS:
            if view.agents[seat] == cell:
                return AGENTS[seat]
        for seat in SEATS:
            if view.flags[seat] == cell:
                return FLAGS[seat]
        if cell in revealed:
            return TRAP
        return WENT_OFF if cell in went_off else EMPTY

    legend = [f"{AGENTS[seat]}{FLAGS[seat]} Player {seat + 1}" for seat in SEATS]
    if went_off:
        legend.append(f"{WENT_OFF} trap went off")
    if revealed:
        legend.append(f"{TRAP} trap")
    return "\n".join([*_rows(FLAG_SIZE, mark), " · ".join(legend)])


def safe_board(view: SafeView) -> str:
    """Each player's guesses (the latest ``SAFE_ROWS``) with their exact matches."""
    lines = []
    for seat in SEATS:
        records = view.guesses[seat]
        lines.append(f"Player {seat + 1}'s guesses:")
        if not records:
            lines.append("(none yet)")
        elif len(records) > SAFE_ROWS:
            lines.append(f"… {len(records) - SAFE_ROWS} earlier")
        for record in records[-SAFE_ROWS:]:
            digits = "".join(number(d) for d in record.code)
            lines.append(f"{digits} 🎯 {record.exact}/{view.options.length}")
    return "\n".join(lines)


def _rows(size: int, mark: Callable[[Cell], str], gap: str = "") -> list[str]:
    """The grid row by row, each cell drawn by ``mark``, cells separated by ``gap``."""
    return [gap.join(mark((row, col)) for col in range(1, size + 1)) for row in range(1, size + 1)]


_BOARDS: dict[str, Callable[[Any], str]] = {
    "crown": crown_board,
    "claim": claim_board,
    "crystal": crystal_board,
    "flag": flag_board,
    "safe": safe_board,
}
