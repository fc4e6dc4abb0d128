"""Flag Chase: move your agent onto the opponent's flag on a 5x5 grid, around hidden traps.

A turn is one action: move the agent to an adjacent cell, or place one of two traps in secret.
Stepping on an opponent's trap reveals and removes it and sends the agent home. Where traps
lie is the secret: it never reaches the opponent, the public, or an error message, and the
rules the opponent meets (which moves are legal) never depend on it (docs/rules.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeAlias

from games import board, grid
from games.base import (
    JSON,
    SEATS,
    Ask,
    Event,
    Game,
    GameOver,
    IllegalAction,
    InvalidInput,
    NotYourTurn,
    Outcome,
    Reason,
    Seat,
    SecretRefusal,
    evolve,
    other,
)
from games.board import Board, Mark
from games.controls import NONE, Control, Controls
from games.ending import dump_outcome, end_event, load_outcome, reveal_event
from games.grid import CELL, cell_text, cells_text, load_cell, off_grid_text
from games.options import check_no_options
from games.seats import seen_by, with_seat
from games.text import end_words, joined_facts, player, quoted
from games.worded import Translated, TranslatedHelp, Worded
from games.words import N_, _, n_

SIZE = 5
TRAPS = 2
"""Traps each player may place per match."""
ACTION_LIMIT = 200
"""Actions (moves and trap placements) after which the game is a draw."""

Cell: TypeAlias = grid.Cell
"""(row, col), both 1-5."""

FLAGS: tuple[Cell, Cell] = ((1, 1), (SIZE, SIZE))
"""Each seat's flag, where its agent starts and returns to."""

_ACTION = re.compile(rf"(?:(move|trap)\b\s*)?{CELL}")

ARROWS = {
    (-1, -1): "↖",
    (-1, 0): "↑",
    (-1, 1): "↗",
    (0, -1): "←",
    (0, 1): "→",
    (1, -1): "↙",
    (1, 0): "↓",
    (1, 1): "↘",
}
"""The step from the agent each arrow shows, as (rows, columns)."""


@dataclass(frozen=True)
class Options:
    """Flag Chase has no options; the type keeps every game's shape alike."""


@dataclass(frozen=True)
class _CellAction:
    """An action on one cell. Moves sort before traps, then by cell."""

    verb: ClassVar[str]
    row: int
    col: int

    def __str__(self) -> str:
        return f"{self.verb} {self.row} {self.col}"

    def __lt__(self, other: _CellAction) -> bool:
        return (self.verb, self.row, self.col) < (other.verb, other.row, other.col)


@dataclass(frozen=True)
class Move(_CellAction):
    """Move the agent to an adjacent cell."""

    verb = "MOVE"


@dataclass(frozen=True)
class Trap(_CellAction):
    """Place a trap, hidden from the opponent."""

    verb = "TRAP"


Action = Move | Trap


@dataclass(frozen=True)
class Triggered:
    """A trap that went off: whose it was and where (public once it happens)."""

    owner: Seat
    cell: Cell


@dataclass(frozen=True)
class State:
    """The whole truth of a game, traps included: never shown as is (see ``view``)."""

    seed: int
    agents: tuple[Cell, Cell] = FLAGS
    traps: tuple[tuple[Cell, ...], tuple[Cell, ...]] = ((), ())
    """Each seat's traps still in play, sorted."""
    triggered: tuple[Triggered, ...] = ()
    turn: Seat = 0
    """The seat to act; kept as it was once the game is over."""
    actions: int = 0
    """Moves and trap placements so far; passes do not count."""
    result: Outcome | None = None
    options: Options = Options()

    def traps_left(self, seat: Seat) -> int:
        """Traps ``seat`` has not placed yet."""
        went_off = sum(1 for t in self.triggered if t.owner == seat)
        return TRAPS - len(self.traps[seat]) - went_off


@dataclass(frozen=True)
class View:
    """What ``seat`` (None: the public) knows. ``traps[s]`` is ``None`` where hidden from it."""

    seat: Seat | None
    agents: tuple[Cell, Cell]
    flags: tuple[Cell, Cell]
    traps: tuple[tuple[Cell, ...] | None, tuple[Cell, ...] | None]
    traps_left: tuple[int, int]
    triggered: tuple[Triggered, ...]
    actions: int
    action_limit: int
    to_act: Seat | None
    result: Outcome | None


