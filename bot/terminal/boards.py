"""Text boards for the terminal, drawn from a game's ``Board``: numbered rows and columns, cells
of one width, grids side by side, and a key to the letters the board uses.

A board shows what its view holds and nothing more: the public view on a shared screen, a
seat's own view (its Crown, code or traps) on that seat's private screen, everything once the
game is over. Players are named as ``Names`` says, marked on grids by ``Names.tags``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.terminal.names import Names
from games.base import SEATS, AnyGame
from games.board import LETTERS, NONE_YET, Board, Cell, Grid, Mark, meaning
from games.words import _

Lines = list[str]

GAP = "    "
"""Between two grids drawn side by side."""

WIDTH = 78
"""Columns two grids side by side may take; wider ones are drawn one under the other."""

KEY_GAP = "   "
"""Between the entries of a board's key."""


def board(game: AnyGame, view: Any, names: Names) -> str:
    """``game``'s board as ``view``'s viewer sees it."""
    return "\n".join(draw(game.board(view), names))


def draw(shown: Board, names: Names) -> Lines:
    """The grids (two side by side where they fit), the key, then the board's lines."""
    blocks = [_grid_block(grid, names) for grid in shown.grids]
    lines: Lines = []
    while blocks:
        first = blocks.pop(0)
        if blocks and _width(first) + len(GAP) + _width(blocks[0]) <= WIDTH:
            first = beside(first, blocks.pop(0))
        lines += first
    key = _key(shown, names)
    if key:
        lines.append(key)
    lines += [_fill(line, names) for line in shown.lines]
    return lines


def letters(cell: Cell, names: Names) -> str:
    """A cell in letters: values (with their taker's tag), agents as tags, flags as lower-case
    tags, traps as ``*`` and their owner's tag, other marks as ``games.board.LETTERS``."""
    tags = names.tags
    if cell.mark is Mark.NUMBER:
        return str(cell.value)
    if cell.mark is Mark.TAKEN:
        return f"{cell.value} {tags[cell.seat or 0]}"
    if cell.mark is Mark.AGENT:
        return tags[cell.seat or 0]
    if cell.mark is Mark.FLAG:
        return tags[cell.seat or 0].lower()
    if cell.mark is Mark.TRAP:
        owners = SEATS if cell.seat is None else (cell.seat,)
        return "".join(f"*{tags[seat]}" for seat in owners)
    return LETTERS[cell.mark].strip()


def grid_lines(marks: Sequence[Sequence[str]], *, widest: int = 1) -> Lines:
    """A grid with column numbers above and row numbers on the left, every cell as wide.

    Cells fit the longest mark, and at least ``widest`` characters, so that a board keeps its
    shape as marks come and go.

    ::

            1   2   3
          +---+---+---+
        1 | C | x |   |
    """
    width = max(widest, *(len(text) for row in marks for text in row)) + 2
    label = len(str(len(marks)))
    columns = range(1, len(marks[0]) + 1)
    header = " " * (label + 2) + " ".join(f"{col:^{width}}" for col in columns)
    rule = " " * (label + 1) + "+" + "+".join("-" * width for _ in columns) + "+"
    rows = [
        f"{number:>{label}} |" + "|".join(f"{text:^{width}}" for text in row) + "|"
        for number, row in enumerate(marks, start=1)
    ]
    return [header.rstrip(), rule, *rows, rule]


def beside(left: Lines, right: Lines) -> Lines:
    """Two blocks of lines side by side, the left one padded to one width."""
    width = _width(left)
    height = max(len(left), len(right))
    padded = [*left, *[""] * (height - len(left))], [*right, *[""] * (height - len(right))]
    return [f"{a:<{width}}{GAP}{b}".rstrip() for a, b in zip(*padded, strict=True)]


def _grid_block(grid: Grid, names: Names) -> Lines:
    title = [_fill(grid.title, names)] if grid.title else []
    if not grid.rows:
        return [*title, _(NONE_YET)]
    marks = [[letters(cell, names) for cell in row] for row in grid.rows]
    widest = grid.digits + 2 if grid.takeable else grid.digits
    if grid.coordinates:
        return [*title, *grid_lines(marks, widest=widest)]
    width = max(widest, *(len(text) for row in marks for text in row))
    rows = []
    for index, row in enumerate(marks):
        cells = " ".join(f"{text:<{width}}" for text in row)
        note = grid.note(index)
        rows.append(f"{cells}  {note}" if note else cells.rstrip())
    return [*title, *rows]


def _key(shown: Board, names: Names) -> str:
    """What the letters the board uses mean: each player's tags, then the other marks."""
    entries = []
    for seat in SEATS:
        marks = shown.seat_marks(seat)
        if marks:
            tags = {letters(Cell(mark, seat, 0), names).split()[-1] for mark in marks}
            entries.append(f"{'/'.join(sorted(tags))} {names[seat]}")
    for mark in shown.keyed_marks():
        entries.append(f"{'*' if mark is Mark.TRAP else LETTERS[mark]} {meaning(mark)}")
    return KEY_GAP.join(entries)


def _fill(text: str, names: Names) -> str:
    return text.format(p0=names[0], p1=names[1])


def _width(lines: Lines) -> int:
    return max((len(line) for line in lines), default=0)
