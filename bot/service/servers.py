"""What a server keeps beside its matches: its leaderboards and records, its settings, and what
the bot remembers for itself."""

from __future__ import annotations

import secrets
from collections.abc import Mapping

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.service import stats
from bot.service.errors import WaitTooLong
from bot.service.match_state import Clock
from bot.service.timeouts import Timeouts, merge_timeouts
from db import server_timeouts, site
from db.bot_meta import get_meta, set_meta
from db.connection import session_of, session_transaction
from db.models import utcnow
from db.server_options import ServerOptions, server_options, set_server_options

FALLBACK_MAX = 600
"""The longest wait a server may set before the queue offers the bot, in seconds."""

TOKEN_BYTES = 24
"""Random bytes in a server's link: 192 bits, 32 characters in the URL."""


class ServerService:
    """Stats and settings, each one transaction."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        clock: Clock = utcnow,
        timeouts: Timeouts | None = None,
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.defaults = timeouts or Timeouts()

    async def leaderboards(
        self, guild_id: int, game: str | None, limit: int
    ) -> dict[str, stats.Ladder]:
        """Each game's (or ``game``'s) best players in the server against people, ranked first,
        then the provisional and the inactive apart."""
        names = [game] if game else list(games.GAMES)
        async with session_of(self.sessions) as session:
            return await stats.leaderboards(session, guild_id, names, limit, self.clock())

    async def member_record(
        self, guild_id: int, user_id: int, game: str | None = None
    ) -> stats.MemberRecord:
        """A member's record in the server, per game, with their last finished matches."""
        async with session_of(self.sessions) as session:
            return await stats.member_record(session, guild_id, user_id, self.clock(), game)

    async def server_timeouts(self, guild_id: int) -> Timeouts:
        """The timeouts in force in the server: its own where set, the host's elsewhere."""
        async with session_of(self.sessions) as session:
            return merge_timeouts(
                self.defaults, await server_timeouts.server_timeouts(session, guild_id)
            )

    async def set_server_timeouts(self, guild_id: int, seconds: Mapping[str, int]) -> Timeouts:
        """Set some of the server's timeouts (``{"turn": 600}``); the timeouts now in force."""
        async with session_transaction(self.sessions) as session:
            if seconds:
                await server_timeouts.set_server_timeouts(
                    session, guild_id, dict(seconds), self.clock()
                )
            return merge_timeouts(
                self.defaults, await server_timeouts.server_timeouts(session, guild_id)
            )

    async def open_site(self, guild_id: int) -> str:
        """Turn the server's web pages on with a new unguessable token; the token, for its link.
        Any earlier link, and every player page's address under it, stops working."""
        token = secrets.token_urlsafe(TOKEN_BYTES)
        async with session_transaction(self.sessions) as session:
            key = secrets.token_bytes(site.PLAYER_KEY_BYTES)
            await site.open_site(session, guild_id, site.token_hash(token), key, self.clock())
        return token

    async def close_site(self, guild_id: int) -> bool:
        """Turn the server's web pages off; whether they were on."""
        async with session_transaction(self.sessions) as session:
            return await site.close_site(session, guild_id)

    async def options(self, guild_id: int) -> ServerOptions:
        """The queue's fallback wait and whether matches are played in threads."""
        async with session_of(self.sessions) as session:
            return await server_options(session, guild_id)

    async def set_options(
        self, guild_id: int, *, queue_fallback: int | None = None, threads: bool | None = None
    ) -> ServerOptions:
        """Set the queue's fallback wait (seconds, at most ten minutes) or threads on or off;
        the settings now in force."""
        values: dict[str, object] = {}
        if queue_fallback is not None:
            if not 0 <= queue_fallback <= FALLBACK_MAX:
                raise WaitTooLong(FALLBACK_MAX)
            values["queue_fallback"] = queue_fallback
        if threads is not None:
            values["threads"] = threads
        async with session_transaction(self.sessions) as session:
            if values:
                await set_server_options(session, guild_id, self.clock(), **values)
            return await server_options(session, guild_id)

    async def remembered(self, key: str) -> str | None:
        """A value the bot keeps for itself (the last command sync's digest)."""
        async with session_of(self.sessions) as session:
            return await get_meta(session, key)

    async def remember(self, key: str, value: str) -> None:
        async with session_transaction(self.sessions) as session:
            await set_meta(session, key, value, self.clock())
