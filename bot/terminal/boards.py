"""Text boards for the terminal, drawn from a view: row and column numbers, aligned cells, names.

A board shows what its view holds and nothing more: the public view on a shared screen, a
seat's own view (its Crown, code or traps) on that seat's private screen, everything once the
game is over. Players are named as ``Names`` says, marked on grids by ``Names.tags``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot.terminal.names import Names
from games import grid
from games.base import SEATS, AnyGame, Event, Seat, other
from games.claim import View as ClaimView
from games.crown import SIZE as CROWN_SIZE
from games.crown import AttackRecord, CrownView, consistent_cells
from games.crystal import CRYSTALS, TARGET
from games.crystal import View as CrystalView
from games.flag import SIZE as FLAG_SIZE
from games.flag import View as FlagView
from games.grid import Cell, cell_text, cells_text
from games.safe import SafeView, code_text, feedback_text
from games.text import player

Lines = list[str]

GAP = "    "
"""Between two grids drawn side by side."""


def board(game: AnyGame, view: Any, names: Names) -> str:
    """``game``'s board drawn from ``view``; the game's own description for a game without one."""
    draw = _BOARDS.get(game.name)
    return game.describe(view) if draw is None else "\n".join(draw(view, names))


# --- drawing --------------------------------------------------------------------------------


def grid_lines(size: int, mark: Callable[[Cell], str], *, widest: int = 1) -> Lines:
    """The grid with column numbers above and row numbers on the left, every cell as wide.

    Cells fit the longest mark, and at least ``widest`` characters, so that a board keeps its
    shape as marks come and go.

    ::

            1   2   3
          +---+---+---+
        1 | C | x |   |
    """
    marks = {cell: mark(cell) for cell in grid.cells(size)}
    width = max(widest, *(len(text) for text in marks.values())) + 2
    label = len(str(size))
    columns = range(1, size + 1)
    header = " " * (label + 2) + " ".join(f"{col:^{width}}" for col in columns)
    rule = " " * (label + 1) + "+" + "+".join("-" * width for _ in columns) + "+"
    rows = [
        f"{row:>{label}} |" + "|".join(f"{marks[(row, col)]:^{width}}" for col in columns) + "|"
        for row in columns
    ]
    return [header.rstrip(), rule, *rows, rule]


def beside(left: Lines, right: Lines) -> Lines:
    """Two blocks of lines side by side, the left one padded to one width."""
    width = max(len(line) for line in left)
    height = max(len(left), len(right))
    padded = [*left, *[""] * (height - len(left))], [*right, *[""] * (height - len(right))]
    return [f"{a:<{width}}{GAP}{b}".rstrip() for a, b in zip(*padded, strict=True)]


def _said(names: Names, text: str) -> str:
    """An engine-style sentence (players as ``{p0}``/``{p1}``) with the players' names."""
    return names.render(Event("board", text))


def _plural(count: int, word: str, words: str) -> str:
    return f"{count} {word if count == 1 else words}"


# --- Capture the Crown ----------------------------------------------------------------------


def crown_board(view: CrownView, names: Names) -> Lines:
    """Both grids, the viewer's first: Crowns the view holds, attacks, cells hints rule out."""
    viewer = view.seat
    owners = SEATS if viewer is None else (viewer, other(viewer))
    blocks = [[f"{names.whose(owner, viewer)} grid", *_crown_grid(view, owner)] for owner in owners]
    lines = beside(blocks[0], blocks[1])
    lines.append("C Crown   x miss   X capture   - ruled out by a hint")
    # Seat 0 attacks first and turns alternate, so the i-th attacks of both came in turn.
    for turn in range(len(view.attacks[0])):
        for attacker in SEATS:
            if turn < len(view.attacks[attacker]):
                lines.append(_said(names, _attack_text(attacker, view.attacks[attacker][turn])))
    return lines


def _crown_grid(view: CrownView, owner: Seat) -> Lines:
    received = view.attacks[other(owner)]
    marks = {record.cell: "X" if record.hit else "x" for record in received}
    crown = view.crowns[owner]
    possible = (
        consistent_cells(received) if view.outcome is None else frozenset(grid.cells(CROWN_SIZE))
    )

    def mark(cell: Cell) -> str:
        if cell in marks:
            return marks[cell]
        if cell == crown:
            return "C"
        return " " if cell in possible else "-"

    return grid_lines(CROWN_SIZE, mark)


def _attack_text(attacker: Seat, record: AttackRecord) -> str:
    text = f"{player(attacker)} attacks {cell_text(record.cell)}: "
    if record.hit:
        return text + "Hit."
    if record.hint is None:
        return text + "Miss."
    return text + f"Miss. {player(other(attacker))}'s hint: the Crown's {record.hint.sentence}."


# --- Number Claim ---------------------------------------------------------------------------


