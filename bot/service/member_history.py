"""A member's finished matches, page by page, and the ratings their charts draw.

Each read is one session over one server: a match or a record of another server is never
shown, whoever asks.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.service.charts import RatingPoint
from bot.service.match_state import Clock
from bot.service.stats import Standing, board
from db import after_match as history
from db.connection import session_of
from db.member_matches import MemberMatch as MemberMatch  # the Discord side reads it here
from db.member_matches import member_matches
from db.models import utcnow

PAGE_SIZE = 10
"""Matches a page of ``/history`` lists."""
MAX_PAGE = 1000
"""The last page anyone can ask for: a page is read by skipping the ones before it."""
TOP = 10
"""Members a leaderboard chart shows."""


@dataclass(frozen=True)
class HistoryPage:
    """Page ``page`` (from 0) of a member's finished matches in a server, newest first."""

    guild_id: int
    user_id: int
    game: str | None
    page: int
    matches: tuple[MemberMatch, ...]
    more: bool
    """A further page exists."""


class HistoryService:
    """Members' histories and rating series, each one read-only session."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], *, clock: Clock = utcnow):
        self.sessions = sessions
        self.clock = clock

    async def history(
        self, guild_id: int, user_id: int, game: str | None = None, page: int = 0
    ) -> HistoryPage:
        """Page ``page`` of the member's finished matches in the server (of ``game`` only)."""
        if game is not None:
            games.get(game)  # an unknown game is refused with the valid names
        page = min(max(page, 0), MAX_PAGE)
        async with session_of(self.sessions) as session:
            rows = await member_matches(
                session,
                guild_id,
                user_id,
                game=game,
                offset=page * PAGE_SIZE,
                limit=PAGE_SIZE + 1,
            )
        shown = tuple(rows[:PAGE_SIZE])
        return HistoryPage(guild_id, user_id, game, page, shown, len(rows) > PAGE_SIZE)

    async def rating_series(
        self, guild_id: int, user_id: int, game: str | None = None
    ) -> dict[str, list[RatingPoint]]:
        """The member's rating after each rated match in the server, oldest first, by game
        (the games in ``games.GAMES`` order; only those they have points in)."""
        async with session_of(self.sessions) as session:
            return await series(session, guild_id, user_id, game)

    async def top_ratings(self, guild_id: int, game: str) -> list[Standing]:
        """The game's top ``TOP`` in the leaderboard's order: the ranked members, then as many
        provisional ones as there is room for (their ``?`` and wide range shown as such; the
        inactive are left out), each named as stored at the end of their latest match (``""``
        if never)."""
        now = self.clock()
        async with session_of(self.sessions) as session:
            rows = await board(session, guild_id, game, now, section="ranked", limit=TOP)
            if len(rows) < TOP:
                rows += await board(
                    session, guild_id, game, now, section="provisional", limit=TOP - len(rows)
                )
            names = await history.latest_names(session, guild_id, (r.user_id for r in rows))
        return [replace(row, name=names.get(row.user_id, "")) for row in rows]


async def series(
    session: AsyncSession, guild_id: int, user_id: int, game: str | None = None
) -> dict[str, list[RatingPoint]]:
    """``HistoryService.rating_series`` within the caller's session (the web pages use it)."""
    found = await history.rating_points(session, guild_id, user_id, game)
    return {name: found[name] for name in games.GAMES if name in found}
