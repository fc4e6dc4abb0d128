"""Safe Cracker: crack the opponent's secret code from exact-match counts.

Each player sets a code by DM (``length`` digits, each 1 to ``digits``, repeats allowed).
Players then alternate public guesses; the answer is only how many digits are right and in
the right place. Guessing the whole code wins at once. With ``max_guesses`` each, a game
nobody cracks goes to the better single guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any, Generic, TypeAlias, TypeVar, overload

from games import board
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
from games.controls import NONE, Controls, Typed
from games.ending import dump_outcome, end_event, load_outcome, reveal_event
from games.options import unknown_option
from games.seats import seen_by, with_seat
from games.text import end_words, joined_facts, player, quoted
from games.worded import Translated, TranslatedHelp, Worded
from games.words import N_, _, n_

Code: TypeAlias = tuple[int, ...]
"""A code or a guess: ``length`` digits, each 1 to ``digits``."""

DIGITS_RANGE = range(3, 10)
LENGTH_RANGE = range(3, 7)
MAX_GUESSES_RANGE = range(1, 51)

_SEPARATORS = re.compile(r"[\s,\-./()\[\]]+")


def code_text(code: Code) -> str:
    """The code as the rule book writes it: ``2-1-3``."""
    return "-".join(map(str, code))


def exact_matches(guess: Code, code: Code) -> int:
    """How many digits of ``guess`` are right and in the right place."""
    return sum(g == c for g, c in zip(guess, code, strict=True))


def feedback_text(exact: int) -> str:
    """The feedback as the rule book words it: ``1 exact match``, ``2 exact matches``."""
    return n_("{n} exact match", "{n} exact matches", exact)


# --- options and actions -------------------------------------------------------------------


def _int_option(options: Mapping[str, JSON], key: str, default: int, valid: range) -> int:
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value not in valid:
        raise InvalidOptions(
            _(
                "Option {option} must be a whole number from {least} to {most}, not {given}.",
                option=repr(key),
                least=valid.start,
                most=valid.stop - 1,
                given=repr(value),
            )
        )
    return value


@dataclass(frozen=True)
class Options:
    """The code shape (largest digit, number of digits) and the guess limit per player."""

    digits: int = 3
    length: int = 3
    max_guesses: int | None = None

    @classmethod
    def from_mapping(cls, options: Mapping[str, JSON]) -> Options:
        """The options from a challenge. Raises ``InvalidOptions`` for anything else."""
        unknown = unknown_option(options, {"digits", "length", "max_guesses"})
        if unknown is not None:
            raise InvalidOptions(
                _(
                    "Unknown option {option} for Safe Cracker: the options are 'digits' "
                    "(3-9), 'length' (3-6) and 'max_guesses' (1-50, or none for no limit).",
                    option=repr(unknown),
                )
            )
        limit = options.get("max_guesses")
        return cls(
            digits=_int_option(options, "digits", 3, DIGITS_RANGE),
            length=_int_option(options, "length", 3, LENGTH_RANGE),
            max_guesses=None
            if limit is None
            else _int_option(options, "max_guesses", 0, MAX_GUESSES_RANGE),
        )

    def dump(self) -> dict[str, JSON]:
        return {"digits": self.digits, "length": self.length, "max_guesses": self.max_guesses}

    @property
    def shape(self) -> str:
        """The code shape in words: ``3 digits, each 1-3``."""
        return _("{length} digits, each 1-{largest}", length=self.length, largest=self.digits)

    @property
    def example(self) -> str:
        """A valid code for this shape, for help texts."""
        return "".join(str(i % self.digits + 1) for i in (1, 0, 2, 3, 4, 5)[: self.length])

    def is_code(self, code: Code) -> bool:
        return len(code) == self.length and all(
            isinstance(d, int) and 1 <= d <= self.digits for d in code
        )


@dataclass(frozen=True, order=True)
class SetCode:
    """Setup: choose one's own secret code."""

    code: Code

    def __str__(self) -> str:
        return "".join(map(str, self.code))


