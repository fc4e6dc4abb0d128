"""Who reads what language.

- A server's public posts (boards, announcements, tournament posts) are in its language:
  ``/settings language:`` when chosen, else the preferred locale Discord reports for the
  server, else English. The sweeper has no interaction to read it from, so both are stored.
- A member's private answers are in their client's locale, which every interaction carries.
- A member's DMs are in the locale they last used with the bot, and in the server's language
  until they have used it. A use case stores the acting member's locale (``Acting``, handed
  to it by the Discord side) in its own transaction, and only when it changed.

Each process keeps what it read for ``MAX_AGE`` seconds, and what it wrote until it changes
again, so a post or an unchanged locale costs no statement; a change made by another process
(a server's language chosen there) is read within ``MAX_AGE``.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Mapping

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.locales import LOCALES, normalise, server_language
from bot.service.acting import Acting
from bot.service.match_state import Clock
from db import languages as stored
from db.connection import Db, session_of, session_transaction
from db.models import utcnow

MAX_AGE = 60.0
"""Seconds a language read from the database is used before it is read again."""
KEPT = 100_000
"""Members whose locale a process keeps in memory (the least recently seen are dropped)."""
CHUNK = 500
"""Servers whose stored preferred locale is read in one query at start."""


class Languages:
    """The languages of servers and members, for one process."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        clock: Clock = utcnow,
        max_age: float = MAX_AGE,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.max_age = max_age
        self.monotonic = monotonic
        self._servers: dict[int, tuple[str, float]] = {}
        self._changes = 0
        """How many times a server's language was changed here: a read that a change overtook
        is not kept, or a server would read its old language for a minute."""
        """Server -> its language for public posts, and when it was read."""
        self._preferred: dict[int, str | None] = {}
        """Server -> the preferred locale stored for it, as this process knows it."""
        self._members: OrderedDict[int, tuple[str | None, float]] = OrderedDict()
        """Member -> the locale stored for them (``None``: none yet), and when it was read or
        written."""

    # ------------------------------------------------------------------ servers

    async def server(self, guild_id: int) -> str:
        """The language of the server's public posts (a shipped locale)."""
        cached = self._servers.get(guild_id)
        if cached is not None and self.monotonic() - cached[1] < self.max_age:
            return cached[0]
        changes = self._changes
        async with session_of(self.sessions) as session:
            chosen, preferred = await stored.server_language(session, guild_id)
        language = server_language(chosen, preferred)
        if changes == self._changes:
            self._servers[guild_id] = (language, self.monotonic())
        return language

    def _forget(self, guild_id: int) -> None:
        self._changes += 1
        self._servers.pop(guild_id, None)

    async def chosen(self, guild_id: int) -> str | None:
        """The language chosen with ``/settings language:`` (``None``: the server's default)."""
        async with session_of(self.sessions) as session:
            choice, _preferred = await stored.server_language(session, guild_id)
        return normalise(choice) if choice else None

    async def choose(self, guild_id: int, language: str | None) -> str:
        """Set the server's language (a shipped locale; ``None``: back to the server's
        preferred locale); the language of its public posts now."""
        if language is not None and language not in LOCALES:
            raise ValueError(f"{language!r} is not a shipped language")
        async with session_transaction(self.sessions) as session:
            await stored.choose_language(session, guild_id, language, self.clock())
        self._forget(guild_id)
        return await self.server(guild_id)

    async def preferred(self, locales: Mapping[int, str | None]) -> int:
        """Store each server's preferred locale as Discord reports it (on joining a server, at
        start, when a server changes), writing only those that changed; how many it wrote."""
        reported = {guild: locale for guild, locale in locales.items() if locale}
        unknown = [guild for guild in reported if guild not in self._preferred]
        for start in range(0, len(unknown), CHUNK):
            chunk = unknown[start : start + CHUNK]
            async with session_of(self.sessions) as session:
                found = await stored.preferred_locales(session, chunk)
            for guild in chunk:
                self._preferred[guild] = found.get(guild)
        changed = {g: loc for g, loc in reported.items() if self._preferred.get(g) != loc}
        if changed:
            async with session_transaction(self.sessions) as session:
                await stored.set_preferred_locales(session, changed, self.clock())
            for guild, locale in changed.items():
                self._preferred[guild] = locale
                self._forget(guild)
        return len(changed)

    # ------------------------------------------------------------------ members

    async def member(self, user_id: int, guild_id: int) -> str:
        """The language of a DM to the member about a match in ``guild_id``: the locale they
        last used with the bot, else the server's language."""
        cached = self._members.get(user_id)
        if cached is None or self.monotonic() - cached[1] >= self.max_age:
            async with session_of(self.sessions) as session:
                locale = await stored.member_locale(session, user_id)
            self._keep(user_id, locale)
        else:
            locale = cached[0]
        return normalise(locale) if locale else await self.server(guild_id)

    async def note(self, db: Db, acting: Acting | None) -> Acting | None:
        """Inside a use case's transaction: store the acting member's locale when it differs
        from the one this process last knew stored; what it stored, for ``noted`` once the
        transaction commits."""
        if acting is None or acting.locale is None:
            return None
        known = self._members.get(acting.user_id)
        if known is not None and known[0] == acting.locale:
            return None
        await stored.set_member_locale(db, acting.user_id, acting.locale, self.clock())
        return acting

    def noted(self, acting: Acting) -> None:
        """The transaction that stored ``acting``'s locale committed."""
        self._keep(acting.user_id, acting.locale)

    def _keep(self, user_id: int, locale: str | None) -> None:
        self._members[user_id] = (locale, self.monotonic())
        self._members.move_to_end(user_id)
        while len(self._members) > KEPT:
            self._members.popitem(last=False)
