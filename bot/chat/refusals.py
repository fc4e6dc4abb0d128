"""A refused request in words: what the member who asked reads, in their language.

The match and tournament services raise typed refusals that carry data (``bot.service.errors``,
``bot.service.tournaments.refusals``); ``say`` words each one through the catalogs, inside
``speaking`` like ``_``. A refusal raised with a ready text reads as that text, and an
engine's refusal (``NotYourTurn``, ``GameRefused``) in the engine's own words.
"""

from __future__ import annotations

import logging
from functools import singledispatch

from bot.chat.failures import FAILED
from bot.i18n import _, n_
from bot.i18n.formats import command
from bot.i18n.names import human, kind_name
from bot.service.errors import (
    CalledOff,
    GameRefused,
    Limit,
    LimitReached,
    MatchError,
    NoFinishedMatch,
    StillInPlay,
    TimeoutOutOfBounds,
    WaitTooLong,
)
from bot.service.tournaments.refusals import (
    AlreadyEntered,
    NoSuchFormat,
    NoSuchTournament,
    NotEntered,
    NotOrganizer,
    NoTournamentMeant,
    OpenTournamentsLimit,
    OutOfRange,
    RoundsOnlyForSwiss,
    Setting,
    SeveralTournaments,
    TooFewPlayers,
    TournamentBusy,
    TournamentClosed,
    TournamentFull,
    TournamentStep,
    UnknownGame,
)

__all__ = ["say"]

log = logging.getLogger(__name__)


def say(error: BaseException) -> str:
    """What the member whose request ``error`` refused reads."""
    return _word(error)


@singledispatch
def _word(error: BaseException) -> str:
    """An engine's refusal (``NotYourTurn``) is worded by the engine."""
    return str(error)


@_word.register
def _ready(error: MatchError) -> str:
    if error.text is not None:
        return error.text
    log.error("no words for the refusal %s", type(error).__name__)
    return _(FAILED)


@_word.register
def _game(error: GameRefused) -> str:
    return str(error.error)


# --- matches -----------------------------------------------------------------------------


@_word.register
def _not_found(error: NoFinishedMatch) -> str:
    return _("There is no finished match #{id} in this server.", id=error.match_id)


@_word.register
def _in_play(error: StillInPlay) -> str:
    return _(
        "Match #{id} is still in play: its review, replay and record open once it ends, "
        "when its secrets are no longer secret.",
        id=error.match_id,
    )


@_word.register
def _called_off(error: CalledOff) -> str:
    return _(
        "Match #{id} was called off without a result: there is nothing to look back on.",
        id=error.match_id,
    )


@_word.register
def _limit(error: LimitReached) -> str:
    n, minutes = error.most, error.minutes
    match error.limit:
        case Limit.OPEN_CHALLENGES:
            return _(
                "You already have {n} open challenges: wait for an answer or withdraw one first.",
                n=n,
            )
        case Limit.UNTAKEN_OPEN:
            return _(
                "You have posted {n} open challenges in the last {minutes} minutes that "
                "nobody took: try {command} to be paired, or wait a moment.",
                n=n,
                minutes=minutes,
                command=command("play"),
            )
        case Limit.SAME_OPPONENT:
            return _(
                "You have challenged this member {n} times in the last {minutes} minutes "
                "without a match: give them a moment.",
                n=n,
                minutes=minutes,
            )
        case Limit.PLAYING_TO_ACCEPT:
            return _(
                "You are already playing {n} matches: finish or resign one before you accept.",
                n=n,
            )
        case Limit.PLAYING:
            return _("You are already playing {n} matches: finish or resign one first.", n=n)
        case Limit.CHANNEL_OPEN:
            return _(
                "This channel has had {n} open challenges in the last minute: accept one of "
                "them, or try again in a moment.",
                n=n,
            )


# --- settings ----------------------------------------------------------------------------


@_word.register
def _wait(error: WaitTooLong) -> str:
    return _(
        "The queue's wait before the bot is offered is at most {most}.", most=human(error.most)
    )


