"""The contract every game implements, and the vocabulary the rest of Parlor speaks.

A game is written once against the full truth (its ``State``); who may see what is a
separate projection (``view``). Seat 0 always moves first: the match decides which member
sits where. Engines are pure: no I/O, no wall clock, randomness only from the seed kept in
the state, so a match replays exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from games.worded import Worded

if TYPE_CHECKING:
    from games.board import Board
    from games.controls import Controls

Seat = int
"""0 (moves first) or 1."""

SEATS: tuple[Seat, Seat] = (0, 1)

JSON = Any
"""A value made only of dict, list, str, int, float, bool and None."""


def other(seat: Seat) -> Seat:
    """The opponent's seat."""
    return 1 - seat


class GameError(ValueError):
    """A request the game refuses; the message is safe to show the player who sent it."""


class InvalidInput(GameError):
    """The text cannot be read as an action of this game (syntax, range)."""


class IllegalAction(GameError):
    """The action was read but the rules do not allow it now."""


class SecretRefusal(IllegalAction):
    """Refused because of the player's own secret (a Flag Chase move onto one's own trap): the
    message names the secret, so only that player may read it."""


class NotYourTurn(GameError):
    """The seat may not act now."""


class GameOver(GameError):
    """The game has ended; nothing more can be played."""


class InvalidOptions(GameError):
    """A match option is unknown or out of range."""


class Reason(StrEnum):
    """Why a game ended (docs/rules.md)."""

    CAPTURE = "capture"
    TARGET = "target"
    SCORE = "score"
    RESIGN = "resign"
    TIMEOUT = "timeout"
    NO_MOVES = "no_moves"
    MOVE_LIMIT = "move_limit"


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game: the winning seat, or ``None`` for a draw."""

    winner: Seat | None
    reason: Reason

    def dump(self) -> dict[str, JSON]:
        return {"winner": self.winner, "reason": self.reason.value}

    @classmethod
    def load(cls, data: Mapping[str, JSON]) -> Outcome:
        return cls(winner=data["winner"], reason=Reason(data["reason"]))


class Ask(StrEnum):
    """What a seat that may act is asked for."""

    SECRET = "secret"
    """A private setup choice (Crown cell, safe code): collected by DM."""
    HINT = "hint"
    """The Crown defender's private choice of hint after a miss."""
    ACTION = "action"
    """A public move on the seat's turn."""


Teller = Callable[["Event", tuple[str, str]], str]
"""How a game words one of its events (``Game.tell``)."""

TELLERS: dict[str, Teller] = {}
"""Each game's ``tell``, by the game's short name: ``games`` fills it as it finds the games."""


@dataclass(frozen=True)
class Event:
    """Something that happened: its ``kind`` and its facts (``data``), worded when shown.

    ``audience`` is ``None`` for everyone, or the one seat allowed to read it. ``data`` carries
    the facts as JSON; a public event's ``data`` holds nothing secret. ``game`` names the game
    whose ``tell`` words the event, in the reader's language, when it is shown (``render``).
    ``said`` is the text an earlier release stored instead (players as ``{p0}`` and ``{p1}``):
    what an event that cannot be worded from its data shows.
    """

    kind: str
    said: str = ""
    audience: Seat | None = None
    data: Mapping[str, JSON] = field(default_factory=dict)
    game: str = ""

    @property
    def public(self) -> bool:
        return self.audience is None

    def render(self, names: Sequence[str]) -> str:
        """The event in words, naming the players ``names`` (by seat), in the language of the
        moment; the result is ``Worded``: a screen words it again for its own reader."""
        shown = (str(names[0]), str(names[1]))
        return Worded(lambda: self._words(shown))

    @property
    def text(self) -> str:
        """The event in words, with the players as ``{p0}`` and ``{p1}``."""
        return self._words(("{p0}", "{p1}"))

    def _words(self, names: tuple[str, str]) -> str:
        tell = TELLERS.get(self.game)
        if tell is not None:
            try:
                return tell(self, names)
            except (KeyError, TypeError, ValueError, IndexError):
                pass  # an event stored by an earlier release, without these facts
        return self.said.format(p0=names[0], p1=names[1]) if self.said else self.kind


S = TypeVar("S")
A = TypeVar("A")
V = TypeVar("V")


def evolve(record: S, /, **changes: Any) -> S:
    """A copy of the frozen dataclass ``record`` with ``changes``: ``dataclasses.replace``
    without running ``__init__`` again.

    A move copies its state two or three times. ``replace`` gathers every field and calls
    ``__init__``, which sets each one through ``object.__setattr__``: that was 8% of a move's
    instructions through the match service. The games' records have no ``__post_init__`` and
    no slots, so copying their ``__dict__`` makes the same object.
    """
    values = record.__dict__
    if not changes.keys() <= values.keys():
        unknown = ", ".join(sorted(changes.keys() - values.keys()))
        raise TypeError(f"{type(record).__name__} has no field {unknown}")
    copy = object.__new__(type(record))
    copy.__dict__.update(values)
    copy.__dict__.update(changes)
    return copy


