"""Why the match service refused a request: typed errors that carry data, never words.

A refusal is a ``MatchError`` or, for a player acting out of turn, the engines' own
``games.base.NotYourTurn``: ``REFUSALS`` catches both. A typed refusal (a class made with
``refusal``) carries what the reading side needs to word it (the match, the limit hit, the
tournament asked for) in frozen fields; the reading side chooses the words, in its reader's
language (``bot.chat.refusals``). A refusal raised with a ready text (``WrongStatus(text)``)
still reads as that text, until every raise site carries data.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, is_dataclass
from enum import StrEnum
from typing import Any, TypeVar, cast, dataclass_transform

from games.base import GameError, NotYourTurn

__all__ = [
    "REFUSALS",
    "AlreadyPlayed",
    "CalledOff",
    "ChallengeRefused",
    "GameRefused",
    "InvalidMove",
    "Limit",
    "LimitReached",
    "MatchError",
    "MatchNotFound",
    "NoFinishedMatch",
    "NotYourMatch",
    "NotYourTurn",
    "StillInPlay",
    "TimeoutOutOfBounds",
    "WaitTooLong",
    "WrongStatus",
    "refusal",
]

_RAISED = frozenset(
    {"__traceback__", "__context__", "__cause__", "__suppress_context__", "__notes__"}
)
"""What Python sets on any exception once it is raised (and ``add_note``), frozen or not."""

E = TypeVar("E", bound=type[BaseException])


def _set_raised(self: BaseException, name: str, value: Any) -> None:
    if name not in _RAISED:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    BaseException.__setattr__(self, name, value)


def _del_raised(self: BaseException, name: str) -> None:
    if name not in _RAISED:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    BaseException.__delattr__(self, name)


@dataclass_transform(frozen_default=True)
def refusal(cls: E) -> E:
    """``cls`` as a frozen dataclass, whose fields are fixed once made, while the traceback,
    cause and context that raising sets on every exception stay writable."""
    made = cast(E, dataclass(frozen=True)(cls))
    setattr(made, "__setattr__", _set_raised)  # noqa: B010 - replaces what dataclass set
    setattr(made, "__delattr__", _del_raised)  # noqa: B010
    setattr(made, "__str__", made.__repr__)  # noqa: B010 - a log line reads the fields
    return made


class MatchError(Exception):
    """A refused request: its fields say what was refused and why (``say`` words them)."""

    @property
    def text(self) -> str | None:
        """The ready text the refusal was raised with, or ``None`` for a typed refusal."""
        if is_dataclass(self) or not self.args:
            return None
        return str(self.args[0])


class MatchNotFound(MatchError):
    """No such match, or none that the request could mean."""


class NotYourMatch(MatchError):
    """The user is not a player of the match (or not the one allowed this step)."""


class AlreadyPlayed(MatchError):
    """The match changed since the request was made: a double click or a race lost."""


class WrongStatus(MatchError):
    """The match is not in a state where this request makes sense (e.g. over, not yet accepted)."""


class InvalidMove(MatchError):
    """The game refused the input; the message comes from the rules engine."""


class ChallengeRefused(MatchError):
    """A challenge that may not be made (yourself, a bot account, too many open challenges)."""


@refusal
class GameRefused(InvalidMove):
    """The rules engine refused an input or options; ``error`` says why in the engine's words."""

    error: GameError


@refusal
class NoFinishedMatch(MatchNotFound):
    """The server has no finished match ``match_id`` (another server's reads the same)."""

    match_id: int


@refusal
class StillInPlay(WrongStatus):
    """Match ``match_id`` is not over: what is looked back on opens once its secrets are out."""

    match_id: int


@refusal
class CalledOff(WrongStatus):
    """Match ``match_id`` ended without a result: there is nothing to look back on."""

    match_id: int


class Limit(StrEnum):
    """A fair-use limit (``bot.service.limits``)."""

    OPEN_CHALLENGES = "open_challenges"
    """Open challenges a member has out at once."""
    UNTAKEN_OPEN = "untaken_open"
    """Open challenges a member posted lately that nobody took."""
    SAME_OPPONENT = "same_opponent"
    """Challenges to one member lately that came to no match."""
    PLAYING = "playing"
    """Matches a member plays at once, when challenging."""
    PLAYING_TO_ACCEPT = "playing_to_accept"
    """Matches a member plays at once, when accepting."""
    CHANNEL_OPEN = "channel_open"
    """Open challenges a channel takes in a minute."""


@refusal
class LimitReached(ChallengeRefused):
    """The member (or channel) reached ``limit``, which allows ``most``; ``minutes`` is the
    window the limit counts over, where it has one."""

    limit: Limit
    most: int
    minutes: int | None = None


@refusal
class WaitTooLong(InvalidMove):
    """The queue's wait before the bot is offered was set above ``most`` seconds."""

    most: int


@refusal
class TimeoutOutOfBounds(InvalidMove):
    """A ``kind`` timeout of ``got`` seconds, outside ``low`` to ``high`` seconds."""

    kind: str
    low: int
    high: int
    got: int


REFUSALS = (MatchError, NotYourTurn)
"""What a use case raises to refuse a request."""
