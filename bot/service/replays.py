"""A finished match looked back on: its review and its replay step by step, which its
plain-text record is written from too (``bot.chat.after_game.records``).

Both are read from what every match keeps, its seed and its event log, so matches played
before they existed are reviewed and replayed too. They open only once the match is over, when
every secret is public: a match in play is refused before anything of it is read, and a match of
another server is answered as if it did not exist. Both are data with no words of any language:
a review's texts are phrases and a replay's steps hold the game's actions and events, which the
reading side words in its reader's language (``games.review.worded``, ``Game.word``,
``Event.render``). A review is computed once per match (``bot.service.reviews``), kept in the
database and in memory, and shown to every reader from there.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.service.errors import CalledOff, NoFinishedMatch, StillInPlay
from bot.service.match_state import MAX_MATCH_ID, Clock
from bot.service.review_work import Judging, judge
from bot.service.reviews import FairUse, Reviewer
from db import after_match as history
from db import site
from db.connection import session_of, session_transaction
from db.models import UNFINISHED_STATUSES, MatchStatus, utcnow
from db.site import FinishedMatch as FinishedMatch
from games import review as reviewing
from games.base import AnyGame, Event, Outcome, Reason, Seat
from games.board import Board
from games.review import Review
from games.review.replay import replay as play_again


def outside_ending(match: FinishedMatch) -> Outcome | None:
    """How the match ended, when it ended outside the rules' own ending."""
    if match.end_reason not in {reason.value for reason in Reason}:
        return None
    return Outcome(match.winner_seat, Reason(match.end_reason))


@dataclass(frozen=True)
class ReplayStep:
    """The match after one logged action (step 0: before any)."""

    number: int
    seat: Seat | None
    """Who acted; ``None`` for the start and an end from outside the rules."""
    action: Any
    """The game's action (``Game.word`` words it: ``attack (2,3)``), public now the match is
    over; ``None`` for the start and an end from outside the rules."""
    events: tuple[Event, ...]
    """What happened that everyone heard, as the game's events (``Event.render`` words them)."""
    board: Board
    """The board after the step, as everyone sees it."""


@dataclass(frozen=True)
class Replay:
    """A finished match step by step; ``secrets`` are the end's events telling every secret,
    which a replay shows beside each step's board."""

    match: FinishedMatch
    title: str
    steps: tuple[ReplayStep, ...]
    secrets: tuple[Event, ...]

    @property
    def game(self) -> AnyGame:
        """The game's rules, which word its actions."""
        return games.get(self.match.game)


@dataclass(frozen=True)
class ReviewShown:
    """A finished match and its review (its texts phrases, worded by the reader)."""

    match: FinishedMatch
    title: str
    review: Review