def claim_board(view: ClaimView, names: Names) -> Lines:
    """The grid with every number (``?`` while hidden), each claimed one with its owner's mark."""
    tags = names.tags
    owners = view.owners

    def mark(cell: Cell) -> str:
        index = (cell[0] - 1) * view.size + cell[1] - 1
        value, owner = view.grid[index], owners[index]
        shown = "?" if value is None else str(value)
        return shown if owner is None else f"{shown} {tags[owner]}"

    totals = "   ".join(f"{tags[seat]} {names[seat]}: {view.totals[seat]} points" for seat in SEATS)
    widest = len(f"{view.size * view.size} {tags[0]}")
    return [*grid_lines(view.size, mark, widest=widest), totals]


# --- Crystal Capture ------------------------------------------------------------------------


def crystal_board(view: CrystalView, names: Names) -> Lines:
    """The nine crystals, each taken one with its taker's mark, and both players' points."""
    tags = names.tags
    taker = {capture.crystal: capture.seat for capture in view.captures}
    row = "".join(f"{crystal:>3}" for crystal in CRYSTALS)
    taken = "".join(f"{tags[taker[c]] if c in taker else '.':>3}" for c in CRYSTALS)
    points = "   ".join(f"{tags[seat]} {names[seat]}: {view.points[seat]} points" for seat in SEATS)
    return [
        f"Crystal {row}",
        f"Taken   {taken}",
        f"{points}   (exactly {TARGET} wins)",
    ]


# --- Flag Chase -----------------------------------------------------------------------------


def flag_board(view: FlagView, names: Names) -> Lines:
    """The grid with agents (``A``), flags (``a``) and the traps the view holds (``*A``)."""
    tags = names.tags

    def mark(cell: Cell) -> str:
        for seat in SEATS:
            if view.agents[seat] == cell:
                return tags[seat]
        for seat in SEATS:
            if view.flags[seat] == cell:
                return tags[seat].lower()
        owners = [seat for seat in SEATS if cell in (view.traps[seat] or ())]
        return "".join(f"*{tags[seat]}" for seat in owners)

    lines = grid_lines(FLAG_SIZE, mark, widest=len("*A"))
    for seat in SEATS:
        left = view.traps_left[seat]
        lines.append(
            f"{tags[seat]} {names[seat]}: agent at {cell_text(view.agents[seat])}, "
            f"flag {tags[seat].lower()} at {cell_text(view.flags[seat])}, "
            f"{_plural(left, 'trap', 'traps')} left to place"
        )
    for seat in SEATS:
        traps = view.traps[seat]
        if traps:
            lines.append(f"*{tags[seat]} {names.whose(seat, view.seat)} traps: {cells_text(traps)}")
    if view.triggered:
        sprung = ", ".join(
            f"{cell_text(t.cell)} ({names.whose(t.owner, view.seat)})" for t in view.triggered
        )
        lines.append(f"Traps sprung: {sprung}")
    lines.append(f"Actions: {view.actions} of {view.action_limit}")
    return lines


# --- Safe Cracker ---------------------------------------------------------------------------


def safe_board(view: SafeView, names: Names) -> Lines:
    """The code's shape, the codes the view holds, and both players' guesses side by side."""
    options = view.options
    head = f"Codes are {options.shape}."
    if options.max_guesses is not None:
        head += f" Each player has {_plural(options.max_guesses, 'guess', 'guesses')}."
    lines = [head]
    for seat in SEATS:
        code = view.codes[seat]
        if code is not None:
            lines.append(f"{names.whose(seat, view.seat)} code: {code_text(code)}")
    columns = [
        [f"{names.whose(seat, view.seat)} guesses"]
        + [f"{code_text(r.code)}  {feedback_text(r.exact)}" for r in view.guesses[seat]]
        for seat in SEATS
    ]
    return lines + _numbered(columns)


def _numbered(columns: Sequence[Lines]) -> Lines:
    """Columns of equal rows under their headings, rows numbered from 1; ``-`` for none yet."""
    rows = max(len(column) for column in columns)
    filled = [[*column, *["-"] * (rows - len(column))] for column in columns]
    if rows == 1:
        filled = [[*column, "-"] for column in filled]
        rows = 2
    widths = [max(len(cell) for cell in column) for column in filled]
    label = len(str(rows - 1))
    lines = []
    for index in range(rows):
        number = " " * label if index == 0 else f"{index:>{label}}"
        cells = (f"{column[index]:<{width}}" for column, width in zip(filled, widths, strict=True))
        lines.append(f"{number}  {'   '.join(cells)}".rstrip())
    return lines


_BOARDS: dict[str, Callable[[Any, Names], Lines]] = {
    "crown": crown_board,
    "claim": claim_board,
    "crystal": crystal_board,
    "flag": flag_board,
    "safe": safe_board,
}
"""Board drawers by game short name."""
