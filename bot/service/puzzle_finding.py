"""Puzzles found in finished rated matches, off the event loop, and the public pool stored.

Each sweep round takes a few finished matches between two members of a server that were never
searched (``puzzle_sources``), runs ``games.puzzles.find`` on each in the executor the
composition root gives (the reviews' process pool: the search judges every move, pure Python
that would hold the interpreter lock a thread shares with the event loop), and stores what it
found in the match's server with the match marked searched, in one transaction. A match ended
while the bot was down is searched at the next round; two processes searching one match store
each position once (``Puzzle.key``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Executor

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.failures import log_failure
from bot.service.match_state import Clock
from bot.service.puzzle_work import search
from bot.service.replays import judging_of
from db import puzzles as stored
from db import site
from db.connection import session_of, session_transaction
from db.models import PUBLIC_POOL, utcnow
from games.puzzles import Puzzle
from games.puzzles import pool as public_pool

log = logging.getLogger(__name__)

SEARCHES_PER_ROUND = 4
"""Matches searched per sweep round: old matches after an upgrade are searched a few at a time."""
KEPT_PER_MATCH = 3
"""Puzzles kept from one match, the best sources first (blunders, then mistakes, then margin):
a long match does not crowd the server's puzzles."""


class PuzzleFinder:
    """Finds and stores puzzles; ``executor`` ``None`` searches in a worker thread (tests)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        clock: Clock = utcnow,
        executor: Executor | None = None,
        per_round: int = SEARCHES_PER_ROUND,
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.executor = executor
        self.per_round = per_round

    async def round(self) -> int:
        """Search the next few unsearched matches: how many puzzles were new."""
        async with session_of(self.sessions) as session:
            waiting = await stored.unsearched_matches(session, self.per_round)
        new = 0
        for guild_id, match_id in waiting:
            new += await self.search(guild_id, match_id)
        return new

    async def search(self, guild_id: int, match_id: int) -> int:
        """Search match ``match_id`` of ``guild_id`` and store its best puzzles: how many were
        new. A log that makes no finished match is marked searched with none, and logged."""
        async with session_of(self.sessions) as session:
            match = await site.finished_match(session, guild_id, match_id)
        found: list[Puzzle] = []
        if match is not None:
            try:
                found = await self._run(match)
            except ValueError:
                log_failure(log, "match %s could not be searched for puzzles", match_id)
        rows = [stored.NewPuzzle(p.game, p.key, dict(p.dump())) for p in found[:KEPT_PER_MATCH]]
        now = self.clock()
        async with session_transaction(self.sessions) as session:
            new = await stored.add_puzzles(session, guild_id, match_id, rows, now)
            await stored.mark_searched(session, match_id, new, now)
        return new

    async def _run(self, match: site.FinishedMatch) -> list[Puzzle]:
        judging = judging_of(match)
        if self.executor is None:
            return await asyncio.to_thread(search, judging)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, search, judging)


class PublicPool:
    """The shipped public pool (``games.puzzles.pool``: puzzles from the built-in players'
    matches), stored the first time a puzzle is asked for while the database holds none of it,
    so a new server has puzzles at once and a process that serves no puzzle never reads it."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        clock: Clock = utcnow,
        shipped: Callable[[], list[Puzzle]] | None = None,
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.shipped = shipped or shipped_pool
        self._held = False
        self._lock = asyncio.Lock()

    @property
    def held(self) -> bool:
        """Whether this process knows the pool is stored."""
        return self._held

    async def ensure(self) -> int:
        """Store the pool unless some of it is stored: how many puzzles were new."""
        if self._held:
            return 0
        async with self._lock:
            if self._held:
                return 0
            async with session_of(self.sessions) as session:
                held = await stored.count_puzzles(session, PUBLIC_POOL)
            new = 0
            if not held:
                puzzles = await asyncio.to_thread(self.shipped)
                rows = [stored.NewPuzzle(p.game, p.key, dict(p.dump())) for p in puzzles]
                async with session_transaction(self.sessions) as session:
                    new = await stored.add_puzzles(session, PUBLIC_POOL, None, rows, self.clock())
            self._held = True
            return new


def shipped_pool() -> list[Puzzle]:
    """Every game's shipped public pool."""
    return [puzzle for game in public_pool.GAMES for puzzle in public_pool.pool(game)]
