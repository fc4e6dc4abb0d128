"""Square grids: cells, how players type them, how the rule book writes them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

from games.base import JSON
from games.words import _

Cell: TypeAlias = tuple[int, int]
"""(row, column), each counted from 1."""

CELL = r"\(?\s*(\d+)\s*[\s,-]\s*(\d+)\s*\)?"
"""A cell as players type it: ``2 3``, ``2,3``, ``2-3`` or ``(2,3)``; groups: row, column.

A pattern to build on (a game adds its verbs), matched against stripped, lower-case text.
"""


def cells(size: int) -> tuple[Cell, ...]:
    """Every cell of a ``size`` x ``size`` grid, row by row."""
    return tuple((row, col) for row in range(1, size + 1) for col in range(1, size + 1))


def on_grid(cell: Cell, size: int) -> bool:
    """Whether both of ``cell``'s coordinates are 1 to ``size``."""
    return 1 <= cell[0] <= size and 1 <= cell[1] <= size


def cell_text(cell: Cell) -> str:
    """The cell as the rule book writes it: ``(2,3)``."""
    return f"({cell[0]},{cell[1]})"


def cells_text(cells: Iterable[Cell]) -> str:
    """Cells as the rule book lists them: ``(1,1), (2,3)``."""
    return ", ".join(map(cell_text, cells))


def off_grid_text(shown: str, size: int, example: str | None = None) -> str:
    """The refusal of a cell (or input) ``shown`` outside the grid, in the reader's language,
    with an ``example`` of what to type when given: ``'4 1' is off the grid: rows and columns
    are 1-3, e.g. '2 3'.``"""
    if example is None:
        return _("{shown} is off the grid: rows and columns are 1-{size}.", shown=shown, size=size)
    return _(
        "{shown} is off the grid: rows and columns are 1-{size}, e.g. '{example}'.",
        shown=shown,
        size=size,
        example=example,
    )


def load_cell(data: JSON) -> Cell:
    """The cell stored as ``[row, column]``."""
    row, col = data
    return (int(row), int(col))
