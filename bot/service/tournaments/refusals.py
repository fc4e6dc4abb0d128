"""Why a tournament request was refused: typed refusals carrying the tournament, the step
asked for and the limit hit; the reading side words them (``bot.chat.refusals``)."""

from __future__ import annotations

from enum import StrEnum

from bot.service.errors import MatchError, refusal

__all__ = [
    "AlreadyEntered",
    "NoSuchFormat",
    "NoSuchTournament",
    "NoTournamentMeant",
    "NotEntered",
    "NotOrganizer",
    "OpenTournamentsLimit",
    "OutOfRange",
    "RoundsOnlyForSwiss",
    "Setting",
    "SeveralTournaments",
    "TooFewPlayers",
    "TournamentBusy",
    "TournamentClosed",
    "TournamentFull",
    "TournamentRefused",
    "TournamentStep",
    "UnknownGame",
]


class TournamentRefused(MatchError):
    """A tournament request that may not be made."""


class TournamentStep(StrEnum):
    """What a member asked of a tournament."""

    CREATE = "create"
    JOIN = "join"
    LEAVE = "leave"
    START = "start"
    CANCEL = "cancel"


class Setting(StrEnum):
    """A number a tournament is created with, within bounds."""

    ROUNDS = "rounds"
    PLAYERS = "players"


@refusal
class NoSuchTournament(TournamentRefused):
    """No tournament ``tournament_id``: the one answer for another server's too."""

    tournament_id: int


@refusal
class NotOrganizer(TournamentRefused):
    """``step`` is for organizers (and, for a tournament made, ``creator_id``, who made it)."""

    step: TournamentStep
    tournament_id: int | None = None
    creator_id: int | None = None


@refusal
class UnknownGame(TournamentRefused):
    """``game`` is none of ``games``."""

    game: str
    games: tuple[str, ...]


@refusal
class NoSuchFormat(TournamentRefused):
    """The format asked for is none of ``formats``."""

    formats: tuple[str, ...]


@refusal
class RoundsOnlyForSwiss(TournamentRefused):
    """A number of rounds was given for a format that decides its own."""


@refusal
class OutOfRange(TournamentRefused):
    """``setting`` was given outside ``least`` to ``most``."""

    setting: Setting
    least: int
    most: int


@refusal
class TournamentClosed(TournamentRefused):
    """Tournament ``tournament_id`` is past the stage where ``step`` can be asked."""

    tournament_id: int
    step: TournamentStep


@refusal
class AlreadyEntered(TournamentRefused):
    tournament_id: int


@refusal
class TournamentFull(TournamentRefused):
    tournament_id: int


@refusal
class NotEntered(TournamentRefused):
    """The member is not (or no longer) playing in tournament ``tournament_id``."""

    tournament_id: int


@refusal
class TooFewPlayers(TournamentRefused):
    """Tournament ``tournament_id`` cannot start with fewer than two players."""

    tournament_id: int


@refusal
class NoTournamentMeant(TournamentRefused):
    """No tournament was named and none is meant: none in the channel, or (``entrant``) none
    the member plays in."""

    entrant: bool


@refusal
class SeveralTournaments(TournamentRefused):
    """No tournament was named and ``tournament_ids`` could be meant."""

    tournament_ids: tuple[int, ...]


@refusal
class OpenTournamentsLimit(TournamentRefused):
    """Another tournament would be one too many: ``tournament_ids`` are open, the most the
    member (``mine``) or else the server may have."""

    tournament_ids: tuple[int, ...]
    mine: bool


@refusal
class TournamentBusy(TournamentRefused):
    """Other writers kept changing the tournament: the request may be tried again."""
