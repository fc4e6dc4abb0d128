"""A refused tournament request in words, in the reader's language (``tournament_words``)."""

from __future__ import annotations

import logging
from functools import singledispatch

from bot.chat.failures import FAILED
from bot.i18n import _, n_
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
    TournamentRefused,
    TournamentStep,
    UnknownGame,
)

__all__ = ["tournament_words"]

log = logging.getLogger(__name__)


@singledispatch
def tournament_words(error: TournamentRefused) -> str:
    """What the member whose tournament request ``error`` refused reads."""
    log.error("no words for the refusal %s", type(error).__name__)
    return _(FAILED)


def _numbers(ids: tuple[int, ...]) -> str:
    return ", ".join(f"#{number}" for number in ids)


@tournament_words.register
def _no_tournament(error: NoSuchTournament) -> str:
    return _("There is no tournament #{id}.", id=error.tournament_id)


@tournament_words.register
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


@tournament_words.register
def _unknown_game(error: UnknownGame) -> str:
    games = ", ".join(error.games)
    return _("There is no game {game}: choose {games}.", game=error.game, games=games)


@tournament_words.register
def _format(error: NoSuchFormat) -> str:
    return _("That is not a tournament format: choose {formats}.", formats=", ".join(error.formats))


@tournament_words.register
def _swiss_only(error: RoundsOnlyForSwiss) -> str:
    return _("The number of rounds is set only for a Swiss tournament.")


@tournament_words.register
def _range(error: OutOfRange) -> str:
    if error.setting == Setting.ROUNDS:
        return _("A Swiss tournament has 1 to {most} rounds.", most=error.most)
    return _("A tournament takes 2 to {most} players.", most=error.most)


@tournament_words.register
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


@tournament_words.register
def _entered(error: AlreadyEntered) -> str:
    return _("You are already in tournament #{id}.", id=error.tournament_id)


@tournament_words.register
def _full(error: TournamentFull) -> str:
    return _("Tournament #{id} is full.", id=error.tournament_id)


@tournament_words.register
def _not_entered(error: NotEntered) -> str:
    return _("You are not playing in tournament #{id}.", id=error.tournament_id)


@tournament_words.register
def _too_few(error: TooFewPlayers) -> str:
    return _("Tournament #{id} needs at least two players to start.", id=error.tournament_id)


@tournament_words.register
def _none_meant(error: NoTournamentMeant) -> str:
    if error.entrant:
        return _("There is no tournament you play in: give the tournament's number.")
    return _("There is no tournament in this channel: give the tournament's number.")


@tournament_words.register
def _several(error: SeveralTournaments) -> str:
    return _(
        "There are several tournaments here ({numbers}): give the tournament's number.",
        numbers=_numbers(error.tournament_ids),
    )


@tournament_words.register
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


@tournament_words.register
def _busy(error: TournamentBusy) -> str:
    return _("The tournament is busy: try again in a moment.")
