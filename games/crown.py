"""Capture the Crown: find the opponent's hidden Crown on a 3x3 grid, guided by hints.

Each player hides a Crown by DM. Players then take turns attacking a cell of the other's
grid: a hit wins; after a miss the defender gives one true hint about the Crown's row or
column relative to the attacked cell, and the turn passes. The hint the defender has yet to
choose is itself a secret: its two true options together pin the Crown down.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from games import board, grid
from games.base import (
    JSON,
    SEATS,
    Ask,
    Event,
    GameOver,
    IllegalAction,
    InvalidInput,
    InvalidOptions,
    NotYourTurn,
    Outcome,
    Reason,
    Seat,
    evolve,
    other,
)
from games.board import Board, Mark
from games.controls import NONE, Control, Controls
from games.ending import dump_outcome, end_event, load_outcome, reveal_event
from games.grid import cell_text as cell_text
from games.grid import load_cell, off_grid_text
from games.options import unknown_option
from games.seats import seen_by, with_seat
from games.text import end_words, joined_facts, quoted
from games.worded import Translated, TranslatedHelp, Worded
from games.words import N_, _

Cell: TypeAlias = grid.Cell
"""(row, column), each 1-3."""
Axis: TypeAlias = Literal["row", "column"]
Relation: TypeAlias = Literal["greater", "less", "equal"]
HintMode: TypeAlias = Literal["defender", "auto"]

SIZE = 3
CELLS: tuple[Cell, ...] = grid.cells(SIZE)
HINT_MODES: tuple[HintMode, ...] = ("defender", "auto")

_HINT_WORDS: dict[tuple[Axis, Relation], str] = {
    ("row", "greater"): N_("row is greater than {value}"),
    ("row", "less"): N_("row is less than {value}"),
    ("row", "equal"): N_("row is equal to {value}"),
    ("column", "greater"): N_("column is greater than {value}"),
    ("column", "less"): N_("column is less than {value}"),
    ("column", "equal"): N_("column is equal to {value}"),
}
"""A hint in words (translated where shown): what the Crown's row or column is."""
_AXIS_WORDS: dict[str, Axis] = {
    "row": "row",
    "r": "row",
    "column": "column",
    "col": "column",
    "c": "column",
}
_CELL_TEXT = re.compile(r"([0-9]{1,3})\s*[,\s-]\s*([0-9]{1,3})|([0-9])([0-9])")
_VERB = re.compile(r"^(?:attack|place)\s+", re.IGNORECASE)


def _relation(value: int, attacked: int) -> Relation:
    if value > attacked:
        return "greater"
    if value < attacked:
        return "less"
    return "equal"


# --- options and actions -------------------------------------------------------------------


@dataclass(frozen=True)
class Options:
    """How hints are given: chosen by the defender, or always chosen by the bot."""

    hints: HintMode = "defender"

    @classmethod
    def from_mapping(cls, options: Mapping[str, JSON]) -> Options:
        """The options from a challenge. Raises ``InvalidOptions`` for anything else."""
        unknown = unknown_option(options, {"hints"})
        if unknown is not None:
            raise InvalidOptions(
                _(
                    "Unknown option {option} for Capture the Crown: the only option is "
                    "'hints' ('defender' or 'auto').",
                    option=repr(unknown),
                )
            )
        hints = options.get("hints", "defender")
        if hints == "defender":
            return cls("defender")
        if hints == "auto":
            return cls("auto")
        raise InvalidOptions(
            _("Option 'hints' must be 'defender' or 'auto', not {given}.", given=repr(hints))
        )

    def dump(self) -> dict[str, JSON]:
        return {"hints": self.hints}


@dataclass(frozen=True, order=True)
class PlaceCrown:
    """Setup: hide the Crown on ``cell`` of one's own grid."""

    cell: Cell

    def __str__(self) -> str:
        return f"{self.cell[0]} {self.cell[1]}"


@dataclass(frozen=True, order=True)
class Attack:
    """Attack ``cell`` of the opponent's grid."""

    cell: Cell

    def __str__(self) -> str:
        return f"{self.cell[0]} {self.cell[1]}"


