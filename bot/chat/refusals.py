"""A refused request in words: what the member who asked reads, in their language.

The match and tournament services raise typed refusals that carry data (``bot.service.errors``,
``bot.service.tournaments.refusals``); ``say`` words each one through the catalogs, inside
``speaking`` like ``_``; an engine's refusal (``NotYourTurn``, ``GameRefused``) reads in the
engine's own words.
"""

from __future__ import annotations

import logging
import math
from dataclasses import is_dataclass
from functools import singledispatch

import games
from bot.chat.failures import FAILED
from bot.chat.ranks import words as rank_words
from bot.chat.tournaments.refusals import tournament_words
from bot.i18n import N_, _, n_
from bot.i18n.formats import command
from bot.i18n.names import REASON_NAMES, human, kind_name, reason_name
from bot.service.errors import (
    BotAccount,
    CalledOff,
    ChallengeStep,
    ChallengeTaken,
    GameRefused,
    LevelVsBotOnly,
    Limit,
    LimitReached,
    MatchBusy,
    MatchError,
    MatchOver,
    MovedOn,
    NoBotHere,
    NoFinishedMatch,
    NoMatch,
    NoMatchHere,
    NoPuzzle,
    NoPuzzleLeft,
    NoSeason,
    NotAChoice,
    NotAPlayer,
    NotAsked,
    NothingAsked,
    NothingDue,
    NotOpen,
    NotStarted,
    OnlyMember,
    OpenNotDeclined,
    OthersTurn,
    OverStep,
    OwnOpenChallenge,
    PlayerStep,
    RematchTooEarly,
    ReviewsTooOften,
    SelfChallenge,
    StillInPlay,
    TimeoutOutOfBounds,
    UnknownLevel,
    WaitTooLong,
)
from bot.service.quick_pair import NotQueued
from bot.service.ranks import NoSuchRank, RankTaken, TooManyRanks
from bot.service.tournaments.refusals import TournamentRefused
from games.base import Ask

__all__ = ["NOT_YOUR_MATCH", "say"]

NOT_YOUR_MATCH = N_("This is not your match: only its two players can act in it.")

CALLED_OFF_REASONS = {
    "expired": N_("expired"),
    "declined": N_("declined"),
    "withdrawn": N_("withdrawn"),
    "called_off": N_("called off"),
    "unreachable": N_("its channel is out of reach"),
    "bot_removed": N_("I was removed from the server"),
}
"""Why a match ended without a result, besides the games' reasons (``REASON_NAMES``)."""

STATUS_NAMES = {
    "challenged": N_("not started"),
    "setup": N_("in setup"),
    "active": N_("in play"),
    "finished": N_("finished"),
    "aborted": N_("called off"),
}
"""A match's status as the reader reads it, when it has no end reason."""

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
    """A refusal raised with words of the reading side's own (``WrongStatus(_("..."))``) reads
    as them; one of the services' without its own words is a failure, logged."""
    if not is_dataclass(error) and error.args:
        return str(error.args[0])
    log.error("no words for the refusal %s", type(error).__name__)
    return _(FAILED)


@_word.register
def _game(error: GameRefused) -> str:
    return str(error.error)


@_word.register
def _tournament(error: TournamentRefused) -> str:
    return tournament_words(error)


# --- matches -----------------------------------------------------------------------------


def _mention(user_id: int) -> str:
    return f"<@{user_id}>"


def ended(reason: str) -> str:
    """How a match ended (its end reason), or where it stands (its status), as read."""
    if reason in REASON_NAMES:
        return reason_name(reason)
    if reason in CALLED_OFF_REASONS:
        return _(CALLED_OFF_REASONS[reason])
    return _(STATUS_NAMES[reason]) if reason in STATUS_NAMES else reason


@_word.register
def _no_match(error: NoMatch) -> str:
    return _("There is no match #{id}.", id=error.match_id)


@_word.register
def _none_here(error: NoMatchHere) -> str:
    title = games.get(error.game).title
    if not error.count:
        return _(
            "You have no {game} match in this channel: start one with {command}.",
            game=title,
            command=command(f"{error.game} challenge"),
        )
    return _(
        "You have {n} {game} matches in this channel: use the buttons on the board of "
        "the one you mean.",
        n=error.count,
        game=title,
    )


@_word.register
def _not_a_player(error: NotAPlayer) -> str:
    match error.step:
        case PlayerStep.RESIGN:
            return _("This is not your match: only its two players can resign it.")
        case PlayerStep.REMATCH:
            return _("Only the two players of this match can ask for a rematch.")
        case _other:
            return _(NOT_YOUR_MATCH)


@_word.register
def _only_member(error: OnlyMember) -> str:
    member = _mention(error.member_id)
    if error.step == ChallengeStep.WITHDRAW:
        return _("Only {member} can withdraw this challenge.", member=member)
    return _("Only {member} can accept or decline this challenge.", member=member)


@_word.register
def _own_open(error: OwnOpenChallenge) -> str:
    return _(
        "This is your own open challenge: another member may accept it, and you may withdraw it."
    )


@_word.register
def _open_not_declined(error: OpenNotDeclined) -> str:
    return _("Nobody declines an open challenge: leave it, and it expires by itself.")


@_word.register
def _others_turn(error: OthersTurn) -> str:
    if error.member_id is None:
        return _("Nothing is asked of you right now: wait for the other player.")
    who = _mention(error.member_id)
    if error.ask is Ask.HINT:
        return _("It is not your turn: it is {member}'s turn to choose a hint.", member=who)
    if error.ask is Ask.SECRET:
        return _("It is not your turn: {member} is still choosing a secret.", member=who)
    return _("It is not your turn: it is {member}'s turn to move.", member=who)