class Game(Protocol[S, A, V]):
    """One game's rules. Implementations are stateless singletons; all state is in ``S``.

    Actions (``A``) are frozen dataclasses whose ``str()`` is their canonical text, which
    ``parse`` reads back: ``parse(state, seat, str(action)) == action``. This text is what
    buttons carry and what the event log stores.
    """

    name: str
    """Short name: module, slash command group, database value, button prefix."""

    @property
    def title(self) -> str:
        """Display name in the reader's language, e.g. "Capture the Crown"."""
        ...

    has_secrets: bool
    """True when the game starts with a setup phase of private choices."""

    move_command: str
    """The verb of the game's public move as its rules say it (``attack``): the subcommand of
    its slash command group, which the match service names in its texts."""

    @property
    def rules(self) -> str:
        """The short rules in the reader's language, in a few lines of Discord markdown."""
        ...

    @property
    def commands(self) -> tuple[tuple[str, str], ...]:
        """What a player types, as (answer, what it does): the help ``parlor play`` prints."""
        ...

    def new(self, options: Mapping[str, JSON], seed: int) -> S:
        """A new game. Raises ``InvalidOptions`` for an unknown or out-of-range option."""
        ...

    def options(self, state: S) -> dict[str, JSON]:
        """The options the game was created with, normalised (defaults filled in)."""
        ...

    def to_act(self, state: S) -> frozenset[Seat]:
        """Seats that may act now: both during setup, one during play, none when over."""
        ...

    def ask(self, state: S, seat: Seat) -> Ask:
        """What ``seat`` is asked for now. Only meaningful when ``seat in to_act(state)``."""
        ...

    def legal_actions(self, state: S, seat: Seat) -> Sequence[A]:
        """Every action ``seat`` may take now, sorted; empty when it may not act."""
        ...

    def parse(self, state: S, seat: Seat, text: str) -> A:
        """Read ``seat``'s typed input. Raises ``InvalidInput`` with what is valid."""
        ...

    def apply(self, state: S, seat: Seat, action: A) -> tuple[S, list[Event]]:
        """Play ``action`` for ``seat``. Returns the new state and what happened.

        Raises ``NotYourTurn``, ``IllegalAction`` or ``GameOver``; the given state is never
        changed (states are immutable). Automatic steps (a forced pass, an automatic hint)
        happen inside and are reported as events.
        """
        ...

    def outcome(self, state: S) -> Outcome | None:
        """The result, or ``None`` while the game goes on."""
        ...

    def on_deadline(self, state: S, seat: Seat) -> A | None:
        """The action played for ``seat`` when its time to act runs out (Crown's automatic
        hint), or ``None``: then ``seat`` forfeits."""
        ...

    def conclude(self, state: S, outcome: Outcome) -> tuple[S, list[Event]]:
        """End the game from outside the rules (resign, timeout) with ``outcome``.

        Like a natural end, the events include a public ``reveal`` of every secret.
        Raises ``GameOver`` when the game has already ended.
        """
        ...

    def view(self, state: S, viewer: Seat | None) -> V:
        """What ``viewer`` (``None``: the public) may know, as a value without any hidden data.

        After the game is over every view shows everything.
        """
        ...

    def board(self, view: V) -> Board:
        """The board ``view``'s viewer sees (``games.board``): drawn from the view alone, so it
        shows no secret the view does not hold. ``games.board.text`` prints it plainly."""
        ...

    def tell(self, event: Event, names: tuple[str, str]) -> str:
        """``event`` in words, in the reader's language, naming the players ``names``: worded
        from its kind and data alone. Raises ``KeyError`` when its data lacks a fact."""
        ...

    def controls(self, view: V, seat: Seat) -> Controls:
        """What ``seat`` may press for its public move, drawn from ``view`` alone (the public's
        serves a board everyone sees): every legal move enabled, none that is not, and nothing
        that only a secret could decide. Empty unless ``seat`` is to make a public move."""
        ...

    def choices(self, view: V) -> Controls:
        """What the view's seat may press for what it is asked privately now (its secret, its
        hint, the cell of a trap), drawn from its own view. Empty for the public's view."""
        ...

    def word(self, action: A) -> str:
        """The action in a few words for a button or a list: ``row is greater than 2``."""
        ...

    def is_secret(self, text: str) -> bool:
        """Whether ``text``, typed on one's turn, is a move that holds a secret (a trap's
        cell), so it is typed privately and never echoed. Setup secrets and hints are private
        anyway; this is for the moves of play."""
        ...

    def prompt(self, state: S, seat: Seat) -> str:
        """What ``seat`` is asked for now, in a few words after its name: ``place your Crown
        (row column)``. It never names a secret."""
        ...

    def dump(self, state: S) -> dict[str, JSON]:
        """The state as JSON-safe data."""
        ...

    def load(self, data: Mapping[str, JSON]) -> S:
        """The state ``dump`` produced: ``load(dump(s)) == s``."""
        ...


AnyGame = Game[Any, Any, Any]