@dataclass(frozen=True, order=True)
class Guess:
    """Guess the opponent's code."""

    code: Code

    def __str__(self) -> str:
        return "".join(map(str, self.code))


SafeAction: TypeAlias = SetCode | Guess
_A = TypeVar("_A", SetCode, Guess)


@dataclass(frozen=True)
class CodeActions(Sequence[_A], Generic[_A]):
    """Every code of a shape as actions, in sorted order, computed on demand.

    The largest variant has 9**6 codes: far too many to build on every call.
    """

    kind: type[_A]
    options: Options

    def __len__(self) -> int:
        return int(self.options.digits**self.options.length)

    @overload
    def __getitem__(self, index: int) -> _A: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[_A]: ...

    def __getitem__(self, index: int | slice) -> _A | Sequence[_A]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        size = len(self)
        if not -size <= index < size:
            raise IndexError("code index out of range")
        rest = index % size
        digits = []
        for _place in range(self.options.length):
            rest, digit = divmod(rest, self.options.digits)
            digits.append(digit + 1)
        return self.kind(tuple(reversed(digits)))

    def __contains__(self, item: object) -> bool:
        return isinstance(item, self.kind) and self.options.is_code(item.code)

    def __iter__(self) -> Iterator[_A]:
        digits = range(1, self.options.digits + 1)
        return (self.kind(code) for code in product(digits, repeat=self.options.length))

    def index(self, value: Any, start: int = 0, stop: int | None = None) -> int:
        if value not in self:
            raise ValueError(f"{value!r} is not a code of this game")
        position = 0
        for digit in value.code:
            position = position * self.options.digits + digit - 1
        if not start <= position < (len(self) if stop is None else stop):
            raise ValueError(f"{value!r} is not in the given range")
        return position


# --- state ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class GuessRecord:
    """A guess and its feedback."""

    code: Code
    exact: int

    def dump(self) -> dict[str, JSON]:
        return {"code": list(self.code), "exact": self.exact}

    @classmethod
    def load(cls, data: Mapping[str, JSON]) -> GuessRecord:
        return cls(code=tuple(int(d) for d in data["code"]), exact=int(data["exact"]))


Guesses: TypeAlias = tuple[tuple[GuessRecord, ...], tuple[GuessRecord, ...]]


@dataclass(frozen=True)
class SafeState:
    """The whole truth of a game. ``guesses[s]`` are the guesses seat ``s`` made."""

    seed: int
    options: Options
    codes: tuple[Code | None, Code | None] = (None, None)
    guesses: Guesses = ((), ())
    outcome: Outcome | None = None


def _typed(label: str, options: Options) -> Typed:
    return Typed(label, options.shape, options.example)


def _in_setup(state: SafeState) -> bool:
    return None in state.codes


def _guesser(state: SafeState) -> Seat:
    """The seat to guess next: seat 0 first, then alternating."""
    return 0 if len(state.guesses[0]) == len(state.guesses[1]) else 1


def best_guess(records: Sequence[GuessRecord]) -> int:
    """The most exact matches in a single guess (0 before any guess)."""
    return max((record.exact for record in records), default=0)


# --- view ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SafeView:
    """What ``seat`` (``None``: the public) may know of a game.

    ``codes`` holds only the viewer's own code until the game is over, then both.
    """

    seat: Seat | None
    options: Options
    to_act: frozenset[Seat]
    code_set: tuple[bool, bool]
    codes: tuple[Code | None, Code | None]
    guesses: Guesses
    outcome: Outcome | None


# --- the game ------------------------------------------------------------------------------


RULES = N_(
    "**Safe Cracker**\n"
    "Each player sets a secret code: 3 digits, each 1-3, repeats allowed. Then you take turns"
    " guessing the other code; the answer is how many digits are right and in the right "
    "place. Guessing the whole code wins.\n"
    "Variants: `digits` (largest digit, 3-9), `length` (3-6 digits) and `max_guesses` each "
    "(if nobody cracks the code, the best single guess wins; equal is a draw)."
)
"""The short rules, as ``/rules`` and ``parlor rules`` show them (Discord markdown)."""


