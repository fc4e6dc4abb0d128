"""Channels the bot cannot post in, on the Discord side: what a refused delivery means, and
what the players are told when a match is called off for it.

- Missing access (50001), a missing permission (50013) or a locked thread (160005) make the
  channel unreachable: ``bot.service.reach.Reach`` holds it, so its matches' deadlines wait and
  nobody loses on time. While it is held, its boards are not even tried (``holds``): they stay
  owed in the outbox, and ``bot.chat.matches.hold_retries`` tries again.
- An archived thread (50083) goes through ``thread_archived``: held the same way for now;
  reviving the thread (a post in it unarchives it) hooks in there.
- A channel that is gone (10003) has its matches called off at once.

Players are told "called off" by DM only for a match that really was called off: never for one
that ended otherwise meanwhile.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime

import discord

from bot.chat.boards import render
from bot.chat.components import Post
from bot.chat.dms.send import DirectMessages
from bot.chat.matches.called_off import called_off_text
from bot.chat.matches.threads import result_line
from bot.chat.sending import THREAD_ARCHIVED, UNKNOWN_CHANNEL, nonce
from bot.i18n import _
from bot.service.errors import REFUSALS
from bot.service.notices import MatchSnapshot, Report
from bot.service.reach import Reach

log = logging.getLogger(__name__)


class OutOfReach(Exception):
    """A board was not shown: its channel is out of the bot's reach for now."""

    def __init__(self, channel_id: int) -> None:
        super().__init__(f"channel {channel_id} is out of reach")
        self.channel_id = channel_id


class ChannelReach:
    """Which channels this process leaves alone for now, and what it does when one is lost.

    ``held_here`` mirrors the holds in the database (``Reach.held``), refreshed every sweep, so
    that a board of a held channel costs no request at all: every refused request counts toward
    Discord's limit of invalid requests.
    """

    def __init__(
        self,
        reach: Reach,
        dms: DirectMessages,
        *,
        call_off: Callable[[int, str], Awaitable[Report]],
    ) -> None:
        self.reach = reach
        self.dms = dms
        self.call_off = call_off
        self.held_here: set[int] = set()
        self.resuming: dict[int, datetime] = {}
        """Channels being tried again, with when they went out of reach: refused again, the
        hold goes on from then, so a channel never let back in is called off in the end."""

    def holds(self, channel_id: int) -> bool:
        """Whether the channel is out of reach now: its boards wait."""
        return channel_id in self.held_here

    def known(self, channel_ids: Iterable[int]) -> None:
        """The channels held now, as the database says (another process may hold or release)."""
        self.held_here = set(channel_ids)

    async def lost(self, snap: MatchSnapshot, error: discord.HTTPException) -> bool:
        """Discord refused to show the match's board with one of ``UNREACHABLE``'s codes;
        whether its channel is held now (otherwise it is gone, and the match called off)."""
        log.warning(
            "match %s: its channel %s is out of reach (HTTP %s, code %s)",
            snap.id,
            snap.channel_id,
            error.status,
            error.code,
        )
        if error.code == UNKNOWN_CHANNEL:
            await self.gone(snap)
            return False
        if error.code == THREAD_ARCHIVED:
            await self.thread_archived(snap)
            return True
        await self.hold(snap.guild_id, snap.channel_id)
        return True

    async def thread_archived(self, snap: MatchSnapshot) -> None:
        """The match's thread is archived (50083): for now it is held like a channel out of
        reach, so its deadlines wait and it is called off only after a whole turn timeout.
        Reviving the thread (posting in it unarchives it, unless it is locked) belongs here."""
        await self.hold(snap.guild_id, snap.channel_id)

    async def hold(self, guild_id: int, channel_id: int) -> None:
        """Hold the channel: its matches' deadlines wait, and its boards are not tried."""
        await self.reach.hold(guild_id, channel_id, since=self.resuming.get(channel_id))
        self.held_here.add(channel_id)

    def released(self, channel_id: int) -> None:
        self.held_here.discard(channel_id)

    async def gone(self, snap: MatchSnapshot) -> None:
        """The channel no longer exists: call the match off, and tell its players if it was."""
        try:
            report = await self.call_off(snap.id, "unreachable")
        except REFUSALS:
            return  # it ended meanwhile: it was not called off
        await self._tell(report.match, lambda: called_off_text(report.match, "gone"))

    async def tell_called_off(self, snap: MatchSnapshot) -> None:
        """DM each player of a match that was called off because its channel stayed out of
        reach for a whole turn timeout."""

        def text() -> str:
            return _(
                "Match #{match} ({title}) in <#{channel}> was called off: I could not post "
                "in that channel. No result, and no rating changed.",
                match=snap.id,
                title=render.title(snap),
                channel=snap.channel_id,
            )

        await self._tell(snap, text)

    async def tell_unseen_end(self, snap: MatchSnapshot) -> None:
        """DM each player the result of a match that ended while its channel was out of reach,
        which was given up before the board saying so could be shown."""

        def text() -> str:
            return _(
                "{result} I could not show it in <#{channel}>, where I can no longer post.",
                result=result_line(snap),
                channel=snap.channel_id,
            )

        await self._tell(snap, text, kind="end")

    async def _tell(self, snap: MatchSnapshot, text: Callable[[], str], kind: str = "off") -> None:
        """DM each player ``text()``, written in their language."""
        for user_id in snap.members:
            if self.dms.is_me(user_id):
                continue
            with await self.dms.speaking_to(user_id, snap.guild_id):
                post = Post(text())
            key = nonce(snap.id, -1, kind, user_id)
            await self.dms.send_dm(user_id, post, nonce=key)