@_word.register
def _nothing_asked(error: NothingAsked) -> str:
    return _("Nothing is asked of you right now: the other player is to act.")


@_word.register
def _moved_on(error: MovedOn) -> str:
    return _("That was already played: the match has moved on. Use the latest board.")


@_word.register
def _busy_match(error: MatchBusy) -> str:
    return _("The match is busy: try again in a moment.")


@_word.register
def _not_open(error: NotOpen) -> str:
    return _("This challenge is no longer open.")


@_word.register
def _taken(error: ChallengeTaken) -> str:
    return _("{member} took this challenge first: it is taken.", member=_mention(error.member_id))


@_word.register
def _not_started(error: NotStarted) -> str:
    return _("This match has not started: the challenge must be accepted first.")


@_word.register
def _over(error: MatchOver) -> str:
    match error.step:
        case OverStep.PLAY:
            return _("This match is over ({reason}): start a new one.", reason=ended(error.reason))
        case OverStep.END:
            return _("This match is already over ({reason}).", reason=ended(error.reason))
        case OverStep.CALL_OFF:
            return _("This match is already over.")
        case _other:
            return _("This match is over.")


@_word.register
def _rematch(error: RematchTooEarly) -> str:
    return _("A rematch can be offered once this match is over.")


@_word.register
def _nothing_due(error: NothingDue) -> str:
    return _("Nothing is due on this match.")


@_word.register
def _not_asked(error: NotAsked) -> str:
    """Why an answer made for another ask is refused (it never quotes the answer)."""
    if error.asked is Ask.ACTION:
        engine = games.get(error.game)
        return _(
            "That answers something I asked you privately, and it is already answered: nothing "
            "was played. Make your move with the board's buttons or {command}.",
            command=command(f"{engine.name} {engine.move_command}"),
        )
    if error.asked is Ask.SECRET:
        return _(
            "That is not what I am asking you for now: I am waiting for your secret, which you "
            "choose in the DM I sent you. Nothing was played."
        )
    return _(
        "That is not what I am asking you for now: I am waiting for the hint you give, which "
        "you choose in the DM I sent you. Nothing was played."
    )


# --- challenges and the queue ------------------------------------------------------------


@_word.register
def _self(error: SelfChallenge) -> str:
    return _("You cannot challenge yourself: pick another member.")


@_word.register
def _bot_account(error: BotAccount) -> str:
    return _(
        "Bot accounts cannot play: challenge a member of this server, or me for a "
        "match against the built-in player."
    )


@_word.register
def _no_bot(error: NoBotHere) -> str:
    return _("I cannot play here.")


@_word.register
def _level(error: UnknownLevel) -> str:
    return _(
        "Unknown level {level}: choose one of {levels}.",
        level=repr(error.level),
        levels=", ".join(error.levels),
    )


@_word.register
def _level_vs_members(error: LevelVsBotOnly) -> str:
    return _("A level applies only to a match against me, the bot.")


@_word.register
def _not_queued(error: NotQueued) -> str:
    if error.gone:
        return _("You are no longer waiting: you were paired, left, or waited too long.")
    return _("You are not waiting in this queue.")


@_word.register
def _not_found(error: NoFinishedMatch) -> str:
    return _("There is no finished match #{id} in this server.", id=error.match_id)


@_word.register
def _no_puzzle(error: NoPuzzle) -> str:
    return _("There is no puzzle #{id} here.", id=error.puzzle_id)


@_word.register
def _no_puzzle_left(error: NoPuzzleLeft) -> str:
    if error.game is not None:
        return _(
            "No {game} puzzle is left for you here: you answered each one, or it comes from a "
            "match you played. Rated matches here bring new ones.",
            game=_(games.get(error.game).title),
        )
    return _(
        "No puzzle is left for you here: you answered each one, or it comes from a match you "
        "played. Rated matches here bring new ones."
    )


@_word.register
def _not_a_choice(error: NotAChoice) -> str:
    return _(
        "{action} is not one of this puzzle's choices: press one of its buttons ({choices}).",
        action=error.action,
        choices=", ".join(error.choices),
    )


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
def _reviews(error: ReviewsTooOften) -> str:
    return n_(
        "You asked for {n} new review in the last minute, as many as one member may: you may "
        "ask again <t:{at}:R>. Reviews already made open at any time.",
        "You asked for {n} new reviews in the last minute, as many as one member may: you may "
        "ask again <t:{at}:R>. Reviews already made open at any time.",
        error.most,
        at=math.ceil(error.retry_at.timestamp()),
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


# --- seasons -----------------------------------------------------------------------------


@_word.register
def _no_season(error: NoSeason) -> str:
    if error.latest is None:
        return _(
            "No season has started in this server yet: the first starts with its first rated "
            "match, unless seasons are off ({command}).",
            command=command("settings season_length:"),
        )
    return _(
        "There is no season {number} in this server: write current, or a number from 1 to "
        "{latest}.",
        number=error.number,
        latest=error.latest,
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


@_word.register
def _rank_taken(error: RankTaken) -> str:
    return rank_words.refused(error)


@_word.register
def _too_many_ranks(error: TooManyRanks) -> str:
    return rank_words.refused(error)


@_word.register
def _no_such_rank(error: NoSuchRank) -> str:
    return rank_words.refused(error)