@dataclass(frozen=True, order=True)
class HintAction:
    """A true hint after a miss: the Crown's ``axis`` is ``relation`` the attacked ``value``.

    Its text is only the axis (``row`` / ``column``): the defender chooses which hint to
    give, the relation follows from where the Crown is.
    """

    axis: Axis
    relation: Relation
    value: int

    def __str__(self) -> str:
        return self.axis

    @property
    def sentence(self) -> str:
        """The hint in words, in the reader's language: ``row is greater than 2``."""
        return hint_words(self.axis, self.relation, self.value)

    def holds_for(self, cell: Cell) -> bool:
        """Whether a Crown on ``cell`` agrees with this hint."""
        value = cell[0] if self.axis == "row" else cell[1]
        return _relation(value, self.value) == self.relation

    def dump(self) -> dict[str, JSON]:
        return {"axis": self.axis, "relation": self.relation, "value": self.value}

    @classmethod
    def load(cls, data: Mapping[str, JSON]) -> HintAction:
        return cls(axis=data["axis"], relation=data["relation"], value=data["value"])


CrownAction: TypeAlias = PlaceCrown | Attack | HintAction


def hint_words(axis: Axis, relation: Relation, value: int) -> str:
    """A hint in the reader's language: ``row is greater than 2``."""
    return _(_HINT_WORDS[(axis, relation)], value=value)


def true_hints(crown: Cell, attacked: Cell) -> tuple[HintAction, HintAction]:
    """The two hints a defender with ``crown`` may give after a miss on ``attacked``, sorted."""
    return (
        HintAction("column", _relation(crown[1], attacked[1]), attacked[1]),
        HintAction("row", _relation(crown[0], attacked[0]), attacked[0]),
    )


# --- state ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class AttackRecord:
    """One attack and what it earned. ``hint`` is ``None`` after a hit, or while awaited."""

    cell: Cell
    hit: bool
    hint: HintAction | None = None

    @property
    def awaits_hint(self) -> bool:
        return not self.hit and self.hint is None

    def dump(self) -> dict[str, JSON]:
        return {
            "cell": list(self.cell),
            "hit": self.hit,
            "hint": None if self.hint is None else self.hint.dump(),
        }

    @classmethod
    def load(cls, data: Mapping[str, JSON]) -> AttackRecord:
        hint = data["hint"]
        return cls(
            cell=load_cell(data["cell"]),
            hit=bool(data["hit"]),
            hint=None if hint is None else HintAction.load(hint),
        )


Attacks: TypeAlias = tuple[tuple[AttackRecord, ...], tuple[AttackRecord, ...]]


@dataclass(frozen=True)
class CrownState:
    """The whole truth of a game. ``attacks[s]`` are the attacks seat ``s`` made."""

    seed: int
    options: Options
    crowns: tuple[Cell | None, Cell | None] = (None, None)
    attacks: Attacks = ((), ())
    outcome: Outcome | None = None


def consistent_cells(attacks: Sequence[AttackRecord]) -> frozenset[Cell]:
    """Cells where the Crown can still be, given one attacker's misses and hints."""
    cells = set(CELLS)
    for record in attacks:
        if record.hit:
            return frozenset({record.cell})
        cells.discard(record.cell)
        if record.hint is not None:
            cells = {cell for cell in cells if record.hint.holds_for(cell)}
    return frozenset(cells)


def _hint_pending_from(state: CrownState) -> Seat | None:
    """The attacker whose miss still awaits the defender's hint, if any."""
    return _awaiting_hint(state.attacks)


def _awaiting_hint(attacks: Attacks) -> Seat | None:
    for seat in SEATS:
        records = attacks[seat]
        if records and records[-1].awaits_hint:
            return seat
    return None


def _attacker(state: CrownState) -> Seat:
    """The seat to attack next (seat 0 first, then alternating after each miss)."""
    return 0 if len(state.attacks[0]) == len(state.attacks[1]) else 1


def _in_setup(state: CrownState) -> bool:
    return None in state.crowns


# --- view ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CrownView:
    """What ``seat`` (``None``: the public) may know of a game.

    ``crowns`` holds only the viewer's own Crown until the game is over, then both.
    ``hint_choices`` is the pending hint choice, present only in the defender's own view.
    """

    seat: Seat | None
    hints: HintMode
    to_act: frozenset[Seat]
    placed: tuple[bool, bool]
    crowns: tuple[Cell | None, Cell | None]
    attacks: Attacks
    hint_choices: tuple[HintAction, ...]
    outcome: Outcome | None


