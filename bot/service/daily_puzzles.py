"""The daily puzzle: one puzzle a UTC day in each server that set a puzzle channel, the same for
everyone there, and what its post shows (how many tried and solved, the first solvers).

The day's puzzle is chosen from the server's puzzles and the public pool by a digest of the
server and the day, so any process, at any time of the day, chooses the same one. Its row in
``daily_puzzles`` is written before anything is posted; ``version`` counts its changes (each
answer counted) and ``shown`` the change its message last showed, so a sweep posts and edits
what is behind, after downtime too, and a post is never made twice for one day: the row is
made once (its key is the server and the day), and marked posted with its message's id.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.match_state import Clock
from bot.service.puzzle_finding import PublicPool
from bot.service.puzzles import PuzzleShown, scopes_of, shown_of
from db import puzzles as stored
from db.connection import session_of, session_transaction
from db.models import DailyPuzzle, utcnow

__all__ = ["DailyPost", "DailyPuzzles", "day_of", "pick"]

BEHIND_PER_ROUND = 50
"""Posts and edits a sweep round makes at most."""


def day_of(clock: Clock) -> str:
    """The UTC day it is: ``YYYY-MM-DD``."""
    return clock().date().isoformat()


def pick(guild_id: int, day: str, ids: list[int]) -> int:
    """The day's puzzle of ``ids``, the same for any process that asks."""
    digest = hashlib.sha256(f"{guild_id}:{day}".encode()).digest()
    return ids[int.from_bytes(digest[:8], "big") % len(ids)]


@dataclass(frozen=True)
class DailyPost:
    """A daily post as it must now read."""

    guild_id: int
    day: str
    channel_id: int
    message_id: int | None
    """``None`` until it is posted."""
    version: int
    shown: PuzzleShown
    tries: int
    solves: int
    first_solvers: tuple[int, ...]
    yesterday: PuzzleShown | None
    """The day before's puzzle in the server, whose answer this post may tell."""


class DailyPuzzles:
    """The daily puzzle's use cases, each one transaction of ``sessions``."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        clock: Clock = utcnow,
        pool: PublicPool | None = None,
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.pool = pool

    async def set_channel(self, guild_id: int, channel_id: int | None) -> None:
        """Post the daily puzzle in ``channel_id`` from now on (``None``: no daily puzzle). A
        post made today stays where it is."""
        async with session_transaction(self.sessions) as session:
            await stored.set_puzzle_channel(session, guild_id, channel_id, self.clock())

    async def channel(self, guild_id: int) -> int | None:
        async with session_of(self.sessions) as session:
            return await stored.puzzle_channel(session, guild_id)

    async def plan(self, runs: Callable[[int], bool] = lambda guild_id: True) -> int:
        """Choose today's puzzle in each server with a puzzle channel that has none yet (of the
        servers this process ``runs``): how many were chosen."""
        day = day_of(self.clock)
        async with session_of(self.sessions) as session:
            channels = [
                (guild, channel)
                for guild, channel in await stored.puzzle_channels(session)
                if runs(guild) and await stored.daily(session, guild, day) is None
            ]
        if channels and self.pool is not None:
            await self.pool.ensure()
        chosen = 0
        for guild_id, channel_id in channels:
            async with session_transaction(self.sessions) as session:
                ids = await stored.scope_puzzle_ids(session, scopes_of(guild_id))
                if ids and await stored.add_daily(
                    session, guild_id, day, pick(guild_id, day, ids), channel_id
                ):
                    chosen += 1
        return chosen

    async def behind(self, runs: Callable[[int], bool] = lambda guild_id: True) -> list[DailyPost]:
        """The daily posts whose message does not show their latest change (of the servers this
        process ``runs``), oldest first."""
        async with session_of(self.sessions) as session:
            rows = await stored.dailies_behind(session, BEHIND_PER_ROUND)
            return [await _post(session, row) for row in rows if runs(row.guild_id)]

    async def shown(
        self, guild_id: int, day: str, version: int, message_id: int | None = None
    ) -> None:
        """The post now shows ``version`` (and was posted as ``message_id``)."""
        async with session_transaction(self.sessions) as session:
            await stored.mark_shown(session, guild_id, day, version, message_id)


async def _post(session: AsyncSession, row: DailyPuzzle) -> DailyPost:
    puzzle = await stored.puzzle_in(session, row.puzzle_id, scopes_of(row.guild_id))
    assert puzzle is not None  # chosen from these scopes; a puzzle is never moved
    before = (date_of(row.day) - timedelta(days=1)).isoformat()
    earlier = await stored.daily(session, row.guild_id, before)
    yesterday = None
    if earlier is not None:
        found = await stored.puzzle_in(session, earlier.puzzle_id, scopes_of(row.guild_id))
        yesterday = shown_of(found) if found is not None else None
    return DailyPost(
        row.guild_id,
        row.day,
        row.channel_id,
        row.message_id,
        row.version,
        shown_of(puzzle),
        row.tries,
        row.solves,
        tuple(row.first_solvers),
        yesterday,
    )


def date_of(day: str) -> date:
    return date.fromisoformat(day)
