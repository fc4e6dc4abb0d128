"""Number Claim: players take turns claiming numbers from a shuffled grid; the higher total wins.

Variants (docs/rules.md): ``size: 4`` plays 4x4 with 1-16, where equal totals are a draw;
``hidden: true`` hides every unclaimed number from everyone, so players claim cells, not values.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from games import board
from games.base import (
    JSON,
    SEATS,
    Ask,
    Event,
    Game,
    GameOver,
    IllegalAction,
    InvalidInput,
    InvalidOptions,
    NotYourTurn,
    Outcome,
    Reason,
    Seat,
    evolve,
)
from games.board import Board, Mark
from games.controls import NONE, Control, Controls
from games.ending import dump_outcome, end_event, load_outcome, reveal_event
from games.grid import CELL, cell_text, off_grid_text, on_grid
from games.options import unknown_option
from games.text import end_words, player, quoted
from games.worded import Translated, TranslatedHelp, Worded
from games.words import N_, _

SIZES = (3, 4)

_CELL = re.compile(CELL)
_NUMBER = re.compile(r"\d+")
_COMMAND = re.compile(r"claim\b\s*(.*)")


@dataclass(frozen=True)
class Options:
    """The variant being played."""

    size: int = 3
    hidden: bool = False

    @property
    def cells(self) -> int:
        return self.size * self.size


@dataclass(frozen=True, order=True)
class ClaimNumber:
    """Claim the cell holding ``value`` (open grids only)."""

    value: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, order=True)
class ClaimCell:
    """Claim the number in a cell; the only way to claim when numbers are hidden."""

    row: int
    col: int

    def __str__(self) -> str:
        return f"{self.row} {self.col}"


Action = ClaimNumber | ClaimCell


@dataclass(frozen=True)
class State:
    """The whole truth of a game, hidden numbers included: never shown as is (see ``view``)."""

    seed: int
    options: Options
    grid: tuple[int, ...]
    """The numbers, row by row."""
    claims: tuple[int, ...] = ()
    """Claimed cell indices in the order claimed; seat 0 made the even-numbered claims."""
    result: Outcome | None = None


@dataclass(frozen=True)
class Claimed:
    """One claim, as everyone saw it."""

    seat: Seat
    row: int
    col: int
    value: int


@dataclass(frozen=True)
class View:
    """The grid as ``seat`` (None: the public) sees it: hidden numbers are ``None``."""

    seat: Seat | None
    size: int
    hidden: bool
    grid: tuple[int | None, ...]
    claims: tuple[Claimed, ...]
    to_act: Seat | None
    result: Outcome | None

    @property
    def owners(self) -> tuple[Seat | None, ...]:
        """Who claimed each cell, row by row."""
        owner: list[Seat | None] = [None] * len(self.grid)
        for claim in self.claims:
            owner[_index(self.size, claim.row, claim.col)] = claim.seat
        return tuple(owner)

    @property
    def totals(self) -> tuple[int, int]:
        return _totals(self.claims)


RULES = N_(
    "**Number Claim**\n"
    "A 3x3 grid holds the numbers 1-9 in a random arrangement. Players take turns claiming "
    "one unclaimed number. When all are claimed, the higher total wins.\n"
    "On the plain grid the first player always wins by taking the largest number left each "
    "turn. The variants make it interesting: `size: 4` plays 1-16 on a 4x4 grid (equal totals"
    " are a draw), and `hidden: true` hides the numbers until claimed, so you claim cells, "
    "not values."
)
"""The short rules, as ``/rules`` and ``parlor rules`` show them (Discord markdown)."""


class ClaimGame:
    name = "claim"
    has_secrets = False
    move_command = "pick"

    title = Translated(N_("Number Claim"))
    rules = Translated(RULES)
    commands = TranslatedHelp(
        ("number", N_("claim that number, e.g. 7")),
        ("row column", N_("claim the number in a cell, e.g. 2 3 (only way when hidden)")),
    )

    def new(self, options: Mapping[str, JSON], seed: int) -> State:
        opts = _read_options(options)
        grid = list(range(1, opts.cells + 1))
        random.Random(seed).shuffle(grid)
        return State(seed=seed, options=opts, grid=tuple(grid))

    def options(self, state: State) -> dict[str, JSON]:
        return {"size": state.options.size, "hidden": state.options.hidden}

    def to_act(self, state: State) -> frozenset[Seat]:
        return frozenset() if state.result else frozenset({_turn(state)})

    def ask(self, state: State, seat: Seat) -> Ask:
        return Ask.ACTION

    def legal_actions(self, state: State, seat: Seat) -> Sequence[Action]:
        if state.result or seat != _turn(state):
            return ()
        open_cells = _unclaimed(state)
        if state.options.hidden:
            return tuple(ClaimCell(*_cell(state, i)) for i in open_cells)
        return tuple(sorted(ClaimNumber(state.grid[i]) for i in open_cells))

    def parse(self, state: State, seat: Seat, text: str) -> Action:
        opts = state.options
        typed = text.strip().lower()
        command = _COMMAND.fullmatch(typed)
        body = command.group(1) if command else typed
        if cell := _CELL.fullmatch(body):
            row, col = int(cell.group(1)), int(cell.group(2))
            if not on_grid((row, col), opts.size):
                raise InvalidInput(off_grid_text(quoted(text), opts.size, "2 3"))
            if opts.hidden:
                return ClaimCell(row, col)
            return ClaimNumber(state.grid[_index(opts.size, row, col)])
        if _NUMBER.fullmatch(body):
            if opts.hidden:
                raise InvalidInput(
                    _(
                        "The numbers are hidden in this game, so {text} cannot be claimed: "
                        "claim a cell as 'row col', rows and columns 1-{size}, e.g. '2 3'.",
                        text=quoted(text),
                        size=opts.size,
                    )
                )
            value = int(body)
            if not 1 <= value <= opts.cells:
                raise InvalidInput(
                    _(
                        "{number} is not on the grid: the numbers are 1-{largest}.",
                        number=quoted(text),
                        largest=opts.cells,
                    )
                )
            return ClaimNumber(value)
        if opts.hidden:
            raise InvalidInput(
                _(
                    "{text} cannot be read: claim a cell as 'row col', "
                    "rows and columns 1-{size}, e.g. '2 3'.",
                    text=quoted(text),
                    size=opts.size,
                )
            )
        raise InvalidInput(
            _(
                "{text} cannot be read: claim a number 1-{largest} (e.g. '7') "
                "or the cell holding it as 'row col' (e.g. '2 3').",
                text=quoted(text),
                largest=opts.cells,
            )
        )

    def apply(self, state: State, seat: Seat, action: Action) -> tuple[State, list[Event]]:
        _check_turn(state, seat)
        index = _claimed_cell(state, action)
        claims = (*state.claims, index)
        row, col = _cell(state, index)
        value = state.grid[index]
        total = sum(state.grid[i] for i in claims[seat::2])
        data = {
            "seat": seat,
            "row": row,
            "col": col,
            "value": value,
            "total": total,
            "hidden": state.options.hidden,
        }
        events = [Event("claim", data=data, game=self.name)]
        after = evolve(state, claims=claims)
        if len(claims) < len(state.grid):
            return after, events
        totals = _state_totals(after)
        winner = None if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1)
        return self._finish(after, Outcome(winner, Reason.SCORE), events)

    def outcome(self, state: State) -> Outcome | None:
        return state.result

    def on_deadline(self, state: State, seat: Seat) -> None:
        return None

    def conclude(self, state: State, outcome: Outcome) -> tuple[State, list[Event]]:
        if state.result:
            raise GameOver(_("This game is already over."))
        return self._finish(state, outcome, [])

    def view(self, state: State, viewer: Seat | None) -> View:
        claimed = set(state.claims)
        shown = state.result is not None or not state.options.hidden
        return View(
            seat=viewer,
            size=state.options.size,
            hidden=state.options.hidden,
            grid=tuple(v if shown or i in claimed else None for i, v in enumerate(state.grid)),
            claims=_history(state),
            to_act=None if state.result else _turn(state),
            result=state.result,
        )

    def board(self, view: View) -> Board:
        """The grid: free numbers (hidden ones unknown), claimed ones with their claimer; then
        each player's total."""
        owners = view.owners

        def cell(at: tuple[int, int]) -> board.Cell:
            index = _index(view.size, *at)
            owner, value = owners[index], view.grid[index]
            if owner is not None:
                return board.Cell(Mark.TAKEN, owner, value)
            return (
                board.Cell(Mark.HIDDEN) if value is None else board.Cell(Mark.NUMBER, None, value)
            )

        numbers = board.grid(
            "", view.size, cell, digits=len(str(view.size * view.size)), takeable=True
        )
        totals = board.per_seat(f"{player(seat)}: {view.totals[seat]}" for seat in SEATS)
        return Board((numbers,), (totals,))

    def controls(self, view: View, seat: Seat) -> Controls:
        """The grid: a free number to claim (a cell, when the numbers are hidden), and a
        claimed one disabled."""
        if view.to_act != seat:
            return NONE
        owners = view.owners

        def control(row: int, col: int) -> Control:
            index = _index(view.size, row, col)
            value = view.grid[index]
            if owners[index] is not None:
                return Control(f"{row} {col}", _("{number} · taken", number=value), False)
            if value is None:
                return Control(f"{row} {col}", "?")
            return Control(str(value), str(value))

        lines = range(1, view.size + 1)
        return Controls(tuple(tuple(control(row, col) for col in lines) for row in lines))

    def choices(self, view: View) -> Controls:
        return NONE

    def word(self, action: Action) -> str:
        if isinstance(action, ClaimCell):
            cell = cell_text((action.row, action.col))
            return Worded(lambda: _("claim {cell}", cell=cell))
        return Worded(lambda: _("claim {number}", number=action.value))

    def is_secret(self, text: str) -> bool:
        return False

    def prompt(self, state: State, seat: Seat) -> str:
        if state.options.hidden:
            return Worded(lambda: _("select a cell (row column)"))
        return Worded(lambda: _("select a number"))

    def tell(self, event: Event, names: tuple[str, str]) -> str:
        data, kind = event.data, event.kind
        if kind == "claim":
            shown = {
                "player": names[data["seat"]],
                "cell": cell_text((data["row"], data["col"])),
                "number": data["value"],
                "total": data["total"],
            }
            if data["hidden"]:
                return _("{player} claims {cell}: {number}. Total {total}.", **shown)
            return _("{player} claims {number} at {cell}. Total {total}.", **shown)
        if kind == "end":
            if data["reason"] != Reason.SCORE:
                return end_words(data, names)
            totals = data["totals"]
            high, low = max(totals), min(totals)
            if data["winner"] is None:
                return _("Draw: {high} to {low}.", high=high, low=low)
            return _(
                "{winner} wins: {high} to {low}.", winner=names[data["winner"]], high=high, low=low
            )
        if kind == "reveal":
            shown_grid = " / ".join(" ".join(str(v) for v in row) for row in data["grid"])
            return _("The grid was {grid}.", grid=shown_grid)
        raise KeyError(kind)

    def dump(self, state: State) -> dict[str, JSON]:
        return {
            "seed": state.seed,
            "options": self.options(state),
            "grid": list(state.grid),
            "claims": list(state.claims),
            "result": dump_outcome(state.result),
        }

    def load(self, data: Mapping[str, JSON]) -> State:
        return State(
            seed=data["seed"],
            options=_read_options(data["options"]),
            grid=tuple(data["grid"]),
            claims=tuple(data["claims"]),
            result=load_outcome(data["result"]),
        )

    def _finish(
        self, state: State, outcome: Outcome, events: list[Event]
    ) -> tuple[State, list[Event]]:
        """End the game: the result, an "end" event and, when numbers were hidden, the grid."""
        ended = evolve(state, result=outcome)
        totals = _state_totals(ended)
        events.append(end_event(self.name, outcome, totals=list(totals)))
        if state.options.hidden:
            size = state.options.size
            rows = [list(state.grid[r * size : (r + 1) * size]) for r in range(size)]
            events.append(reveal_event(self.name, grid=rows))
        return ended, events