RULES = N_(
    "**Flag Chase**\n"
    "A 5x5 grid; the first player's flag and agent start at (1,1), the second's at (5,5). On "
    "your turn do exactly one thing:\n"
    "• **Move** your agent to one of the 8 cells around it: not off the grid, not onto the "
    "other agent. Your own traps go off for the other player only: you may step over them.\n"
    "• **Place a trap** in secret: at most 2 per match, not on a flag or an agent.\n"
    "Stepping on the other player's trap reveals it and sends your agent home. Reaching the "
    "other flag wins. After 200 actions the match is a draw."
)
"""The short rules, as ``/rules`` and ``parlor rules`` show them (Discord markdown)."""


class FlagGame:
    name = "flag"
    has_secrets = True
    """Traps are secret, but placed during play: there is no setup phase."""
    move_command = "move"

    title = Translated(N_("Flag Chase"))
    rules = Translated(RULES)
    commands = TranslatedHelp(
        ("MOVE row column", N_("move your agent next door, e.g. MOVE 2 2")),
        ("TRAP", N_("hide a trap: the cell is then asked unseen")),
    )

    def new(self, options: Mapping[str, JSON], seed: int) -> State:
        check_no_options(
            options,
            self.title,
            _("the grid is always 5x5 with {traps} traps each", traps=TRAPS),
        )
        return State(seed=seed)

    def options(self, state: State) -> dict[str, JSON]:
        return {}

    def to_act(self, state: State) -> frozenset[Seat]:
        return frozenset() if state.result else frozenset({state.turn})

    def ask(self, state: State, seat: Seat) -> Ask:
        return Ask.ACTION

    def legal_actions(self, state: State, seat: Seat) -> Sequence[Action]:
        if state.result or seat != state.turn:
            return ()
        return _legal(state, seat)

    def parse(self, state: State, seat: Seat, text: str) -> Action:
        read = _ACTION.fullmatch(text.strip().lower())
        if read is None:
            raise InvalidInput(
                _(
                    "{text} cannot be read: type 'MOVE r c' or 'TRAP r c' with rows and "
                    "columns 1-{size}, e.g. 'MOVE 2 2'.",
                    text=quoted(text),
                    size=SIZE,
                )
            )
        verb, row, col = read.group(1), int(read.group(2)), int(read.group(3))
        if not grid.on_grid((row, col), SIZE):
            raise InvalidInput(off_grid_text(quoted(text), SIZE, "MOVE 2 2"))
        return Trap(row, col) if verb == "trap" else Move(row, col)

    def apply(self, state: State, seat: Seat, action: Action) -> tuple[State, list[Event]]:
        if state.result:
            raise GameOver(_("This game is over: nothing more can be played."))
        if seat != state.turn:
            raise NotYourTurn(_("It is not your turn: the other player is to act."))
        cell = (action.row, action.col)
        if isinstance(action, Move):
            _check_move(state, seat, cell)
            after, events = _move(state, seat, cell)
        else:
            _check_trap(state, seat, cell)
            after, events = _place_trap(state, seat, cell)
        after = evolve(after, actions=state.actions + 1)
        if after.agents[seat] == FLAGS[other(seat)]:
            return _finish(after, Outcome(seat, Reason.CAPTURE), events)
        if after.actions >= ACTION_LIMIT:
            return _finish(after, Outcome(None, Reason.MOVE_LIMIT), events)
        # The opponent always has a move (docs/rules.md): no turn is ever passed, so no pass
        # can tell where the passing player's traps are.
        return evolve(after, turn=other(seat)), events

    def outcome(self, state: State) -> Outcome | None:
        return state.result

    def on_deadline(self, state: State, seat: Seat) -> None:
        return None

    def conclude(self, state: State, outcome: Outcome) -> tuple[State, list[Event]]:
        if state.result:
            raise GameOver(_("This game is already over."))
        return _finish(state, outcome, [])

    def view(self, state: State, viewer: Seat | None) -> View:
        over = state.result is not None
        return View(
            seat=viewer,
            agents=state.agents,
            flags=FLAGS,
            traps=seen_by(state.traps, viewer, over),
            traps_left=(state.traps_left(0), state.traps_left(1)),
            triggered=state.triggered,
            actions=state.actions,
            action_limit=ACTION_LIMIT,
            to_act=None if over else state.turn,
            result=state.result,
        )

    def board(self, view: View) -> Board:
        """The grid: agents, flags, traps that went off, and the traps the view holds; then
        traps left to place, the viewer's own traps, and the actions played."""
        went_off = {t.cell for t in view.triggered}

        def cell(at: Cell) -> board.Cell:
            for seat in SEATS:
                if view.agents[seat] == at:
                    return board.Cell(Mark.AGENT, seat)
            for seat in SEATS:
                if view.flags[seat] == at:
                    return board.Cell(Mark.FLAG, seat)
            owners = [seat for seat in SEATS if at in (view.traps[seat] or ())]
            if owners:
                return board.Cell(Mark.TRAP, owners[0] if len(owners) == 1 else None)
            return board.Cell(Mark.SPRUNG) if at in went_off else board.EMPTY

        lines = [
            n_(
                "{player}: {n} trap left",
                "{player}: {n} traps left",
                view.traps_left[seat],
                player=player(seat),
            )
            for seat in SEATS
        ]
        own = own_traps(view)
        if own is not None:
            lines.append(own)
        lines.append(
            _("Actions: {played} of {limit}", played=view.actions, limit=view.action_limit)
        )
        return Board((board.grid("", SIZE, cell),), tuple(lines))

    def controls(self, view: View, seat: Seat) -> Controls:
        """The 8 steps around the agent, an arrow each, and in the middle the trap, whose cell
        is chosen privately (``choices``).

        Only public facts disable a step (the grid's edge, the other agent): an agent may step
        onto its own traps, so the public's view and the mover's draw the same controls.
        """
        if view.to_act != seat:
            return NONE
        here, there = view.agents[seat], view.agents[other(seat)]
        steps = set(_neighbours(here)) - {there}
        left = view.traps_left[seat]

        def control(d_row: int, d_col: int) -> Control:
            if (d_row, d_col) == (0, 0):
                return Control(Trap.verb, _("Trap ({n} left)", n=left), bool(left), opens=True)
            cell = (here[0] + d_row, here[1] + d_col)
            arrow = ARROWS[(d_row, d_col)]
            label = f"{arrow} {cell[0]},{cell[1]}" if grid.on_grid(cell, SIZE) else arrow
            return Control(str(Move(*cell)), label, cell in steps)

        around = (-1, 0, 1)
        return Controls(tuple(tuple(control(r, c) for c in around) for r in around))

    def choices(self, view: View) -> Controls:
        """The grid to hide a trap on, for the seat to act with a trap left: a flag, an agent
        and one's own trap are disabled and say which (the opponent's traps are no obstacle)."""
        seat = view.seat
        if seat is None or view.to_act != seat or not view.traps_left[seat]:
            return NONE
        own = set(view.traps[seat] or ())

        def control(cell: Cell) -> Control:
            action = str(Trap(*cell))
            if cell in own:
                return Control(action, _("your trap"), False)
            if cell in view.flags:
                return Control(action, _("flag"), False)
            if cell in view.agents:
                return Control(action, _("agent"), False)
            return Control(action, f"{cell[0]},{cell[1]}")

        lines = range(1, SIZE + 1)
        return Controls(tuple(tuple(control((row, col)) for col in lines) for row in lines))

    def word(self, action: Action) -> str:
        cell = cell_text((action.row, action.col))
        if isinstance(action, Trap):
            return Worded(lambda: _("trap at {cell}", cell=cell))
        return Worded(lambda: _("move to {cell}", cell=cell))

    def is_secret(self, text: str) -> bool:
        """A trap: its cell is the secret."""
        words = text.strip().lower().split(maxsplit=1)
        return bool(words) and words[0] == "trap"

    def prompt(self, state: State, seat: Seat) -> str:
        return Worded(lambda: _("enter MOVE row column, or TRAP to hide a trap"))

    def tell(self, event: Event, names: tuple[str, str]) -> str:
        data, kind = event.data, event.kind
        if kind == "move":
            cell = cell_text((data["row"], data["col"]))
            return _("{player} moves to {cell}.", player=names[data["seat"]], cell=cell)
        if kind == "trap_triggered":
            return _(
                "Trap triggered at {cell}! {player}'s agent returns to their flag at {home}.",
                cell=cell_text((data["row"], data["col"])),
                player=names[data["seat"]],
                home=cell_text(FLAGS[data["seat"]]),
            )
        if kind == "trap" and event.audience is not None:
            return _("Trap placed at {cell}.", cell=cell_text((data["row"], data["col"])))
        if kind == "trap":
            return n_(
                "{player} placed a trap ({n} left).",
                "{player} placed a trap ({n} left).",
                data["left"],
                player=names[data["seat"]],
            )
        if kind == "end":
            return _end_words(data, names)
        if kind == "reveal":
            return joined_facts(
                [
                    _(
                        "{player}'s hidden traps: {cells}",
                        player=name,
                        cells=cells_text(load_cell(c) for c in cells) or _("none"),
                    )
                    for name, cells in zip(names, data["traps"], strict=True)
                ]
            )
        raise KeyError(kind)

    def dump(self, state: State) -> dict[str, JSON]:
        return {
            "seed": state.seed,
            "options": {},
            "agents": [list(cell) for cell in state.agents],
            "traps": [[list(cell) for cell in cells] for cells in state.traps],
            "triggered": [{"owner": t.owner, "cell": list(t.cell)} for t in state.triggered],
            "turn": state.turn,
            "actions": state.actions,
            "result": dump_outcome(state.result),
        }

    def load(self, data: Mapping[str, JSON]) -> State:
        agents = [load_cell(cell) for cell in data["agents"]]
        traps = [tuple(load_cell(cell) for cell in cells) for cells in data["traps"]]
        return State(
            seed=data["seed"],
            agents=(agents[0], agents[1]),
            traps=(traps[0], traps[1]),
            triggered=tuple(Triggered(t["owner"], load_cell(t["cell"])) for t in data["triggered"]),
            turn=data["turn"],
            actions=data["actions"],
            result=load_outcome(data["result"]),
        )