class SafeGame:
    """Safe Cracker (docs/rules.md "Safe Cracker")."""

    name = "safe"
    has_secrets = True
    move_command = "guess"

    title = Translated(N_("Safe Cracker"))
    rules = Translated(RULES)
    commands = TranslatedHelp(
        ("digits", N_("set your code, unseen, or guess the other code, e.g. 123")),
    )

    def new(self, options: Mapping[str, JSON], seed: int) -> SafeState:
        return SafeState(seed=seed, options=Options.from_mapping(options))

    def options(self, state: SafeState) -> dict[str, JSON]:
        return state.options.dump()

    def to_act(self, state: SafeState) -> frozenset[Seat]:
        if state.outcome is not None:
            return frozenset()
        if _in_setup(state):
            return frozenset(seat for seat in SEATS if state.codes[seat] is None)
        return frozenset({_guesser(state)})

    def ask(self, state: SafeState, seat: Seat) -> Ask:
        return Ask.SECRET if _in_setup(state) else Ask.ACTION

    def legal_actions(self, state: SafeState, seat: Seat) -> Sequence[SafeAction]:
        if seat not in self.to_act(state):
            return ()
        if _in_setup(state):
            return CodeActions(SetCode, state.options)
        return CodeActions(Guess, state.options)

    def parse(self, state: SafeState, seat: Seat, text: str) -> SafeAction:
        self._check_may_act(state, seat)
        code = _parse_code(state.options, text)
        return SetCode(code) if _in_setup(state) else Guess(code)

    def apply(
        self, state: SafeState, seat: Seat, action: SafeAction
    ) -> tuple[SafeState, list[Event]]:
        self._check_may_act(state, seat)
        if not state.options.is_code(action.code):
            raise IllegalAction(
                _(
                    "That is not a code of this game: a code is {shape}, e.g. '{example}'.",
                    shape=state.options.shape,
                    example=state.options.example,
                )
            )
        if _in_setup(state):
            if not isinstance(action, SetCode):
                raise IllegalAction(_("Set your code first: {shape}.", shape=state.options.shape))
            return self._set_code(state, seat, action.code)
        if not isinstance(action, Guess):
            raise IllegalAction(
                _(
                    "Your code is set; guess the other player's code: {shape}.",
                    shape=state.options.shape,
                )
            )
        return self._guess(state, seat, action.code)

    def outcome(self, state: SafeState) -> Outcome | None:
        return state.outcome

    def on_deadline(self, state: SafeState, seat: Seat) -> None:
        return None

    def conclude(self, state: SafeState, outcome: Outcome) -> tuple[SafeState, list[Event]]:
        if state.outcome is not None:
            raise GameOver(_("The game is already over."))
        return self._finish(state, outcome)

    def view(self, state: SafeState, viewer: Seat | None) -> SafeView:
        over = state.outcome is not None
        return SafeView(
            seat=viewer,
            options=state.options,
            to_act=self.to_act(state),
            code_set=(state.codes[0] is not None, state.codes[1] is not None),
            codes=seen_by(state.codes, viewer, over),
            guesses=state.guesses,
            outcome=state.outcome,
        )

    def board(self, view: SafeView) -> Board:
        """Each player's guesses with their exact matches; then the code's shape, the guess
        limit, and the codes the view holds."""
        options = view.options
        grids = tuple(
            board.Grid(
                board.whose(seat, view.seat, N_("Your guesses"), N_("{player}'s guesses")),
                tuple(
                    tuple(board.Cell(Mark.NUMBER, None, digit) for digit in record.code)
                    for record in view.guesses[seat]
                ),
                coordinates=False,
                notes=tuple(feedback_text(record.exact) for record in view.guesses[seat]),
            )
            for seat in SEATS
        )
        lines = [_("Codes: {shape}", shape=options.shape)]
        if options.max_guesses is not None:
            lines.append(_("Guesses: {limit} each", limit=options.max_guesses))
        lines.extend(
            _("Your code: {code}", code=code_text(code))
            if seat == view.seat
            else _("{player}'s code: {code}", player=player(seat), code=code_text(code))
            for seat, code in zip(SEATS, view.codes, strict=True)
            if code is not None
        )
        return Board(grids, tuple(lines))

    def controls(self, view: SafeView, seat: Seat) -> Controls:
        """A guess, typed whole: there are too many codes to press."""
        if not all(view.code_set) or view.to_act != {seat}:
            return NONE
        return Controls(typed=_typed(_("Guess"), view.options))

    def choices(self, view: SafeView) -> Controls:
        """One's code, typed whole, during the setup."""
        seat = view.seat
        if seat is None or seat not in view.to_act or view.code_set[seat]:
            return NONE
        return Controls(typed=_typed(_("Set my code"), view.options))

    def word(self, action: SafeAction) -> str:
        code = code_text(action.code)
        if isinstance(action, SetCode):
            return Worded(lambda: _("code {code}", code=code))
        return Worded(lambda: _("guess {code}", code=code))

    def is_secret(self, text: str) -> bool:
        return False

    def prompt(self, state: SafeState, seat: Seat) -> str:
        length, largest = state.options.length, state.options.digits
        if _in_setup(state):
            return Worded(
                lambda: _(
                    "set your code ({length} digits from 1-{largest})",
                    length=length,
                    largest=largest,
                )
            )
        return Worded(
            lambda: _(
                "enter your guess ({length} digits from 1-{largest})",
                length=length,
                largest=largest,
            )
        )

    def tell(self, event: Event, names: tuple[str, str]) -> str:
        data, kind = event.data, event.kind
        if kind == "secret_set" and event.audience is not None:
            return _("Your code is {code}.", code=code_text(data["code"]))
        if kind == "secret_set":
            return _("{player} has set their code.", player=names[data["seat"]])
        if kind == "start":
            started = _("Both codes are set. {player} guesses first.", player=names[0])
            limit = data["max_guesses"]
            if limit is None:
                return started
            return started + " " + _("Each player has {limit} guesses.", limit=limit)
        if kind == "guess":
            said = _(
                "{player} guesses {code}: {feedback}.",
                player=names[data["seat"]],
                code=code_text(data["guess"]),
                feedback=feedback_text(data["exact"]),
            )
            return (
                said + " " + _("The safe is cracked!")
                if data["exact"] == len(data["guess"])
                else said
            )
        if kind == "end":
            return _end_words(data, names)
        if kind == "reveal":
            return joined_facts(
                [
                    _("{player}'s code was {code}", player=name, code=code_text(code))
                    if code is not None
                    else _("{player} had not set a code", player=name)
                    for name, code in zip(names, data["codes"], strict=True)
                ]
            )
        raise KeyError(kind)

    def dump(self, state: SafeState) -> dict[str, JSON]:
        return {
            "seed": state.seed,
            "options": state.options.dump(),
            "codes": [None if code is None else list(code) for code in state.codes],
            "guesses": [[record.dump() for record in records] for records in state.guesses],
            "outcome": dump_outcome(state.outcome),
        }

    def load(self, data: Mapping[str, JSON]) -> SafeState:
        codes = [None if code is None else tuple(int(d) for d in code) for code in data["codes"]]
        guesses = [tuple(GuessRecord.load(record) for record in seat) for seat in data["guesses"]]
        return SafeState(
            seed=int(data["seed"]),
            options=Options.from_mapping(data["options"]),
            codes=(codes[0], codes[1]),
            guesses=(guesses[0], guesses[1]),
            outcome=load_outcome(data["outcome"]),
        )

    # --- steps -----------------------------------------------------------------------------

    def _check_may_act(self, state: SafeState, seat: Seat) -> None:
        if state.outcome is not None:
            raise GameOver(_("The game is over."))
        if seat in self.to_act(state):
            return
        if _in_setup(state):
            raise NotYourTurn(_("You have already set your code."))
        raise NotYourTurn(_("It is not your turn: the other player is to act."))

    def _set_code(self, state: SafeState, seat: Seat, code: Code) -> tuple[SafeState, list[Event]]:
        done = evolve(state, codes=with_seat(state.codes, seat, code))
        events = [
            Event("secret_set", data={"seat": seat}, game=self.name),
            Event(
                "secret_set",
                audience=seat,
                data={"seat": seat, "code": list(code)},
                game=self.name,
            ),
        ]
        if not _in_setup(done):
            limit = state.options.max_guesses
            events.append(Event("start", data={"max_guesses": limit}, game=self.name))
        return done, events

    def _guess(self, state: SafeState, seat: Seat, code: Code) -> tuple[SafeState, list[Event]]:
        target = state.codes[other(seat)]
        assert target is not None  # guessing starts only once both codes are set
        exact = exact_matches(code, target)
        records = (*state.guesses[seat], GuessRecord(code, exact))
        guessed = evolve(state, guesses=with_seat(state.guesses, seat, records))
        cracked = exact == state.options.length
        events = [
            Event(
                "guess",
                data={"seat": seat, "guess": list(code), "exact": exact},
                game=self.name,
            )
        ]
        if cracked:
            finished, end_events = self._finish(guessed, Outcome(seat, Reason.CAPTURE))
            return finished, events + end_events
        limit = state.options.max_guesses
        if limit is not None and all(len(records) == limit for records in guessed.guesses):
            outcome, best = _score_result(guessed.guesses)
            finished, end_events = self._finish(guessed, outcome, best=list(best))
            return finished, events + end_events
        return guessed, events

    def _finish(
        self, state: SafeState, outcome: Outcome, **facts: JSON
    ) -> tuple[SafeState, list[Event]]:
        reveal = reveal_event(
            self.name, codes=[None if code is None else list(code) for code in state.codes]
        )
        return evolve(state, outcome=outcome), [end_event(self.name, outcome, **facts), reveal]


