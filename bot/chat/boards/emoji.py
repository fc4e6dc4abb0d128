"""A game's board (``games.board``) in emoji, and how wide a line of it shows on a phone.

Every game's board is drawn here from the one ``Board`` its engine makes: each mark has its
emoji, seat marks take the seat's colour, and values are keycap digits, padded to the grid's
widest so that every row of a grid is as wide as the others. A key follows the grids, naming
only the marks and colours the board uses.

Widths are counted as Discord shows a line: an emoji (keycaps too) takes two columns, other
characters one, ``**`` none, and a mention ``<@id>`` ``MENTION_WIDTH`` columns: Discord shows
it as ``@`` and the member's name, which the board does not know; long-ish names are assumed.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

from games.base import SEATS
from games.board import NONE_YET, Board, Cell, Grid, Mark, meaning
from games.words import _

EMOJI: dict[Mark, str] = {
    Mark.EMPTY: "⬜",
    Mark.HIDDEN: "❔",
    Mark.MISS: "❌",
    Mark.HIT: "💥",
    Mark.CROWN: "👑",
    Mark.RULED_OUT: "⬛",
    Mark.TRAP: "🪤",
    Mark.SPRUNG: "💥",
}
SEAT_EMOJI: dict[Mark, tuple[str, str]] = {
    Mark.TAKEN: ("🟦", "🟥"),
    Mark.AGENT: ("🔵", "🔴"),
    Mark.FLAG: ("🚩", "🏁"),
}
"""Seat marks by seat: seat 0 blue, seat 1 red."""

MAX_ROWS = 10
"""Rows shown of a list-like grid (no coordinates): the latest, so a long Safe Cracker game
stays well under Discord's limits."""

PHONE_COLUMNS = 40
"""Columns a board line may take before a phone would wrap it."""

MENTION_WIDTH = 13
"""Columns a mention is counted as: ``@`` and a 12-character name."""

_KEYCAP = "\ufe0f\u20e3"
_ZERO_WIDTH = frozenset("\ufe0f\u200d\u20e3")
_MENTION = re.compile(r"<@!?\d+>")


def number(value: int, digits: int = 1) -> str:
    """``value`` in keycap digits, zero-padded to ``digits``: ``0️⃣9️⃣`` in a grid up to 16."""
    return "".join(f"{digit}{_KEYCAP}" for digit in f"{value:0{digits}d}")


def _symbol(cell: Cell) -> str:
    if cell.mark in SEAT_EMOJI:
        return SEAT_EMOJI[cell.mark][cell.seat or 0]
    if cell.mark is Mark.NUMBER:
        return EMOJI[Mark.EMPTY]
    return EMOJI[cell.mark]


def cell_emoji(cell: Cell, grid: Grid, squares: bool) -> str:
    """One cell: its mark's emoji, then its value in keycaps when it has a value.

    ``squares``: the grid's values stand beside a square (its taker's colour, else white), so
    that taken and free values are as wide.
    """
    if cell.mark in (Mark.NUMBER, Mark.TAKEN):
        assert cell.value is not None, "a number or a taken cell has its value"
        digits = number(cell.value, grid.digits)
        return f"{_symbol(cell)}{digits}" if squares else digits
    if cell.mark is Mark.HIDDEN and squares:
        return EMOJI[Mark.EMPTY] + EMOJI[Mark.HIDDEN] * grid.digits
    return _symbol(cell)


def grid_lines(grid: Grid, names: tuple[str, str]) -> list[str]:
    """A grid: its title, then its rows (the latest ``MAX_ROWS`` of a list), each with its note."""
    lines = [f"{fill(grid.title, names)}:"] if grid.title else []
    if not grid.rows:
        return [*lines, _(NONE_YET)]
    squares = grid.takeable
    gap = " " if squares else ""
    first = 0 if grid.coordinates else max(0, len(grid.rows) - MAX_ROWS)
    if first:
        lines.append(_("… {n} earlier", n=first))
    for index in range(first, len(grid.rows)):
        row = gap.join(cell_emoji(cell, grid, squares) for cell in grid.rows[index])
        note = grid.note(index)
        lines.append(f"{row} {note}" if note else row)
    return lines


def key(board: Board, names: tuple[str, str]) -> list[str]:
    """What the colours and marks the board uses mean, wrapped to a phone's width: each
    player's colours beside their name, then the marks (none for a board that needs none)."""
    entries = []
    for seat in SEATS:
        marks = board.seat_marks(seat)
        if marks:
            entries.append("".join(SEAT_EMOJI[mark][seat] for mark in marks) + f" {names[seat]}")
    entries += [f"{EMOJI[mark]} {meaning(mark)}" for mark in board.keyed_marks()]
    return joined(entries, " · ")


def draw(board: Board, names: tuple[str, str]) -> str:
    """The whole board: its grids, its lines, then its key."""
    lines = [line for grid in board.grids for line in grid_lines(grid, names)]
    lines += [fill(line, names) for line in board.lines]
    lines += key(board, names)
    return "\n".join(lines)


def fill(text: str, names: tuple[str, str]) -> str:
    """``text`` with the players' names for ``{p0}`` and ``{p1}``."""
    return text.format(p0=names[0], p1=names[1])


# --- widths -----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def width(text: str) -> int:
    """The columns ``text`` takes as Discord shows it (see the module's docstring). Kept for
    the texts seen last: a board's rows, names and words come back with every update."""
    text = _MENTION.sub("@" + "x" * (MENTION_WIDTH - 1), text).replace("**", "")
    columns = 0
    for index, char in enumerate(text):
        if char in _ZERO_WIDTH:
            continue
        if text.startswith(_KEYCAP, index + 1) or unicodedata.east_asian_width(char) in "WF":
            columns += 2
        else:
            columns += 1
    return columns


def wrap(text: str, columns: int = PHONE_COLUMNS, indent: str = "") -> list[str]:
    """``text`` broken at spaces into lines of at most ``columns`` (a longer word stands alone);
    lines after the first start with ``indent``.

    A line's width is the sum of its words' and its spaces' (no mark, mention or emoji spans a
    space), so each word is measured once, not each line again as it grows."""
    lines: list[str] = []
    line, used = "", 0
    for word in text.split(" "):
        size = width(word)
        if line and used + 1 + size > columns:
            lines.append(line)
            line, used = indent + word, width(indent) + size
        elif line:
            line, used = f"{line} {word}", used + 1 + size
        else:
            line, used = word, size
    lines.append(line)
    return lines


def joined(entries: Iterable[str], separator: str, columns: int = PHONE_COLUMNS) -> list[str]:
    """``entries`` joined by ``separator`` into lines of at most ``columns``, never splitting
    an entry (widths summed, as ``wrap``'s)."""
    lines: list[str] = []
    used = 0
    gap = width(separator)
    for entry in entries:
        size = width(entry)
        if lines and used + gap + size <= columns:
            lines[-1] += separator + entry
            used += gap + size
        else:
            lines.append(entry)
            used = size
    return lines
