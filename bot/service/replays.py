"""A finished match looked back on: its review and its replay step by step, which its
plain-text record is written from too (``bot.chat.after_game.records``).

Both are read from what every match keeps, its seed and its event log, so matches played
before they existed are reviewed and replayed too. They open only once the match is over, when
every secret is public: a match in play is refused before anything of it is read, and a match of
another server is answered as if it did not exist. A review is computed once, when it is first
asked for, and kept in English; a reader of another language gets it computed again in theirs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.service.errors import CalledOff, NoFinishedMatch, StillInPlay
from bot.service.match_state import MAX_MATCH_ID, Clock, default_mention
from db import after_match as history
from db import site
from db.models import UNFINISHED_STATUSES, MatchStatus, utcnow
from db.site import FinishedMatch as FinishedMatch
from games import review as reviewing
from games.base import AnyGame, Outcome, Reason, Seat
from games.board import Board
from games.review import Review
from games.review.replay import replay as play_again
from games.words import language


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
    move: str
    """The action in words (``attack (2,3)``, ``Crown at (3,3)``): public now the match is over."""
    events: tuple[str, ...]
    """What happened, as the board's log said it, with the players named."""
    board: Board
    """The board after the step, as everyone sees it."""


@dataclass(frozen=True)
class Replay:
    """A finished match step by step; ``secrets`` are the end's words on every secret, which a
    replay shows beside each step's board."""

    match: FinishedMatch
    title: str
    steps: tuple[ReplayStep, ...]
    secrets: tuple[str, ...]


@dataclass(frozen=True)
class ReviewShown:
    """A finished match and its review."""

    match: FinishedMatch
    title: str
    review: Review


class Replays:
    """Reviews, replays and records of finished matches, each checked against its server."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        clock: Clock = utcnow,
        mention: Callable[[int], str] = default_mention,
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.mention = mention

    async def finished(self, guild_id: int, match_id: int) -> FinishedMatch:
        """The match, if it is the server's and finished; refused otherwise, saying why."""
        async with self.sessions() as session:
            return await _finished(session, guild_id, match_id)

    async def review(self, guild_id: int, match_id: int) -> ReviewShown:
        """The match's review in the reader's language.

        The kept review is in English: an English reader gets it (computed now, in a worker
        thread, and kept if there is none yet); a reader of another language gets it computed
        again in theirs, which is pure and takes a few tens of milliseconds.
        """
        english = language() == "en"  # the language games.review words it in
        async with self.sessions() as session:
            match = await _finished(session, guild_id, match_id)
            stored = await history.stored_review(session, match_id) if english else None
        if stored is not None and stored[0] == reviewing.FORMAT_VERSION:
            return ReviewShown(match, _title(match), Review.load(stored[1]))
        # The worker thread runs in a copy of this context, so it words in the reader's language.
        review = await asyncio.to_thread(review_of, match)
        if english:
            async with self.sessions.begin() as session:
                await history.store_review(
                    session, match_id, review.version, review.dump(), self.clock()
                )
        return ReviewShown(match, _title(match), review)

    async def replay(self, guild_id: int, match_id: int) -> Replay:
        """The match step by step, events worded with the players' mentions."""
        match = await self.finished(guild_id, match_id)
        return replay_of(match, tuple(self.mention(uid) for uid in match.players))


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


def review_of(match: FinishedMatch) -> Review:
    """The review of ``match`` (pure; a few tens of milliseconds at most)."""
    try:
        return reviewing.review(match.game, match.options, match.seed, match.actions)
    except ValueError:
        if (outcome := outside_ending(match)) is None:
            raise
        return reviewing.review(
            match.game, match.options, match.seed, match.actions, outcome=outcome
        )


def replay_of(match: FinishedMatch, names: Sequence[str]) -> Replay:
    """The steps of ``match``, its events worded with ``names`` (by seat)."""
    played = _played_again(match)
    engine = played.game
    start = engine.new(match.options, match.seed)
    steps = [ReplayStep(0, None, "", (), _board(engine, start))]
    for step in played.steps:
        events = tuple(e.render(names) for e in step.events if e.public)
        move = engine.word(step.action)
        steps.append(ReplayStep(len(steps), step.seat, move, events, _board(engine, step.after)))
    secrets: tuple[str, ...] = ()
    last = played.steps[-1].after if played.steps else start
    if engine.outcome(last) is None:
        _state, ending = engine.conclude(last, played.outcome)
        events = tuple(e.render(names) for e in ending if e.public)
        steps.append(ReplayStep(len(steps), None, "", events, _board(engine, played.final)))
        secrets = tuple(e.render(names) for e in ending if e.kind == "reveal")
    else:
        secrets = tuple(
            e.render(names) for step in played.steps for e in step.events if e.kind == "reveal"
        )
    return Replay(match, engine.title, tuple(steps), secrets)


def _board(engine: AnyGame, state: Any) -> Board:
    return engine.board(engine.view(state, None))