# --- the game ------------------------------------------------------------------------------


RULES = N_(
    "**Capture the Crown**\n"
    "Each player hides a Crown on their own 3x3 grid, in secret. Then you take turns "
    "attacking a cell of the other player's grid.\n"
    "• **Hit**: you capture the Crown and win.\n"
    "• **Miss**: the defender gives you one true hint, chosen privately: whether the Crown's "
    "row, or its column, is greater than, less than or equal to the one you attacked. With "
    "`hints: auto` the bot always gives the least helpful hint.\n"
    "Attacking a cell twice is refused and costs no turn. Four attacks always suffice."
)
"""The short rules, as ``/rules`` and ``parlor rules`` show them (Discord markdown)."""


class CrownGame:
    """Capture the Crown (docs/rules.md "Capture the Crown")."""

    name = "crown"
    has_secrets = True
    move_command = "attack"

    title = Translated(N_("Capture the Crown"))
    rules = Translated(RULES)
    commands = TranslatedHelp(
        ("row column", N_("place your Crown, unseen, or attack that cell, e.g. 2 3")),
        ("row or column", N_("after a miss on your grid, the hint you give")),
    )

    def new(self, options: Mapping[str, JSON], seed: int) -> CrownState:
        return CrownState(seed=seed, options=Options.from_mapping(options))

    def options(self, state: CrownState) -> dict[str, JSON]:
        return state.options.dump()

    def to_act(self, state: CrownState) -> frozenset[Seat]:
        if state.outcome is not None:
            return frozenset()
        if _in_setup(state):
            return frozenset(seat for seat in SEATS if state.crowns[seat] is None)
        pending = _hint_pending_from(state)
        if pending is not None:
            return frozenset({other(pending)})
        return frozenset({_attacker(state)})

    def ask(self, state: CrownState, seat: Seat) -> Ask:
        if _in_setup(state):
            return Ask.SECRET
        pending = _hint_pending_from(state)
        if pending is not None and seat == other(pending):
            return Ask.HINT
        return Ask.ACTION

    def legal_actions(self, state: CrownState, seat: Seat) -> Sequence[CrownAction]:
        if seat not in self.to_act(state):
            return ()
        asked = self.ask(state, seat)
        if asked is Ask.SECRET:
            return tuple(PlaceCrown(cell) for cell in CELLS)
        if asked is Ask.HINT:
            return self._hint_choices(state)
        attacked = {record.cell for record in state.attacks[seat]}
        return tuple(Attack(cell) for cell in CELLS if cell not in attacked)

    def parse(self, state: CrownState, seat: Seat, text: str) -> CrownAction:
        self._check_may_act(state, seat)
        asked = self.ask(state, seat)
        if asked is Ask.HINT:
            return self._parse_hint(state, text)
        cell = _parse_cell(text)
        return PlaceCrown(cell) if asked is Ask.SECRET else Attack(cell)

    def apply(
        self, state: CrownState, seat: Seat, action: CrownAction
    ) -> tuple[CrownState, list[Event]]:
        self._check_may_act(state, seat)
        asked = self.ask(state, seat)
        if asked is Ask.SECRET:
            if not isinstance(action, PlaceCrown):
                raise IllegalAction(_("Place your Crown first: {help}.", help=_cell_help()))
            return self._place(state, seat, action.cell)
        if asked is Ask.HINT:
            if not isinstance(action, HintAction):
                raise IllegalAction(_("Choose your hint first: 'row' or 'column'."))
            return self._give_hint(state, action, automatic=False)
        if not isinstance(action, Attack):
            raise IllegalAction(
                _(
                    "Your Crown is placed; attack a cell of the other player's grid: {help}.",
                    help=_cell_help(),
                )
            )
        return self._attack(state, seat, action.cell)

    def outcome(self, state: CrownState) -> Outcome | None:
        return state.outcome

    def conclude(self, state: CrownState, outcome: Outcome) -> tuple[CrownState, list[Event]]:
        if state.outcome is not None:
            raise GameOver(_("The game is already over."))
        return self._finish(state, outcome)

    def on_deadline(self, state: CrownState, seat: Seat) -> HintAction | None:
        """A defender out of time gives ``auto_hint``; an attacker forfeits."""
        if _hint_pending_from(state) is None or state.outcome is not None:
            return None
        return self.auto_hint(state)

    def auto_hint(self, state: CrownState) -> HintAction:
        """The hint the bot gives for the defender: the one leaving the attacker more cells.

        Cells are counted against everything the attacker has learnt so far (all its misses
        and hints); a tie goes to the row hint. Raises ``IllegalAction`` when no hint is awaited.
        """
        attacker = _hint_pending_from(state)
        if attacker is None or state.outcome is not None:
            raise IllegalAction(_("No hint is awaited."))
        records = state.attacks[attacker]
        column, row = self._hint_choices(state)

        def cells_left(hint: HintAction) -> int:
            return len(consistent_cells((*records[:-1], evolve(records[-1], hint=hint))))

        return column if cells_left(column) > cells_left(row) else row

    def view(self, state: CrownState, viewer: Seat | None) -> CrownView:
        over = state.outcome is not None
        pending = _hint_pending_from(state)
        defender_sees_choices = not over and pending is not None and viewer == other(pending)
        return CrownView(
            seat=viewer,
            hints=state.options.hints,
            to_act=self.to_act(state),
            placed=(state.crowns[0] is not None, state.crowns[1] is not None),
            crowns=seen_by(state.crowns, viewer, over),
            attacks=state.attacks,
            hint_choices=self._hint_choices(state) if defender_sees_choices else (),
            outcome=state.outcome,
        )

    def board(self, view: CrownView) -> Board:
        """Both grids, the viewer's first: the attacks each received, a Crown the view holds,
        and while the game goes on the cells the hints given rule out."""
        owners = SEATS if view.seat is None else (view.seat, other(view.seat))
        return Board(
            tuple(
                board.grid(
                    board.whose(owner, view.seat, N_("Your Crown"), N_("{player}'s Crown")),
                    SIZE,
                    _marker(view, owner),
                )
                for owner in owners
            )
        )

    def controls(self, view: CrownView, seat: Seat) -> Controls:
        """The opponent's grid to attack; a cell already attacked is disabled."""
        in_play = all(view.placed) and _awaiting_hint(view.attacks) is None
        if not in_play or view.to_act != {seat}:
            return NONE
        attacked = {record.cell for record in view.attacks[seat]}
        return _cell_controls(lambda cell: cell not in attacked, "✕")

    def choices(self, view: CrownView) -> Controls:
        """Where to hide one's Crown, during the setup; the true hints, after a miss."""
        seat = view.seat
        if seat is None or seat not in view.to_act:
            return NONE
        if not view.placed[seat]:
            return _cell_controls(lambda cell: True, "")
        hints = tuple(Control(str(hint), hint.sentence) for hint in view.hint_choices)
        return Controls((hints,)) if hints else NONE

    def word(self, action: CrownAction) -> str:
        return Worded(lambda: _word(action))

    def is_secret(self, text: str) -> bool:
        return False

    def prompt(self, state: CrownState, seat: Seat) -> str:
        asked = self.ask(state, seat)
        if asked is Ask.SECRET:
            return Worded(lambda: _("place your Crown (row column)"))
        if asked is Ask.HINT:
            return Worded(lambda: _("choose a hint"))
        return Worded(lambda: _("enter attack coordinates (row column)"))

    def tell(self, event: Event, names: tuple[str, str]) -> str:
        data = event.data
        kind = event.kind
        if kind == "secret_set" and event.audience is not None:
            return _("Your Crown is at {cell}.", cell=cell_text(load_cell(data["cell"])))
        if kind == "secret_set":
            return _("{player} has placed their Crown.", player=names[data["seat"]])
        if kind == "start":
            return _("Both Crowns are placed. {player} attacks first.", player=names[0])
        if kind == "attack":
            shown = {"player": names[data["seat"]], "cell": cell_text(load_cell(data["cell"]))}
            if data["hit"]:
                return _("{player} attacks {cell}: Hit.", **shown)
            return _("{player} attacks {cell}: Miss.", **shown)
        if kind == "hint":
            hint = hint_words(data["axis"], data["relation"], data["value"])
            if data["automatic"]:
                return _(
                    "{player}'s hint (automatic): the Crown's {hint}.",
                    player=names[data["seat"]],
                    hint=hint,
                )
            return _("{player}'s hint: the Crown's {hint}.", player=names[data["seat"]], hint=hint)
        if kind == "end":
            if data["reason"] == Reason.CAPTURE and data["winner"] is not None:
                winner = data["winner"]
                return _(
                    "{winner} wins: {loser}'s Crown is captured at {cell}.",
                    winner=names[winner],
                    loser=names[other(winner)],
                    cell=cell_text(load_cell(data["cell"])),
                )
            return end_words(data, names)
        if kind == "reveal":
            return joined_facts(
                [
                    _("{player}'s Crown was at {cell}", player=name, cell=cell_text(load_cell(c)))
                    if c is not None
                    else _("{player} had not placed a Crown", player=name)
                    for name, c in zip(names, data["crowns"], strict=True)
                ]
            )
        raise KeyError(kind)

    def dump(self, state: CrownState) -> dict[str, JSON]:
        return {
            "seed": state.seed,
            "options": state.options.dump(),
            "crowns": [None if cell is None else list(cell) for cell in state.crowns],
            "attacks": [[record.dump() for record in records] for records in state.attacks],
            "outcome": dump_outcome(state.outcome),
        }

    def load(self, data: Mapping[str, JSON]) -> CrownState:
        crowns = [None if cell is None else load_cell(cell) for cell in data["crowns"]]
        attacks = [tuple(AttackRecord.load(record) for record in seat) for seat in data["attacks"]]
        return CrownState(
            seed=int(data["seed"]),
            options=Options.from_mapping(data["options"]),
            crowns=(crowns[0], crowns[1]),
            attacks=(attacks[0], attacks[1]),
            outcome=load_outcome(data["outcome"]),
        )

    # --- steps -----------------------------------------------------------------------------

    def _check_may_act(self, state: CrownState, seat: Seat) -> None:
        if state.outcome is not None:
            raise GameOver(_("The game is over."))
        if seat in self.to_act(state):
            return
        if _in_setup(state):
            raise NotYourTurn(_("You have already placed your Crown."))
        if _hint_pending_from(state) == seat:
            raise NotYourTurn(_("It is not your turn: the other player is choosing a hint."))
        raise NotYourTurn(_("It is not your turn: the other player is to act."))

    def _hint_choices(self, state: CrownState) -> tuple[HintAction, ...]:
        attacker = _hint_pending_from(state)
        if attacker is None:
            return ()
        crown = state.crowns[other(attacker)]
        assert crown is not None  # play starts only once both Crowns are placed
        return true_hints(crown, state.attacks[attacker][-1].cell)

    def _place(self, state: CrownState, seat: Seat, cell: Cell) -> tuple[CrownState, list[Event]]:
        _check_on_grid(cell)
        placed = evolve(state, crowns=with_seat(state.crowns, seat, cell))
        events = [
            Event("secret_set", data={"seat": seat}, game=self.name),
            Event(
                "secret_set",
                audience=seat,
                data={"seat": seat, "cell": list(cell)},
                game=self.name,
            ),
        ]
        if not _in_setup(placed):
            events.append(Event("start", game=self.name))
        return placed, events

    def _attack(self, state: CrownState, seat: Seat, cell: Cell) -> tuple[CrownState, list[Event]]:
        _check_on_grid(cell)
        for record in state.attacks[seat]:
            if record.cell == cell:
                raise IllegalAction(
                    _(
                        "You already attacked {cell}: {result} "
                        "Choose a cell you have not attacked.",
                        cell=cell_text(cell),
                        result=_result_words(record),
                    )
                )
        defender = other(seat)
        hit = state.crowns[defender] == cell
        record = AttackRecord(cell=cell, hit=hit)
        attacks = _with_record(state.attacks, seat, record)
        attacked = evolve(state, attacks=attacks)
        events = [
            Event("attack", data={"seat": seat, "cell": list(cell), "hit": hit}, game=self.name)
        ]
        if hit:
            won, end_events = self._finish(attacked, Outcome(seat, Reason.CAPTURE), cell=list(cell))
            return won, events + end_events
        if state.options.hints == "auto":
            hinted, hint_events = self._give_hint(
                attacked, self.auto_hint(attacked), automatic=True
            )
            return hinted, events + hint_events
        return attacked, events

    def _give_hint(
        self, state: CrownState, hint: HintAction, *, automatic: bool
    ) -> tuple[CrownState, list[Event]]:
        if hint not in self._hint_choices(state):
            raise IllegalAction(_("That is not one of your hints: choose 'row' or 'column'."))
        attacker = _hint_pending_from(state)
        assert attacker is not None  # _hint_choices is empty otherwise
        records = state.attacks[attacker]
        done = evolve(records[-1], hint=hint)
        attacks = _with_record(state.attacks, attacker, done, replace_last=True)
        event = Event(
            "hint",
            data={"seat": other(attacker), **hint.dump(), "automatic": automatic},
            game=self.name,
        )
        return evolve(state, attacks=attacks), [event]

    def _finish(
        self, state: CrownState, outcome: Outcome, **facts: JSON
    ) -> tuple[CrownState, list[Event]]:
        reveal = reveal_event(
            self.name, crowns=[None if cell is None else list(cell) for cell in state.crowns]
        )
        return evolve(state, outcome=outcome), [end_event(self.name, outcome, **facts), reveal]

    def _parse_hint(self, state: CrownState, text: str) -> HintAction:
        axis = _AXIS_WORDS.get(text.strip().lower())
        if axis is None:
            raise InvalidInput(
                _("{text} is not a hint: answer 'row' or 'column'.", text=quoted(text))
            )
        column, row = self._hint_choices(state)
        return row if axis == "row" else column