GAME: Game[State, Action, View] = ClaimGame()


def new_with_grid(
    grid: Sequence[Sequence[int]], options: Mapping[str, JSON] | None = None, seed: int = 0
) -> State:
    """A new game on a given arrangement (e.g. a rule book's example) instead of a shuffled one.

    ``grid`` lists the rows; it must hold 1 to size² once each, size being the ``size`` option.
    """
    opts = _read_options(options or {})
    cells = tuple(value for row in grid for value in row)
    if len(grid) != opts.size or any(len(row) != opts.size for row in grid):
        raise InvalidOptions(_("The grid must have {size} rows of {size} numbers.", size=opts.size))
    if sorted(cells) != list(range(1, opts.cells + 1)):
        raise InvalidOptions(
            _("The grid must hold each number 1-{largest} exactly once.", largest=opts.cells)
        )
    return State(seed=seed, options=opts, grid=cells)


def _read_options(raw: Mapping[str, JSON]) -> Options:
    """Validated options with defaults filled in. Raises ``InvalidOptions``."""
    unknown = unknown_option(raw, {"size", "hidden"})
    if unknown is not None:
        raise InvalidOptions(
            _(
                "Number Claim has no option {option}: its options are "
                "'size' (3 or 4) and 'hidden' (true or false).",
                option=repr(unknown),
            )
        )
    size = raw.get("size", Options.size)
    if type(size) is not int or size not in SIZES:
        raise InvalidOptions(_("The size must be 3 or 4, not {given}.", given=repr(size)))
    hidden = raw.get("hidden", Options.hidden)
    if type(hidden) is not bool:
        raise InvalidOptions(_("'hidden' must be true or false, not {given}.", given=repr(hidden)))
    return Options(size=size, hidden=hidden)


