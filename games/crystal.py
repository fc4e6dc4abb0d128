"""Crystal Capture: players take crystals 1-9 from a shared pool; exactly 15 points wins.

A player who cannot capture without going over 15 passes automatically; when both would pass
in a row the game is a draw (docs/rules.md: the rule book's "no draws" is wrong).
"""

from __future__ import annotations

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
    NotYourTurn,
    Outcome,
    Reason,
    Seat,
    evolve,
    other,
)
from games.board import Board, Mark
from games.controls import NONE, Control, Controls
from games.ending import dump_outcome, end_event, load_outcome
from games.options import check_no_options
from games.text import end_words, player, quoted
from games.worded import Translated, TranslatedHelp, Worded
from games.words import N_, _, n_

TARGET = 15
CRYSTALS = tuple(range(1, 10))

_CAPTURE = re.compile(r"(?:capture\b\s*)?(?:crystal\b\s*)?(\d+)")


@dataclass(frozen=True)
class Options:
    """Crystal Capture has no options; the type keeps every game's shape alike."""


@dataclass(frozen=True, order=True)
class Capture:
    """Take one crystal from the pool."""

    crystal: int

    def __str__(self) -> str:
        return str(self.crystal)


Action = Capture


@dataclass(frozen=True)
class Captured:
    """One capture, as everyone saw it."""

    seat: Seat
    crystal: int


@dataclass(frozen=True)
class State:
    """The whole game; nothing in it is hidden."""

    seed: int
    captures: tuple[Captured, ...] = ()
    turn: Seat = 0
    """The seat to act; kept as it was once the game is over."""
    result: Outcome | None = None
    options: Options = Options()

    @property
    def pool(self) -> tuple[int, ...]:
        """The crystals left, in order."""
        taken = {c.crystal for c in self.captures}
        return tuple(c for c in CRYSTALS if c not in taken)

    @property
    def points(self) -> tuple[int, int]:
        return _points(self.captures)


@dataclass(frozen=True)
class View:
    """Everything about a Crystal Capture game is public; ``seat`` is who the view is for."""

    seat: Seat | None
    pool: tuple[int, ...]
    captures: tuple[Captured, ...]
    to_act: Seat | None
    result: Outcome | None

    @property
    def points(self) -> tuple[int, int]:
        return _points(self.captures)


RULES = N_(
    "**Crystal Capture**\n"
    "Crystals 1-9 lie in a shared pool; both players start at 0 points. On your turn take one"
    " crystal that does not take you over 15. Reaching exactly **15** wins at once.\n"
    "If you cannot take a crystal without going over 15 you pass (automatically); when both "
    "players would pass in a row the match is a draw. With perfect play the first player "
    "wins."
)
"""The short rules, as ``/rules`` and ``parlor rules`` show them (Discord markdown)."""


