"""Giving and taking rank roles: what ``RankRoles`` says is owed, carried out on Discord.

One role at a time, ``PUT`` or ``DELETE /guilds/{g}/members/{u}/roles/{r}``, not one ``PATCH``
of the member's whole list of roles: a ``PATCH`` must send every role the member has, so a role
a moderator gave or took between reading the member and writing them would be undone, and
Parlor would touch roles it was never told to manage. A rated match moves a member by one rank
at most per game (one role given, one taken), so the ``PATCH`` would save no request either;
both routes share one bucket per server (10 requests each 10 seconds), whose headers discord.py
follows. The member is read first (``GET``, another bucket) only when something must change:
a role they already have is not given again, nor counted as Parlor's, so Parlor never takes a
role it did not give.

The keeper runs on its own timer, not in the sweep: a long update (a season's end in a big
server) never holds back deadlines.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
from discord.ext import tasks

from bot.service.failures import log_failure
from bot.service.ranks import Owed, RankRoles

log = logging.getLogger(__name__)

UNKNOWN_GUILD = 10004
UNKNOWN_MEMBER = 10007
UNKNOWN_ROLE = 10011


class RankKeeper:
    """Brings members' rank roles up to date, every ``interval`` seconds once the bot is ready."""

    def __init__(self, client: discord.Client, ranks: RankRoles, interval: float) -> None:
        self.client = client
        self.ranks = ranks
        self.loop = tasks.loop(seconds=interval)(self._round)
        self.loop.before_loop(client.wait_until_ready)
        self._working = asyncio.Lock()

    def start(self) -> None:
        self.loop.start()

    async def stop(self, deadline: float) -> None:
        """Stop the loop, letting an update under way finish by ``deadline`` (what is left is
        claimed again by the next start)."""
        left = deadline - asyncio.get_running_loop().time()
        try:
            async with asyncio.timeout(max(left, 0)):
                await self._working.acquire()
        except TimeoutError:
            self.loop.stop()
            return
        self.loop.cancel()
        self._working.release()

    async def _round(self) -> None:
        async with self._working:
            try:
                await self.once()
            except Exception:
                log_failure(log, "bringing rank roles up to date failed")

    async def once(self) -> int:
        """Every update owed by now; how many members were brought up to date."""
        done = 0
        for owed in await self.ranks.due():
            done += await self.update(owed)
        return done

    async def update(self, owed: Owed) -> bool:
        """Give and take the member's rank roles as their ratings say; whether it is done."""
        change = await self.ranks.change(owed)
        if change.nothing:
            await self.ranks.applied(owed, (), ())
            return True
        http = self.client.http
        guild, user = owed.guild_id, owed.user_id
        given: list[int] = []
        taken: list[int] = []
        role: int | None = None
        """The role of the call under way (``None``: reading the member)."""
        try:
            member: Any = await http.get_member(guild, user)
            has = {int(each) for each in member.get("roles", ())}
            taken.extend(change.take - has)  # taken away by someone else: no longer Parlor's
            for role in sorted(change.give - has):
                await http.add_role(guild, user, role)
                given.append(role)
            for role in sorted(change.take & has):
                await http.remove_role(guild, user, role)
                taken.append(role)
        except discord.NotFound as error:
            if error.code in (UNKNOWN_MEMBER, UNKNOWN_GUILD):
                await self.ranks.left(owed)  # they left (or the bot was removed)
                return True
            if error.code == UNKNOWN_ROLE and role is not None:
                log.warning("server %s: the role %s was deleted; its rank goes too", guild, role)
                await self.ranks.role_gone(guild, role)
                await self.ranks.record(owed, given, taken)
                return await self.update(owed)  # without that rank: a lower one may be theirs
            raise
        except discord.Forbidden:
            # Manage Roles taken away, or the role moved above the bot's: only a manager can
            # mend it. What was done is kept; the member's next rated match tries again.
            log.warning(
                "server %s: cannot give or take rank roles (Manage Roles, or a role above mine)",
                guild,
            )
            await self.ranks.applied(owed, given, taken)
            return False
        except discord.HTTPException as error:
            log.warning("server %s: rank roles not updated: HTTP %s", guild, error.status)
            await self.ranks.applied(owed, given, taken, done=False)
            return False
        await self.ranks.applied(owed, given, taken)
        log.info("server %s: rank roles of user %s: +%s -%s", guild, user, given, taken)
        return True