def _turn(state: State) -> Seat:
    return len(state.claims) % 2


def _check_turn(state: State, seat: Seat) -> None:
    if state.result:
        raise GameOver(_("This game is over: nothing more can be claimed."))
    if seat != _turn(state):
        raise NotYourTurn(_("It is not your turn: the other player is to claim."))


def _claimed_cell(state: State, action: Action) -> int:
    """The cell index ``action`` claims. Raises ``IllegalAction`` if it may not be claimed."""
    opts = state.options
    if isinstance(action, ClaimNumber):
        if opts.hidden:
            raise IllegalAction(
                _("The numbers are hidden in this game: claim a cell as 'row col', e.g. '2 3'.")
            )
        if action.value not in state.grid:
            raise IllegalAction(
                _(
                    "{number} is not on the grid: the numbers are 1-{largest}.",
                    number=action.value,
                    largest=opts.cells,
                )
            )
        index = state.grid.index(action.value)
    else:
        if not on_grid((action.row, action.col), opts.size):
            raise IllegalAction(off_grid_text(cell_text((action.row, action.col)), opts.size))
        index = _index(opts.size, action.row, action.col)
    if index in state.claims:
        if opts.hidden:
            free = ", ".join(_where(state, i) for i in _unclaimed(state))
            raise IllegalAction(
                _(
                    "{cell} is already claimed; unclaimed cells: {free}.",
                    cell=_where(state, index),
                    free=free,
                )
            )
        free = ", ".join(str(v) for v in sorted(state.grid[i] for i in _unclaimed(state)))
        raise IllegalAction(
            _(
                "{number} is already claimed; unclaimed numbers: {free}.",
                number=state.grid[index],
                free=free,
            )
        )
    return index


def _unclaimed(state: State) -> list[int]:
    taken = set(state.claims)
    return [i for i in range(len(state.grid)) if i not in taken]


def _index(size: int, row: int, col: int) -> int:
    """Where cell (row, col), both counted from 1, is in a grid listed row by row."""
    return (row - 1) * size + col - 1


def _cell(state: State, index: int) -> tuple[int, int]:
    """The (row, col) of a cell index, both counted from 1."""
    row, col = divmod(index, state.options.size)
    return row + 1, col + 1


def _where(state: State, index: int) -> str:
    return cell_text(_cell(state, index))


def _history(state: State) -> tuple[Claimed, ...]:
    return tuple(
        Claimed(n % 2, *_cell(state, index), state.grid[index])
        for n, index in enumerate(state.claims)
    )


def _totals(claims: Sequence[Claimed]) -> tuple[int, int]:
    return (
        sum(c.value for c in claims if c.seat == 0),
        sum(c.value for c in claims if c.seat == 1),
    )


def _state_totals(state: State) -> tuple[int, int]:
    return _totals(_history(state))
