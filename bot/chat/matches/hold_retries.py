"""Trying again the channels out of the bot's reach, and giving up on them in the end.

- **At once, on a change.** Discord tells of a change that may give the bot its reach back:
  a channel's overwrites (``on_guild_channel_update``), a role's permissions
  (``on_guild_role_update``), a thread unlocked (``on_thread_update``) or unarchived
  (``on_thread_join``: discord.py drops archived threads from its cache, so one unarchived is
  new to it), the bot's own roles (``on_member_update``). Each held channel of that server
  whose permissions, as the gateway's cache now says, let the bot post is resumed: its hold is
  released (the time of deadlines that fell due meanwhile is given back) and the boards it owes
  are shown.
- **Later, per channel, with backoff.** Every sweep, a held channel whose next try is due is
  checked the same way; each try waits twice as long as the one before, up to ``MAX_BACKOFF``.
  A channel the cache does not know (an archived thread, say) is fetched, one request, and none
  is once this process has spent its share of Discord's invalid requests
  (``bot.chat.invalid_requests``). A resumed channel whose board is refused again is held again
  from when it first went out of reach.
- **In the end.** A channel out of reach for a whole turn timeout has its matches called off
  (``Reach.call_off_overdue``), and only then are their players told. It is given up: the
  boards it owes of matches that are over are forgotten, so none is tried there again (each
  would be refused and hold it anew), and the players of a match that ended there with a
  result meanwhile are told it by DM instead.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import discord

from bot.chat.app import Parlor
from bot.chat.boards.delivery import Delivery
from bot.chat.boards.redelivery import Redelivery
from bot.chat.invalid_requests import InvalidRequests
from bot.chat.matches.channel_holds import ChannelReach
from bot.service.failures import log_failure
from bot.service.reach import Hold

log = logging.getLogger(__name__)

FIRST_BACKOFF = 30.0
"""Seconds before a held channel is first tried again, doubled after each try that fails."""
MAX_BACKOFF = 600.0
"""The longest wait between two tries of one channel."""


@dataclass
class Backoff:
    """When a held channel is tried next, and how long the wait after that is."""

    due: float
    wait: float


class ReachRetries:
    """Resumes held channels when Discord says something changed, or when their try is due."""

    def __init__(
        self,
        client: Parlor,
        reach: ChannelReach,
        delivery: Delivery,
        redelivery: Redelivery,
        invalid: InvalidRequests,
        *,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.reach = reach
        self.delivery = delivery
        self.redelivery = redelivery
        self.invalid = invalid
        self.monotonic = monotonic
        self._backoff: dict[int, Backoff] = {}

    def listen(self) -> None:
        """Resume at once on the events that may give the bot its reach back."""
        client = self.client
        client.add_listener(self.on_guild_channel_update, "on_guild_channel_update")
        client.add_listener(self.on_guild_role_update, "on_guild_role_update")
        client.add_listener(self.on_thread_update, "on_thread_update")
        client.add_listener(self.on_thread_join, "on_thread_join")
        client.add_listener(self.on_member_update, "on_member_update")

    async def on_guild_channel_update(
        self, _before: discord.abc.GuildChannel, after: discord.abc.GuildChannel
    ) -> None:
        await self.changed(after.guild.id)

    async def on_guild_role_update(self, _before: discord.Role, after: discord.Role) -> None:
        await self.changed(after.guild.id)

    async def on_thread_update(self, _before: discord.Thread, after: discord.Thread) -> None:
        await self.changed(after.guild.id)

    async def on_thread_join(self, thread: discord.Thread) -> None:
        await self.changed(thread.guild.id)

    async def on_member_update(self, _before: discord.Member, after: discord.Member) -> None:
        if self.client.user is not None and after.id == self.client.user.id:
            await self.changed(after.guild.id)

    async def changed(self, guild_id: int) -> None:
        """Something in the server changed: resume each of its held channels the bot may post
        in now. Shut-down waits for it, and none starts once shut-down has begun."""
        if self.client.closing:
            return
        async with self.client.busy():
            try:
                held = await self.reach.reach.held()
                for channel_id, hold in held.items():
                    if hold.guild_id == guild_id and await self._worth_a_try(channel_id):
                        await self.resume(channel_id, hold)
            except Exception:
                log_failure(log, "server %s: resuming its channels out of reach failed", guild_id)

    async def sweep(self) -> None:
        """Every sweep: call off what stayed out of reach for a whole turn, and try again each
        held channel whose try is due."""
        overdue = await self.reach.reach.call_off_overdue()
        for report in overdue.called_off:
            await self.delivery.deliver(report)  # a tournament's pairing moves on
            await self.reach.tell_called_off(report.match)
        for snap in overdue.unseen_ends:
            await self.reach.tell_unseen_end(snap)
        held = await self.reach.reach.held()
        self.reach.known(held)
        for channel_id in list(self._backoff):
            if channel_id not in held:
                del self._backoff[channel_id]
        now = self.monotonic()
        for channel_id, hold in held.items():
            backoff = self._backoff.setdefault(channel_id, Backoff(now + FIRST_BACKOFF, 0.0))
            if now < backoff.due:
                continue
            backoff.wait = min(max(2 * backoff.wait, FIRST_BACKOFF), MAX_BACKOFF)
            backoff.due = now + backoff.wait
            if await self._worth_a_try(channel_id):
                await self.resume(channel_id, hold)

    async def resume(self, channel_id: int, hold: Hold) -> None:
        """Release the channel's hold and show what it owes: the boards whose deadline started
        again, then what the outbox still holds for it. A board refused again holds the channel
        again."""
        self.reach.resuming[channel_id] = hold.since
        try:
            reports = await self.reach.reach.release(channel_id)
            self.reach.released(channel_id)
            self._backoff.pop(channel_id, None)
            for report in reports:
                await self.delivery.deliver(report)
            await self.reach.reach.hurry(hold.guild_id, channel_id)
            await self.redelivery.sweep()  # the boards it still owes, due at once now
        finally:
            del self.reach.resuming[channel_id]

    async def _worth_a_try(self, channel_id: int) -> bool:
        """Whether the bot may post in the channel now, as the gateway's cache says; a channel
        it does not know (an archived thread, say) is fetched, while this process has invalid
        requests to spare."""
        channel = self.client.get_channel(channel_id)
        if channel is None:
            if self.invalid.exhausted():
                log.warning("channel %s: not tried again, too many invalid requests", channel_id)
                return False
            try:
                channel = await self.client.fetch_channel(channel_id)
            except discord.HTTPException:
                return False  # no access, or gone: a delivery or the turn timeout settles it
        if not isinstance(channel, discord.abc.GuildChannel | discord.Thread):
            return False
        me = channel.guild.me
        if me is None:
            return False
        try:
            allowed = channel.permissions_for(me)
        except discord.ClientException:
            return False  # a thread whose parent this process does not know
        if isinstance(channel, discord.Thread):
            if channel.archived or (channel.locked and not allowed.manage_threads):
                return False
            return allowed.view_channel and allowed.send_messages_in_threads
        return allowed.view_channel and allowed.send_messages