GAME: Game[State, Action, View] = FlagGame()


def _legal(state: State, seat: Seat) -> tuple[Action, ...]:
    """Every action ``seat`` could take if it were their turn, sorted: moves, then traps."""
    here, there = state.agents[seat], state.agents[other(seat)]
    own = state.traps[seat]
    moves = [Move(*cell) for cell in _neighbours(here) if cell != there]
    traps: list[Trap] = []
    if state.traps_left(seat):
        blocked = {*FLAGS, *state.agents, *own}
        traps = [Trap(*cell) for cell in grid.cells(SIZE) if cell not in blocked]
    return (*moves, *traps)


def _check_move(state: State, seat: Seat, cell: Cell) -> None:
    """Raise ``IllegalAction`` unless ``seat``'s agent may step to ``cell``.

    Only public facts decide this: an agent may step over its own traps, which go off for the
    opponent only, and the opponent's traps are never an obstacle.
    """
    here = state.agents[seat]
    if not grid.on_grid(cell, SIZE):
        raise IllegalAction(off_grid_text(cell_text(cell), SIZE))
    if cell not in _neighbours(here):
        allowed = cells_text([(a.row, a.col) for a in _legal(state, seat) if isinstance(a, Move)])
        if not allowed:
            raise IllegalAction(
                _(
                    "{cell} is not next to your agent at {here}: it can move to no cell now.",
                    cell=cell_text(cell),
                    here=cell_text(here),
                )
            )
        raise IllegalAction(
            _(
                "{cell} is not next to your agent at {here}: it can move to {allowed}.",
                cell=cell_text(cell),
                here=cell_text(here),
                allowed=allowed,
            )
        )
    if cell == state.agents[other(seat)]:
        raise IllegalAction(
            _(
                "The other agent is at {cell}: two agents may not share a cell.",
                cell=cell_text(cell),
            )
        )


