"""A game's neutral board (``games.board``) as the replay page draws it: each cell's text, its
spoken label and its CSS class, so the template only lays the grids out."""

from __future__ import annotations

from dataclasses import dataclass

from games.board import MEANINGS, SEAT_MARKS, Board, Cell, Mark, meaning
from games.words import N_, _

SYMBOLS: dict[Mark, str] = {
    Mark.EMPTY: "",
    Mark.HIDDEN: "?",
    Mark.MISS: "·",
    Mark.HIT: "✕",
    Mark.CROWN: "♛",
    Mark.RULED_OUT: "\u2013",  # an en dash
    Mark.AGENT: "●",
    Mark.FLAG: "⚑",
    Mark.TRAP: "▲",
    Mark.SPRUNG: "✸",
}
"""What a cell without a value shows; its label says it in words."""

WORDS: dict[Mark, str] = {
    **MEANINGS,
    Mark.EMPTY: N_("empty"),
    Mark.AGENT: N_("agent"),
    Mark.FLAG: N_("flag"),
    Mark.TAKEN: N_("taken"),
    Mark.NUMBER: N_("free"),
}


@dataclass(frozen=True)
class Shown:
    text: str
    label: str
    css: str


@dataclass(frozen=True)
class ShownGrid:
    title: str
    rows: list[list[Shown]]
    notes: list[str]
    coordinates: bool


@dataclass(frozen=True)
class ShownBoard:
    grids: list[ShownGrid]
    key: list[tuple[str, str]]
    lines: list[str]


def shown(board: Board, names: tuple[str, str]) -> ShownBoard:
    """The board with the players' names filled in."""

    def named(text: str) -> str:
        return text.format(p0=names[0], p1=names[1])

    grids = [
        ShownGrid(
            named(grid.title),
            [[_cell(cell, names) for cell in row] for row in grid.rows],
            [named(grid.note(i)) for i in range(len(grid.rows))],
            grid.coordinates,
        )
        for grid in board.grids
    ]
    key = [(SYMBOLS[mark], meaning(mark)) for mark in board.keyed_marks()]
    return ShownBoard(grids, key, [named(line) for line in board.lines])


def _cell(cell: Cell, names: tuple[str, str]) -> Shown:
    owner = "" if cell.seat is None else names[cell.seat]
    text = str(cell.value) if cell.mark in (Mark.NUMBER, Mark.TAKEN) else SYMBOLS[cell.mark]
    label = _(WORDS[cell.mark]) if cell.mark in WORDS else cell.mark.value
    if cell.value is not None and cell.mark is not Mark.NUMBER:
        label = f"{cell.value}, {label}"
    elif cell.mark is Mark.NUMBER:
        label = str(cell.value)
    if owner and (cell.mark in SEAT_MARKS or cell.mark is Mark.TRAP):
        label += f" ({owner})"
    seat = "" if cell.seat is None else f" seat{cell.seat}"
    return Shown(text, label, f"mark-{cell.mark.value}{seat}")
