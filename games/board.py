"""A board as every screen draws it: titled grids of marked cells, and a few lines of text.

Each game says once, in ``Game.board(view)``, what its board shows; the terminal turns marks into
letters, Discord into emoji, and ``text`` into the plain text the rule book prints. A board is
drawn from a view, so it holds only what the view's viewer may see: a secret absent from the
view cannot be drawn.

Texts (grid titles, lines) name players through ``{p0}`` and ``{p1}``, like event texts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum

from games.words import N_, _

Seat = int
"""A seat, 0 or 1 (``games.base.Seat``, which imports this module for its protocol)."""


class Mark(StrEnum):
    """What a cell shows, from a vocabulary every game shares and every screen knows."""

    EMPTY = "empty"
    """Nothing known there."""
    NUMBER = "number"
    """A value still free to take (its ``value``)."""
    HIDDEN = "hidden"
    """A value there that the viewer may not see yet."""
    TAKEN = "taken"
    """A value taken by the cell's ``seat``."""
    MISS = "miss"
    """An attack that found nothing."""
    HIT = "hit"
    """An attack that captured what was hidden there."""
    CROWN = "crown"
    """A Crown the viewer may see."""
    RULED_OUT = "ruled_out"
    """Hints given so far say the hidden thing cannot be here."""
    AGENT = "agent"
    """The ``seat``'s piece."""
    FLAG = "flag"
    """The ``seat``'s flag."""
    TRAP = "trap"
    """A hidden trap the viewer may see: the ``seat``'s, or both players' when ``seat`` is None."""
    SPRUNG = "sprung"
    """A trap that went off there."""


MEANINGS: dict[Mark, str] = {
    Mark.HIDDEN: N_("hidden"),
    Mark.MISS: N_("miss"),
    Mark.HIT: N_("captured"),
    Mark.CROWN: N_("Crown"),
    Mark.RULED_OUT: N_("ruled out by hints"),
    Mark.TRAP: N_("trap"),
    Mark.SPRUNG: N_("trap went off"),
}
"""What a mark means, for a board's key (translated where shown: ``meaning``). Marks left out
need no key: an empty cell, a value, and the seat marks, which the key gives by player
instead."""


def meaning(mark: Mark) -> str:
    """What ``mark`` means, in the reader's language."""
    return _(MEANINGS[mark])


SEAT_MARKS = frozenset({Mark.TAKEN, Mark.AGENT, Mark.FLAG})
"""Marks drawn in their seat's colour: a key names the player beside them."""


@dataclass(frozen=True)
class Cell:
    """One cell: its mark, whose it is (seat marks, traps) and the value it shows, if any."""

    mark: Mark = Mark.EMPTY
    seat: Seat | None = None
    value: int | None = None


EMPTY = Cell()

Row = tuple[Cell, ...]

NONE_YET = N_("(none yet)")
"""What a grid without rows (a list of guesses, say) shows (translated where shown)."""


@dataclass(frozen=True)
class Grid:
    """Rows of cells under a title.

    ``coordinates``: players name cells as ``row col``, so screens number rows and columns.
    ``digits``: the most digits a value in this grid may have, and ``takeable``: players take
    its values, so a grid keeps its shape as values are taken. ``notes``: text after each row
    (empty, or one per row).
    """

    title: str
    rows: tuple[Row, ...]
    coordinates: bool = True
    digits: int = 1
    takeable: bool = False
    notes: tuple[str, ...] = ()

    def note(self, index: int) -> str:
        return self.notes[index] if index < len(self.notes) else ""

    @property
    def cells(self) -> Iterator[Cell]:
        return (cell for row in self.rows for cell in row)