def _check_trap(state: State, seat: Seat, cell: Cell) -> None:
    """Raise ``IllegalAction`` unless ``seat`` may place a trap on ``cell``.

    The opponent's traps are no obstacle: refusing a cell because one is there would reveal it.
    """
    if not state.traps_left(seat):
        raise IllegalAction(_("You have placed both your traps: move your agent instead."))
    if not grid.on_grid(cell, SIZE):
        raise IllegalAction(off_grid_text(cell_text(cell), SIZE))
    if cell in FLAGS:
        raise IllegalAction(
            _("{cell} holds a flag: traps may not go on a flag.", cell=cell_text(cell))
        )
    if cell in state.agents:
        raise IllegalAction(
            _("An agent is at {cell}: traps may not go under an agent.", cell=cell_text(cell))
        )
    if cell in state.traps[seat]:
        raise SecretRefusal(_("You already have a trap at {cell}.", cell=cell_text(cell)))


def _move(state: State, seat: Seat, cell: Cell) -> tuple[State, list[Event]]:
    """Step ``seat``'s agent to ``cell``, springing an opponent's trap there (its own, if one is
    there too, stays where it is)."""
    events = [Event("move", data={"seat": seat, "row": cell[0], "col": cell[1]}, game=GAME.name)]
    owner = other(seat)
    if cell not in state.traps[owner]:
        return evolve(state, agents=with_seat(state.agents, seat, cell)), events
    home = FLAGS[seat]
    events.append(
        Event(
            "trap_triggered",
            data={"seat": seat, "owner": owner, "row": cell[0], "col": cell[1]},
            game=GAME.name,
        )
    )
    remaining = tuple(t for t in state.traps[owner] if t != cell)
    after = evolve(
        state,
        agents=with_seat(state.agents, seat, home),
        traps=with_seat(state.traps, owner, remaining),
        triggered=(*state.triggered, Triggered(owner, cell)),
    )
    return after, events


