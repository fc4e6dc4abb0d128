"""A refusal in words: each typed refusal of the services is worded in the reader's language,
and a refusal raised with a ready text reads as that text."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import is_dataclass
from datetime import UTC, datetime

import pytest

from bot.chat.failures import FAILED
from bot.chat.refusals import say
from bot.i18n import LOCALES, speaking
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
    WrongStatus,
)
from bot.service.quick_pair import NotQueued
from bot.service.ranks import NoSuchRank, RankTaken, TooManyRanks
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
from games.base import Ask, IllegalAction, NotYourTurn

SAMPLES: list[MatchError | NotYourTurn] = [
    GameRefused(IllegalAction("That cell is taken.")),
    NoMatch(7),
    NoMatchHere("crown", 0),
    NoMatchHere("crown", 2),
    *(NotAPlayer(step) for step in PlayerStep),
    *(OnlyMember(11, step) for step in ChallengeStep),
    OwnOpenChallenge(),
    OpenNotDeclined(),
    OthersTurn(),
    *(OthersTurn(11, ask) for ask in (Ask.ACTION, Ask.SECRET, Ask.HINT)),
    NothingAsked(),
    MovedOn(),
    MatchBusy(),
    NotOpen(),
    ChallengeTaken(11),
    NotStarted(),
    *(MatchOver(step, "resign") for step in OverStep),
    RematchTooEarly(),
    NothingDue(),
    *(NotAsked(ask, "crown") for ask in (Ask.ACTION, Ask.SECRET, Ask.HINT)),
    SelfChallenge(),
    BotAccount(),
    NoBotHere(),
    UnknownLevel("master", ("easy", "normal")),
    LevelVsBotOnly(),
    NotQueued(),
    NotQueued(gone=True),
    NoFinishedMatch(7),
    NoPuzzle(7),
    NoPuzzleLeft(None),
    NoPuzzleLeft("crown"),
    NotAChoice("9", ("1", "2")),
    StillInPlay(7),
    CalledOff(7),
    ReviewsTooOften(6, datetime(2026, 1, 1, 12, 0, tzinfo=UTC)),
    *(LimitReached(limit, 3, 10) for limit in Limit),
    WaitTooLong(600),
    NoSeason(None, None),
    NoSeason(4, 2),
    TimeoutOutOfBounds("turn", 60, 7 * 86400, 30),
    NoSuchTournament(4),
    NotOrganizer(TournamentStep.CREATE),
    NotOrganizer(TournamentStep.START, 4, 11),
    NotOrganizer(TournamentStep.CANCEL, 4, 11),
    UnknownGame("chess", ("crown", "safe")),
    NoSuchFormat(("swiss", "knockout")),
    RoundsOnlyForSwiss(),
    OutOfRange(Setting.ROUNDS, 1, 20),
    OutOfRange(Setting.PLAYERS, 2, 64),
    *(
        TournamentClosed(4, step)
        for step in (
            TournamentStep.JOIN,
            TournamentStep.LEAVE,
            TournamentStep.START,
            TournamentStep.CANCEL,
        )
    ),
    AlreadyEntered(4),
    TournamentFull(4),
    NotEntered(4),
    TooFewPlayers(4),
    NoTournamentMeant(entrant=False),
    NoTournamentMeant(entrant=True),
    SeveralTournaments((5, 4)),
    OpenTournamentsLimit((2, 1), mine=True),
    OpenTournamentsLimit((3, 2, 1), mine=False),
    TournamentBusy(),
    RankTaken("crown", 1600, 5),
    TooManyRanks(25),
    NoSuchRank("crown", None),
    NoSuchRank(None, 7),
    NoSuchRank(None, None),
]


def typed(base: type[BaseException]) -> Iterator[type[BaseException]]:
    for kind in base.__subclasses__():
        if is_dataclass(kind):
            yield kind
        yield from typed(kind)


def test_every_typed_refusal_is_worded_in_every_language() -> None:
    every = {*typed(MatchError), *typed(NotYourTurn)}
    assert every == {type(refusal) for refusal in SAMPLES}
    for locale in LOCALES:
        with speaking(locale):
            said = [say(refusal) for refusal in SAMPLES]
            failed = say(WrongStatus(FAILED))
        assert failed not in said
        assert len(set(said)) == len(said), locale  # no two refusals read alike


@pytest.mark.parametrize(
    ("refusal", "english", "german"),
    [
        (
            LimitReached(Limit.PLAYING, 10),
            "You are already playing 10 matches: finish or resign one first.",
            "Du spielst schon 10 Partien: Beende zuerst eine oder gib eine auf.",
        ),
        (
            NoFinishedMatch(7),
            "There is no finished match #7 in this server.",
            "Auf diesem Server gibt es keine beendete Partie #7.",
        ),
        (
            TimeoutOutOfBounds("turn", 60, 7 * 86400, 30),
            "The turn timeout must be between 1 minute and 7 days (got 30 seconds).",
            "Das Zeitlimit „Zug“ muss zwischen 1 Minute und 7 Tage liegen (erhalten: 30 Sekunden).",
        ),
        (
            NotOrganizer(TournamentStep.START, 4, 11),
            "Only <@11>, who created tournament #4, or an organizer can start it.",
            None,
        ),
        (
            OpenTournamentsLimit((3, 2, 1), mine=False),
            "This server already has 3 open tournaments (#3, #2, #1), the most a server may: "
            "finish or cancel one first.",
            None,
        ),
        (TournamentClosed(4, TournamentStep.JOIN), "Sign-up for tournament #4 is closed.", None),
    ],
)
def test_a_refusal_reads_in_the_readers_language(
    refusal: MatchError, english: str, german: str | None
) -> None:
    assert say(refusal) == english
    with speaking("de"):
        worded = say(refusal)
    assert worded != english
    if german is not None:
        assert worded == german
    else:
        assert all(str(number) in worded for number in (4, 11) if str(number) in english)


def test_a_ready_text_and_an_engines_refusal_read_as_they_were_raised() -> None:
    assert say(WrongStatus("This match is over.")) == "This match is over."
    assert say(NotYourTurn("It is Bob's turn.")) == "It is Bob's turn."
    assert say(GameRefused(IllegalAction("That cell is taken."))) == "That cell is taken."


def test_a_typed_refusal_is_frozen_and_carries_no_words() -> None:
    refusal = LimitReached(Limit.PLAYING, 10)
    with pytest.raises(AttributeError):
        refusal.most = 11  # type: ignore[misc]
    assert refusal == LimitReached(Limit.PLAYING, 10)
    refusal.add_note("noted where it was caught")  # what raising and handling may set still is
    with pytest.raises(LimitReached) as raised:
        try:
            raise KeyError("a lookup")
        except KeyError:
            raise refusal from None
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
