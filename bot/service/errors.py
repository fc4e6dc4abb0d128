"""Why the match service refused a request: typed errors that carry data, never words.

A refusal is a ``MatchError`` or, for a player acting out of turn, the engines' own
``games.base.NotYourTurn``: ``REFUSALS`` catches both. A typed refusal (a class made with
``refusal``) carries what the reading side needs to word it (the match, the limit hit, the
tournament asked for) in frozen fields; the reading side chooses the words, in its reader's
language (``bot.chat.refusals``). The service raises no refusal with words of its own.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, TypeVar, cast, dataclass_transform

from games.base import Ask, GameError, NotYourTurn

__all__ = [
    "REFUSALS",
    "AlreadyPlayed",
    "BotAccount",
    "CalledOff",
    "ChallengeRefused",
    "ChallengeStep",
    "ChallengeTaken",
    "GameRefused",
    "InvalidMove",
    "LevelVsBotOnly",
    "Limit",
    "LimitReached",
    "MatchBusy",
    "MatchError",
    "MatchNotFound",
    "MatchOver",
    "MovedOn",
    "NoBotHere",
    "NoFinishedMatch",
    "NoMatch",
    "NoMatchHere",
    "NoPuzzle",
    "NoPuzzleLeft",
    "NoSeason",
    "NotAChoice",
    "NotAPlayer",
    "NotAsked",
    "NotOpen",
    "NotStarted",
    "NotYourMatch",
    "NotYourTurn",
    "NothingAsked",
    "NothingDue",
    "OnlyMember",
    "OpenNotDeclined",
    "OthersTurn",
    "OverStep",
    "OwnOpenChallenge",
    "PlayerStep",
    "RematchTooEarly",
    "ReviewsTooOften",
    "SelfChallenge",
    "StillInPlay",
    "TimeoutOutOfBounds",
    "UnknownLevel",
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


@refusal
class ReviewsTooOften(MatchError):
    """The member had ``most`` reviews computed in the last minute; they may ask again at
    ``retry_at``. A review already computed is shown to anyone at any time."""

    most: int
    retry_at: datetime


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


@refusal
class NoSeason(MatchError):
    """The server has no season ``number`` (``None``: none has started yet, or seasons are
    off); ``latest`` is its newest season's number, if any."""

    number: int | None
    latest: int | None


# --- which match -------------------------------------------------------------------------


@refusal
class NoMatch(MatchNotFound):
    """There is no match ``match_id`` (or none in the server it was asked from)."""

    match_id: int


@refusal
class NoMatchHere(MatchNotFound):
    """The member has ``count`` unfinished ``game`` matches in the channel: none, or more than
    a command can choose from."""

    game: str
    count: int


# --- who may act -------------------------------------------------------------------------


class PlayerStep(StrEnum):
    """What only a match's two players may do."""

    ACT = "act"
    RESIGN = "resign"
    REMATCH = "rematch"


@refusal
class NotAPlayer(NotYourMatch):
    """The member does not play the match they tried to ``step`` in."""

    step: PlayerStep = PlayerStep.ACT


class ChallengeStep(StrEnum):
    """What one member alone does to a challenge."""

    ANSWER = "answer"
    """Accept or decline: the member challenged."""
    WITHDRAW = "withdraw"
    """The member who challenged."""


@refusal
class OnlyMember(NotYourMatch):
    """Only ``member_id`` may ``step`` this challenge."""

    member_id: int
    step: ChallengeStep


@refusal
class OwnOpenChallenge(NotYourMatch):
    """The member tried to accept their own open challenge."""


@refusal
class OpenNotDeclined(NotYourMatch):
    """Nobody declines an open challenge: it expires by itself."""


@refusal
class OthersTurn(NotYourTurn):
    """Another player is to act: ``member_id`` (to ``ask``), or both when it is ``None``."""

    member_id: int | None = None
    ask: Ask | None = None


@refusal
class NothingAsked(NotYourTurn):
    """Nothing is privately asked of the member now: the other player is to act."""


# --- when --------------------------------------------------------------------------------


@refusal
class MovedOn(AlreadyPlayed):
    """The request was made on a board the match has moved on from."""


@refusal
class MatchBusy(AlreadyPlayed):
    """The match kept changing while the request was tried."""


@refusal
class NotOpen(WrongStatus):
    """The challenge was answered, withdrawn or expired."""


@refusal
class ChallengeTaken(WrongStatus):
    """``member_id`` took this open challenge first."""

    member_id: int


@refusal
class NotStarted(WrongStatus):
    """The challenge has not been accepted yet."""


class OverStep(StrEnum):
    """What was asked of a match that is over."""

    PLAY = "play"
    END = "end"
    """Resign it, or cancel it as its organizer."""
    CALL_OFF = "call_off"
    ASK = "ask"
    """What the member is privately asked for."""


@refusal
class MatchOver(WrongStatus):
    """The match is over: it ended for ``reason`` (its end reason, or its status without one)."""

    step: OverStep
    reason: str = ""


@refusal
class RematchTooEarly(WrongStatus):
    """A rematch is offered once the match is over."""


@refusal
class NothingDue(WrongStatus):
    """The deadline the sweeper claimed has moved or gone."""


@refusal
class NotAsked(WrongStatus):
    """An answer to another ask than ``asked``, which the ``game`` waits for now."""

    asked: Ask
    game: str


# --- challenges --------------------------------------------------------------------------


@refusal
class SelfChallenge(ChallengeRefused):
    """A member challenged themself."""


@refusal
class BotAccount(ChallengeRefused):
    """A member challenged another bot account than this bot."""


@refusal
class NoBotHere(ChallengeRefused):
    """This bot cannot play (its own user id is not known)."""


@refusal
class UnknownLevel(InvalidMove):
    """``level`` is none of ``levels``."""

    level: str
    levels: tuple[str, ...]


@refusal
class LevelVsBotOnly(InvalidMove):
    """A level was given for a match between members."""


REFUSALS = (MatchError, NotYourTurn)
"""What a use case raises to refuse a request."""


@refusal
class NoPuzzle(MatchNotFound):
    """There is no puzzle ``puzzle_id`` that the member may see here (another server's reads
    the same)."""

    puzzle_id: int


@refusal
class NoPuzzleLeft(MatchNotFound):
    """Every puzzle (of ``game``, when given) the member may get here was answered already, or
    comes from a match they played."""

    game: str | None


@refusal
class NotAChoice(InvalidMove):
    """``action`` is none of the puzzle's choices, which are ``choices``."""

    action: str
    choices: tuple[str, ...]