class CrystalGame:
    name = "crystal"
    has_secrets = False
    move_command = "take"

    title = Translated(N_("Crystal Capture"))
    rules = Translated(RULES)
    commands = TranslatedHelp(
        ("number", N_("capture that crystal, e.g. 4")),
    )

    def new(self, options: Mapping[str, JSON], seed: int) -> State:
        check_no_options(
            options,
            self.title,
            _("the pool is always 1-9 and the target {target}", target=TARGET),
        )
        return State(seed=seed)

    def options(self, state: State) -> dict[str, JSON]:
        return {}

    def to_act(self, state: State) -> frozenset[Seat]:
        return frozenset() if state.result else frozenset({state.turn})

    def ask(self, state: State, seat: Seat) -> Ask:
        return Ask.ACTION

    def legal_actions(self, state: State, seat: Seat) -> Sequence[Capture]:
        if state.result or seat != state.turn:
            return ()
        return tuple(Capture(c) for c in _capturable(state, seat))

    def parse(self, state: State, seat: Seat, text: str) -> Capture:
        read = _CAPTURE.fullmatch(text.strip().lower())
        if read is None:
            raise InvalidInput(
                _(
                    "{text} cannot be read: type the number of a crystal, 1-9, e.g. '4'.",
                    text=quoted(text),
                )
            )
        crystal = int(read.group(1))
        if crystal not in CRYSTALS:
            raise InvalidInput(
                _("There is no crystal {crystal}: the crystals are numbered 1-9.", crystal=crystal)
            )
        return Capture(crystal)

    def apply(self, state: State, seat: Seat, action: Capture) -> tuple[State, list[Event]]:
        if state.result:
            raise GameOver(_("This game is over: nothing more can be captured."))
        if seat != state.turn:
            raise NotYourTurn(_("It is not your turn: the other player is to capture."))
        crystal = action.crystal
        allowed = ", ".join(map(str, _capturable(state, seat)))
        if crystal not in CRYSTALS:
            raise IllegalAction(
                _(
                    "There is no crystal {crystal}: you can capture {allowed}.",
                    crystal=crystal,
                    allowed=allowed,
                )
            )
        if crystal not in state.pool:
            raise IllegalAction(
                _(
                    "Crystal {crystal} has already been captured: you can capture {allowed}.",
                    crystal=crystal,
                    allowed=allowed,
                )
            )
        points = state.points[seat] + crystal
        if points > TARGET:
            raise IllegalAction(
                _(
                    "Crystal {crystal} would take you to {points}, over {target}: "
                    "you can capture {allowed}.",
                    crystal=crystal,
                    points=points,
                    target=TARGET,
                    allowed=allowed,
                )
            )
        after = evolve(state, captures=(*state.captures, Captured(seat, crystal)))
        events = [
            Event(
                "capture",
                data={"seat": seat, "crystal": crystal, "points": points},
                game=self.name,
            )
        ]
        if points == TARGET:
            return _finish(after, Outcome(seat, Reason.TARGET), events)
        # The opponent moves next unless they are stuck; then the mover goes again, if they can.
        for turn in (other(seat), seat):
            if _capturable(after, turn):
                return evolve(after, turn=turn), events
            events.append(Event("pass", data={"seat": turn}, game=self.name))
        return _finish(after, Outcome(None, Reason.NO_MOVES), events)

    def outcome(self, state: State) -> Outcome | None:
        return state.result

    def on_deadline(self, state: State, seat: Seat) -> None:
        return None

    def conclude(self, state: State, outcome: Outcome) -> tuple[State, list[Event]]:
        if state.result:
            raise GameOver(_("This game is already over."))
        return _finish(state, outcome, [])

    def view(self, state: State, viewer: Seat | None) -> View:
        return View(
            seat=viewer,
            pool=state.pool,
            captures=state.captures,
            to_act=None if state.result else state.turn,
            result=state.result,
        )

    def board(self, view: View) -> Board:
        """The nine crystals as a keypad, each taken one with its taker; then both players'
        points."""
        taker = {capture.crystal: capture.seat for capture in view.captures}

        def cell(crystal: int) -> board.Cell:
            if crystal in taker:
                return board.Cell(Mark.TAKEN, taker[crystal], crystal)
            return board.Cell(Mark.NUMBER, None, crystal)

        rows = tuple(tuple(cell(c) for c in CRYSTALS[i : i + 3]) for i in range(0, 9, 3))
        crystals = board.Grid(
            _("Crystals (exactly {target} wins)", target=TARGET),
            rows,
            coordinates=False,
            takeable=True,
        )
        points = tuple(
            n_(
                "{player}: {n} point",
                "{player}: {n} points",
                view.points[seat],
                player=player(seat),
            )
            for seat in SEATS
        )
        return Board((crystals,), points)

    def controls(self, view: View, seat: Seat) -> Controls:
        """Crystals 1-9 in rows of five; a taken one, or one that would take ``seat`` over the
        target, is disabled and says which."""
        if view.to_act != seat:
            return NONE
        allowed = _within(view.pool, view.points[seat])

        def control(crystal: int) -> Control:
            if crystal not in view.pool:
                return Control(str(crystal), _("{number} · taken", number=crystal), False)
            if crystal not in allowed:
                over = _("{number} · over {target}", number=crystal, target=TARGET)
                return Control(str(crystal), over, False)
            return Control(str(crystal), str(crystal))

        buttons = tuple(map(control, CRYSTALS))
        return Controls((buttons[:5], buttons[5:]))

    def choices(self, view: View) -> Controls:
        return NONE

    def word(self, action: Capture) -> str:
        return Worded(lambda: _("crystal {number}", number=action.crystal))

    def is_secret(self, text: str) -> bool:
        return False

    def prompt(self, state: State, seat: Seat) -> str:
        return Worded(lambda: _("choose a crystal to capture"))

    def tell(self, event: Event, names: tuple[str, str]) -> str:
        data, kind = event.data, event.kind
        if kind == "capture":
            return n_(
                "{player} captures crystal {crystal}: {n} point.",
                "{player} captures crystal {crystal}: {n} points.",
                data["points"],
                player=names[data["seat"]],
                crystal=data["crystal"],
            )
        if kind == "pass":
            return _(
                "{player} cannot capture without going over {target} and passes.",
                player=names[data["seat"]],
                target=TARGET,
            )
        if kind == "end":
            winner, reason = data["winner"], data["reason"]
            if winner is None and reason == Reason.NO_MOVES:
                first, second = data["points"]
                return _(
                    "Draw: neither player can capture without going over {target} "
                    "({first} to {second}).",
                    target=TARGET,
                    first=first,
                    second=second,
                )
            if winner is not None and reason == Reason.TARGET:
                return _(
                    "{winner} wins with exactly {target} points.",
                    winner=names[winner],
                    target=TARGET,
                )
            return end_words(data, names)
        raise KeyError(kind)

    def dump(self, state: State) -> dict[str, JSON]:
        return {
            "seed": state.seed,
            "options": {},
            "captures": [[c.seat, c.crystal] for c in state.captures],
            "turn": state.turn,
            "result": dump_outcome(state.result),
        }

    def load(self, data: Mapping[str, JSON]) -> State:
        return State(
            seed=data["seed"],
            captures=tuple(Captured(seat, crystal) for seat, crystal in data["captures"]),
            turn=data["turn"],
            result=load_outcome(data["result"]),
        )


GAME: Game[State, Action, View] = CrystalGame()


def _capturable(state: State, seat: Seat) -> tuple[int, ...]:
    """The crystals ``seat`` may take without going over the target."""
    return _within(state.pool, state.points[seat])


def _within(pool: Sequence[int], points: int) -> tuple[int, ...]:
    """The crystals of ``pool`` that take ``points`` no further than the target."""
    return tuple(c for c in pool if points + c <= TARGET)


def _points(captures: Sequence[Captured]) -> tuple[int, int]:
    return (
        sum(c.crystal for c in captures if c.seat == 0),
        sum(c.crystal for c in captures if c.seat == 1),
    )


def _finish(state: State, outcome: Outcome, events: list[Event]) -> tuple[State, list[Event]]:
    """End the game with ``outcome`` and announce it. Nothing is hidden, so nothing to reveal."""
    ended = evolve(state, result=outcome)
    points = ended.points
    events.append(end_event(GAME.name, outcome, points=list(points)))
    return ended, events