def _with_record(
    attacks: Attacks, seat: Seat, record: AttackRecord, *, replace_last: bool = False
) -> Attacks:
    kept = attacks[seat][:-1] if replace_last else attacks[seat]
    return with_seat(attacks, seat, (*kept, record))


def _check_on_grid(cell: Cell) -> None:
    if cell not in CELLS:
        raise IllegalAction(off_grid_text(cell_text(cell), SIZE))


def _parse_cell(text: str) -> Cell:
    body = _VERB.sub("", text.strip()).strip("()[] ")
    if not body:
        raise InvalidInput(_("Enter a cell: {help}.", help=_cell_help()))
    match = _CELL_TEXT.fullmatch(body)
    if match is None:
        raise InvalidInput(_("{text} is not a cell: {help}.", text=quoted(text), help=_cell_help()))
    row, col = (int(part) for part in match.groups() if part is not None)
    if (row, col) not in CELLS:
        raise InvalidInput(off_grid_text(quoted(text), SIZE, "2 3"))
    return (row, col)


def _result_words(record: AttackRecord) -> str:
    if record.hit:
        return _("Hit.")
    if record.hint is None:
        return _("Miss.")
    return _("Miss; the hint was: {hint}.", hint=record.hint.sentence)


def _cell_help() -> str:
    """How to type a cell, in the reader's language."""
    return _("write the row then the column, each 1-3, e.g. '2 3'")