@dataclass(frozen=True)
class Board:
    """What a board shows: its grids, then lines of text (totals, scores, one's own secrets)."""

    grids: tuple[Grid, ...] = ()
    lines: tuple[str, ...] = ()

    @property
    def cells(self) -> Iterator[Cell]:
        return (cell for grid in self.grids for cell in grid.cells)

    def marks(self) -> set[Mark]:
        return {cell.mark for cell in self.cells}

    def seat_marks(self, seat: Seat) -> list[Mark]:
        """The seat-coloured marks the board draws for ``seat``, in vocabulary order."""
        used = {cell.mark for cell in self.cells if cell.mark in SEAT_MARKS and cell.seat == seat}
        return [mark for mark in Mark if mark in used]

    def keyed_marks(self) -> list[Mark]:
        """The marks the board uses that its key explains, in vocabulary order."""
        used = self.marks()
        return [mark for mark in MEANINGS if mark in used]


def grid(
    title: str,
    size: int,
    cell: Callable[[tuple[int, int]], Cell],
    *,
    digits: int = 1,
    takeable: bool = False,
) -> Grid:
    """A square grid with coordinates, each cell as ``cell((row, col))`` says."""
    return Grid(
        title,
        tuple(tuple(cell((row, col)) for col in range(1, size + 1)) for row in range(1, size + 1)),
        digits=digits,
        takeable=takeable,
    )


def whose(seat: Seat, viewer: Seat | None, yours: str, theirs: str) -> str:
    """How a title names an owner: ``yours`` (``_("Your Crown")``) for the viewer's own, else
    ``theirs`` (``_("{player}'s Crown", ...)``) with ``{player}`` as ``{p0}`` or ``{p1}``, which
    the screen fills with the name."""
    return _(yours) if seat == viewer else _(theirs, player="{p" + str(seat) + "}")


# --- plain text ------------------------------------------------------------------------------

LETTERS: dict[Mark, str] = {
    Mark.EMPTY: " ",
    Mark.HIDDEN: "?",
    Mark.MISS: "x",
    Mark.HIT: "X",
    Mark.CROWN: "C",
    Mark.RULED_OUT: "-",
    Mark.AGENT: "A",
    Mark.FLAG: "F",
    Mark.TRAP: "T",
    Mark.SPRUNG: "*",
}
"""The plain-text letter of each mark; seat marks add the seat's number (``A1``, ``F2``)."""


def cell_text(cell: Cell) -> str:
    """A cell in plain text: its value (with ``P1``/``P2`` when taken), else its letter."""
    seat = "" if cell.seat is None else str(cell.seat + 1)
    if cell.mark is Mark.TAKEN:
        return f"{cell.value} P{seat}"
    if cell.mark is Mark.NUMBER:
        return str(cell.value)
    if cell.mark is Mark.TRAP and cell.seat is None:
        return "TT"
    return LETTERS[cell.mark] + (seat if cell.mark in SEAT_MARKS or cell.mark is Mark.TRAP else "")


def text(board: Board, names: tuple[str, str] = ("Player 1", "Player 2")) -> str:
    """The board as the rule book prints it: each grid with bracketed cells of one width, a key
    to the marks it uses, then its lines."""
    lines: list[str] = []
    for shown in board.grids:
        if shown.title:
            lines.append(f"{shown.title}:".format(p0=names[0], p1=names[1]))
        if not shown.rows:
            lines.append(_(NONE_YET))
        width = max((len(cell_text(cell)) for cell in shown.cells), default=1)
        for index, row in enumerate(shown.rows):
            cells = " ".join(f"[{cell_text(cell):^{width}}]" for cell in row)
            note = shown.note(index)
            lines.append(f"{cells}  {note}" if note else cells)
    keyed = [f"{LETTERS[mark]} {meaning(mark)}" for mark in board.keyed_marks()]
    if keyed:
        lines.append(", ".join(keyed))
    lines.extend(line.format(p0=names[0], p1=names[1]) for line in board.lines)
    return "\n".join(lines)


def per_seat(texts: Iterable[str]) -> str:
    """One text per seat, joined: ``{p0}: 9 · {p1}: 1``."""
    return " · ".join(texts)