def _place_trap(state: State, seat: Seat, cell: Cell) -> tuple[State, list[Event]]:
    after = evolve(
        state, traps=with_seat(state.traps, seat, tuple(sorted((*state.traps[seat], cell))))
    )
    left = after.traps_left(seat)
    events = [
        Event("trap", data={"seat": seat, "left": left}, game=GAME.name),
        Event(
            "trap",
            audience=seat,
            data={"row": cell[0], "col": cell[1], "left": left},
            game=GAME.name,
        ),
    ]
    return after, events


def _finish(state: State, outcome: Outcome, events: list[Event]) -> tuple[State, list[Event]]:
    """End the game: the result, an "end" event, and every trap still hidden, revealed."""
    ended = evolve(state, result=outcome)
    events.append(end_event(GAME.name, outcome))
    events.append(
        reveal_event(GAME.name, traps=[[list(cell) for cell in cells] for cells in state.traps])
    )
    return ended, events


def _neighbours(cell: Cell) -> list[Cell]:
    """The up to 8 cells around ``cell``, in row-major order."""
    row, col = cell
    return [
        (r, c)
        for r in range(row - 1, row + 2)
        for c in range(col - 1, col + 2)
        if (r, c) != cell and grid.on_grid((r, c), SIZE)
    ]


def _end_words(data: Mapping[str, JSON], names: tuple[str, str]) -> str:
    winner, reason = data["winner"], data["reason"]
    if winner is None and reason == Reason.MOVE_LIMIT:
        return _("Draw: {limit} actions played without a capture.", limit=ACTION_LIMIT)
    if winner is None and reason == Reason.NO_MOVES:
        return _("Draw: neither player can act.")
    if winner is not None and reason == Reason.CAPTURE:
        return _(
            "{winner} captures the flag at {cell} and wins!",
            winner=names[winner],
            cell=cell_text(FLAGS[other(winner)]),
        )
    return end_words(data, names)


def own_traps(view: View) -> str | None:
    """The viewer's own traps in play, ``Your traps: (3,4)``; ``None`` for the public or none."""
    if view.seat is None or not view.traps[view.seat]:
        return None
    return _("Your traps: {cells}.", cells=cells_text(view.traps[view.seat] or ()))