def _score_result(guesses: Guesses) -> tuple[Outcome, tuple[int, int]]:
    """The result when every guess is used: the best single guess wins, equal is a draw.
    Each player's best guess comes with it."""
    best = (best_guess(guesses[0]), best_guess(guesses[1]))
    if best[0] == best[1]:
        return Outcome(None, Reason.SCORE), best
    return Outcome(0 if best[0] > best[1] else 1, Reason.SCORE), best


def _end_words(data: Mapping[str, JSON], names: tuple[str, str]) -> str:
    winner, reason = data["winner"], data["reason"]
    if winner is not None and reason == Reason.CAPTURE:
        return _(
            "{winner} wins: {loser}'s code is cracked.",
            winner=names[winner],
            loser=names[other(winner)],
        )
    if reason == Reason.SCORE:
        best = data["best"]
        if winner is None:
            return _(
                "Draw: both players' best guess had {feedback}.", feedback=feedback_text(best[0])
            )
        return _(
            "{winner} wins on score: best guess {feedback} against {other}.",
            winner=names[winner],
            feedback=feedback_text(best[winner]),
            other=feedback_text(best[other(winner)]),
        )
    return end_words(data, names)


def _parse_code(options: Options, text: str) -> Code:
    shown = quoted(text)
    help_text = _(
        "a code is {shape}, e.g. '{example}'", shape=options.shape, example=options.example
    )
    body = _SEPARATORS.sub("", text.strip())
    if not body:
        raise InvalidInput(_("Enter a code: {help}.", help=help_text))
    if not body.isascii() or not body.isdigit():
        raise InvalidInput(_("{text} is not a code: {help}.", text=shown, help=help_text))
    if len(body) != options.length:
        raise InvalidInput(
            n_(
                "{text} has {n} digit: {help}.",
                "{text} has {n} digits: {help}.",
                len(body),
                text=shown,
                help=help_text,
            )
        )
    code = tuple(int(d) for d in body)
    if not options.is_code(code):
        wrong = next(d for d in code if not 1 <= d <= options.digits)
        raise InvalidInput(
            _("{text} has the digit {digit}: {help}.", text=shown, digit=wrong, help=help_text)
        )
    return code


GAME = SafeGame()