def _cell_controls(open_to: Callable[[Cell], bool], closed: str) -> Controls:
    """The 3x3 grid as controls: a cell ``open_to`` allows says where it is, another says
    ``closed``."""
    return Controls(
        tuple(
            tuple(
                Control(f"{row} {col}", f"{row},{col}")
                if open_to((row, col))
                else Control(f"{row} {col}", closed, False)
                for col in range(1, SIZE + 1)
            )
            for row in range(1, SIZE + 1)
        )
    )


def _word(action: CrownAction) -> str:
    if isinstance(action, HintAction):
        return action.sentence
    if isinstance(action, PlaceCrown):
        return _("Crown at {cell}", cell=cell_text(action.cell))
    return _("attack {cell}", cell=cell_text(action.cell))


# --- the board -----------------------------------------------------------------------------


def _marker(view: CrownView, owner: Seat) -> Callable[[Cell], board.Cell]:
    """How each cell of ``owner``'s grid is marked in ``view``."""
    received = {record.cell: record.hit for record in view.attacks[other(owner)]}
    crown = view.crowns[owner]
    possible = (
        consistent_cells(view.attacks[other(owner)]) if view.outcome is None else frozenset(CELLS)
    )

    def mark(cell: Cell) -> board.Cell:
        if cell in received:
            return board.Cell(Mark.HIT if received[cell] else Mark.MISS)
        if cell == crown:
            return board.Cell(Mark.CROWN)
        return board.EMPTY if cell in possible else board.Cell(Mark.RULED_OUT)

    return mark


GAME = CrownGame()