@_word.register
def _timeout(error: TimeoutOutOfBounds) -> str:
    return _(
        "The {kind} timeout must be between {low} and {high} (got {got}).",
        kind=kind_name(error.kind),
        low=human(error.low),
        high=human(error.high),
        got=human(error.got),
    )


# --- tournaments -------------------------------------------------------------------------


def _numbers(ids: tuple[int, ...]) -> str:
    return ", ".join(f"#{number}" for number in ids)


@_word.register
def _no_tournament(error: NoSuchTournament) -> str:
    return _("There is no tournament #{id}.", id=error.tournament_id)


@_word.register
def _not_organizer(error: NotOrganizer) -> str:
    if error.step == TournamentStep.CREATE or error.creator_id is None:
        return _(
            "Only members with the Manage Server permission or the organizer role can "
            "create a tournament."
        )
    creator, number = f"<@{error.creator_id}>", error.tournament_id
    if error.step == TournamentStep.START:
        return _(
            "Only {creator}, who created tournament #{id}, or an organizer can start it.",
            creator=creator,
            id=number,
        )
    return _(
        "Only {creator}, who created tournament #{id}, or an organizer can cancel it.",
        creator=creator,
        id=number,
    )


@_word.register
def _unknown_game(error: UnknownGame) -> str:
    games = ", ".join(error.games)
    return _("There is no game {game}: choose {games}.", game=error.game, games=games)


@_word.register
def _format(error: NoSuchFormat) -> str:
    return _("That is not a tournament format: choose {formats}.", formats=", ".join(error.formats))


@_word.register
def _swiss_only(error: RoundsOnlyForSwiss) -> str:
    return _("The number of rounds is set only for a Swiss tournament.")


@_word.register
def _range(error: OutOfRange) -> str:
    if error.setting == Setting.ROUNDS:
        return _("A Swiss tournament has 1 to {most} rounds.", most=error.most)
    return _("A tournament takes 2 to {most} players.", most=error.most)


@_word.register
def _closed(error: TournamentClosed) -> str:
    number = error.tournament_id
    match error.step:
        case TournamentStep.JOIN:
            return _("Sign-up for tournament #{id} is closed.", id=number)
        case TournamentStep.START:
            return _("Tournament #{id} has already started.", id=number)
        case TournamentStep.CANCEL:
            return _("Tournament #{id} is already over.", id=number)
        case _other:
            return _("Tournament #{id} is over.", id=number)


@_word.register
def _entered(error: AlreadyEntered) -> str:
    return _("You are already in tournament #{id}.", id=error.tournament_id)


@_word.register
def _full(error: TournamentFull) -> str:
    return _("Tournament #{id} is full.", id=error.tournament_id)


@_word.register
def _not_entered(error: NotEntered) -> str:
    return _("You are not playing in tournament #{id}.", id=error.tournament_id)


@_word.register
def _too_few(error: TooFewPlayers) -> str:
    return _("Tournament #{id} needs at least two players to start.", id=error.tournament_id)


@_word.register
def _none_meant(error: NoTournamentMeant) -> str:
    if error.entrant:
        return _("There is no tournament you play in: give the tournament's number.")
    return _("There is no tournament in this channel: give the tournament's number.")


@_word.register
def _several(error: SeveralTournaments) -> str:
    return _(
        "There are several tournaments here ({numbers}): give the tournament's number.",
        numbers=_numbers(error.tournament_ids),
    )


@_word.register
def _open_limit(error: OpenTournamentsLimit) -> str:
    n, numbers = len(error.tournament_ids), _numbers(error.tournament_ids)
    if error.mine:
        return n_(
            "You already run {n} open tournament ({numbers}), the most one organizer may: "
            "finish or cancel it first.",
            "You already run {n} open tournaments ({numbers}), the most one organizer may: "
            "finish or cancel one first.",
            n,
            numbers=numbers,
        )
    return n_(
        "This server already has {n} open tournament ({numbers}), the most a server "
        "may: finish or cancel it first.",
        "This server already has {n} open tournaments ({numbers}), the most a server "
        "may: finish or cancel one first.",
        n,
        numbers=numbers,
    )


@_word.register
def _busy(error: TournamentBusy) -> str:
    return _("The tournament is busy: try again in a moment.")