class Replays:
    """Reviews, replays and records of finished matches, each checked against its server.

    ``reviewer`` computes and keeps reviews (the composition root gives it a process pool);
    ``fair_use`` bounds the computations a member starts.
    """

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        clock: Clock = utcnow,
        reviewer: Reviewer | None = None,
        fair_use: FairUse | None = None,
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.reviewer = reviewer or Reviewer()
        self.fair_use = fair_use or FairUse(clock=clock)

    async def finished(self, guild_id: int, match_id: int) -> FinishedMatch:
        """The match, if it is the server's and finished; refused otherwise, saying why."""
        async with session_of(self.sessions) as session:
            return await _finished(session, guild_id, match_id)

    def kept(self, match_id: int) -> bool:
        """Whether the match's review is kept in memory here, ready to show at once."""
        return self.reviewer.ready(match_id) is not None

    async def review(
        self, guild_id: int, match_id: int, member_id: int | None = None
    ) -> ReviewShown:
        """The match's review, asked by ``member_id`` (``None``: no member, no fair-use count).

        A review kept in memory or in the database is shown at once; one being computed is
        awaited; otherwise the member starts its computation, within their fair use
        (``ReviewsTooOften`` otherwise, and nothing started).
        """
        match = await self.finished(guild_id, match_id)
        review = self.reviewer.ready(match_id)
        if review is None:
            flight = self.reviewer.in_flight(match_id)
            if flight is None:
                if member_id is not None:
                    self.fair_use.take(member_id)
                flight = self.reviewer.fly(match_id, lambda: self._made(match, member_id))
            # Shielded: a request given up (its interaction expired) leaves it to the others.
            review = await asyncio.shield(flight)
        return ReviewShown(match, _title(match), review)

    async def _made(self, match: FinishedMatch, member_id: int | None) -> Review:
        """The match's review as the database keeps it, or computed now and kept there."""
        async with session_of(self.sessions) as session:
            stored = await history.stored_review(session, match.id)
        if stored is not None and stored[0] == reviewing.FORMAT_VERSION:
            if member_id is not None:
                self.fair_use.give_back(member_id)  # nothing was computed
            return Review.load(stored[1])
        review = await self.reviewer.compute(judging_of(match))
        async with session_transaction(self.sessions) as session:
            await history.store_review(
                session, match.id, review.version, review.dump(), self.clock()
            )
        return review

    async def replay(self, guild_id: int, match_id: int) -> Replay:
        """The match step by step, its actions and events as the game's data."""
        return replay_of(await self.finished(guild_id, match_id))


async def _finished(session: AsyncSession, guild_id: int, match_id: int) -> FinishedMatch:
    if not 0 < match_id <= MAX_MATCH_ID:
        raise NoFinishedMatch(match_id)
    status = await history.match_status(session, guild_id, match_id)
    if status is None:
        raise NoFinishedMatch(match_id)
    if status in UNFINISHED_STATUSES:
        raise StillInPlay(match_id)
    if status != MatchStatus.FINISHED:
        raise CalledOff(match_id)
    found = await site.finished_match(session, guild_id, match_id)
    if found is None:
        raise NoFinishedMatch(match_id)
    return found


def _title(match: FinishedMatch) -> str:
    return games.get(match.game).title


def _played_again(match: FinishedMatch) -> reviewing.Replay:
    """The match played again from its log; with its stored ending if its rules did not end it."""
    engine = games.get(match.game)
    try:
        return play_again(engine, match.options, match.seed, match.actions)
    except ValueError:
        if (outcome := outside_ending(match)) is None:
            raise
        return play_again(engine, match.options, match.seed, match.actions, outcome)


def judging_of(match: FinishedMatch) -> Judging:
    """What ``match``'s review is computed from, as a worker process is handed it."""
    return Judging(match.game, match.options, match.seed, match.actions, outside_ending(match))


def review_of(match: FinishedMatch) -> Review:
    """The review of ``match``, computed here (pure; a few tens of milliseconds at most)."""
    return judge(judging_of(match)).review


def replay_of(match: FinishedMatch) -> Replay:
    """The steps of ``match``, as the game's actions, events and boards."""
    played = _played_again(match)
    engine = played.game
    start = engine.new(match.options, match.seed)
    steps = [ReplayStep(0, None, None, (), _board(engine, start))]
    for step in played.steps:
        events = tuple(e for e in step.events if e.public)
        steps.append(
            ReplayStep(len(steps), step.seat, step.action, events, _board(engine, step.after))
        )
    secrets: tuple[Event, ...] = ()
    last = played.steps[-1].after if played.steps else start
    if engine.outcome(last) is None:
        _state, ending = engine.conclude(last, played.outcome)
        events = tuple(e for e in ending if e.public)
        steps.append(ReplayStep(len(steps), None, None, events, _board(engine, played.final)))
        secrets = tuple(e for e in ending if e.kind == "reveal")
    else:
        secrets = tuple(e for step in played.steps for e in step.events if e.kind == "reveal")
    return Replay(match, engine.title, tuple(steps), secrets)


def _board(engine: AnyGame, state: Any) -> Board:
    return engine.board(engine.view(state, None))
