"""A thread per match (``/settings threads:on``): starting a match's thread, closing it at the
end, and reviving one that archived while the match went on.

When a match starts in a server that plays matches in threads, a public thread is started from
its board message (the challenge that was accepted, or the first board of a queue pairing or a
match against the bot). That message becomes a one-line heading, and the board, the calls to
act and the result go to the thread. When the match ends the heading shows the result and the
thread is archived. Where no thread can be started (a permission is missing, or the server has
Discord's maximum of active threads) the match stays in its channel, and the member whose
command hit the problem is told privately.

A thread archives itself after a week without messages (``ARCHIVE_AFTER``). Editing a board in
an archived thread fails (50083); posting in it unarchives it, unless it is locked. So the
board of a match whose thread archived is posted anew there: ``ThreadMaker.revive``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Literal

import discord

from bot.chat.boards import render
from bot.chat.boards.live import Boards
from bot.chat.components import Post
from bot.chat.dms.send import DirectMessages
from bot.chat.followups import Followups
from bot.chat.sending import MISSING_ACCESS, MISSING_PERMISSIONS, nonce
from bot.i18n import _
from bot.service.lines import PublicLine
from bot.service.match_threads import ThreadPlaces
from bot.service.notices import MatchSnapshot

log = logging.getLogger(__name__)

ARCHIVE_AFTER: Literal[10080] = 10080
"""Minutes without a message before a match's thread archives itself: a week."""
MAX_ACTIVE_THREADS = 160006
"""Discord's error code for a server that has its maximum of active threads."""
NAME_MAX = 100
SILENT = discord.AllowedMentions.none()


class ThreadMaker:
    """Starts, closes and revives matches' own threads on Discord, for one bot process."""

    def __init__(
        self,
        client: discord.Client,
        boards: Boards,
        places: ThreadPlaces,
        followups: Followups,
        dms: DirectMessages | None = None,
    ) -> None:
        self.client = client
        self.boards = boards
        self.places = places
        self.followups = followups
        """For the notice to the member whose command or press started the match."""
        self.dms = dms
        """For the notice of a match no member's command started (a queue pairing)."""
        self._settled: set[int] = set()
        """Matches whose place this process knows to be settled: nothing to ask the database."""

    async def after_board(
        self, snap: MatchSnapshot, lines: list[PublicLine], interaction: discord.Interaction | None
    ) -> None:
        """After the board of ``snap`` was shown: move a match that just started to its own
        thread, or close the thread of a match that ended. ``interaction`` is the member's
        command or press that caused the update, if any."""
        if snap.over:
            self._settled.discard(snap.id)
            if snap.thread_id is not None:
                await self._close(snap, snap.thread_id)
            return
        if snap.status == "challenged" or snap.id in self._settled:
            return
        board = self.boards.board_of(snap)
        if board is None:
            return
        self._settled.add(snap.id)
        channel = self.client.get_channel(snap.channel_id)
        opens = snap.thread_unsettled and await self.places.settle(snap.id)
        if opens and isinstance(channel, discord.TextChannel):
            await self._open(snap, lines, channel, board, interaction)
        elif channel is None:
            await self._wake(snap)

    async def _wake(self, snap: MatchSnapshot) -> None:
        """Unarchive the archived thread a match starts in (a rematch offered on the last
        board of a thread's match), so its players may use their commands there."""
        try:
            thread = await self.client.fetch_channel(snap.channel_id)
            if isinstance(thread, discord.Thread) and thread.archived and not thread.locked:
                await thread.edit(archived=False)
        except discord.HTTPException as error:
            log.info("match %s: its thread stays archived: HTTP %s", snap.id, error.status)

    async def revive(self, snap: MatchSnapshot, lines: list[PublicLine]) -> None:
        """Show the board of a match whose thread archived (an edit there failed with 50083):
        post it anew, which unarchives the thread. Raises ``discord.HTTPException`` when
        Discord refuses that too (the thread is locked, or out of reach)."""
        log.info(
            "match %s: its thread %s archived: posting the board anew", snap.id, snap.channel_id
        )
        old = self.boards.board_of(snap)
        self.boards.forget(snap.id)
        await self.boards.show(replace(snap, message_id=None), lines, self.boards.route())
        if old is not None:  # the stale board, whose buttons would only be refused
            thread = self.client.get_partial_messageable(snap.channel_id, guild_id=snap.guild_id)
            with contextlib.suppress(discord.HTTPException):
                await thread.get_partial_message(old).delete()

    # ------------------------------------------------------------------ opening

    async def _open(
        self,
        snap: MatchSnapshot,
        lines: list[PublicLine],
        channel: discord.TextChannel,
        board: int,
        interaction: discord.Interaction | None,
    ) -> None:
        allowed = channel.permissions_for(channel.guild.me)
        missing = [
            label
            for label, granted in (
                (_("Create Public Threads"), allowed.create_public_threads),
                (_("Send Messages in Threads"), allowed.send_messages_in_threads),
            )
            if not granted
        ]
        if missing:
            await self._tell(snap, interaction, partial(self._missing_text, channel, missing))
            return
        starter = channel.get_partial_message(board)
        try:
            thread = await starter.create_thread(
                name=thread_name(snap), auto_archive_duration=ARCHIVE_AFTER
            )
        except discord.HTTPException as error:
            log.warning(
                "match %s: no thread in channel %s (HTTP %s, code %s): played in the channel",
                snap.id,
                channel.id,
                error.status,
                error.code,
            )
            if error.code == MAX_ACTIVE_THREADS:
                text = partial(self._full_text, channel)
            elif error.code in (MISSING_ACCESS, MISSING_PERMISSIONS):
                both = [_("Create Public Threads"), _("Send Messages in Threads")]
                text = partial(self._missing_text, channel, both)
            else:
                return
            await self._tell(snap, interaction, text)
            return
        await self.places.moved(snap.id, thread.id)
        self.boards.forget(snap.id)
        moved = replace(snap, channel_id=thread.id, message_id=None)
        await self.boards.show(moved, lines, self.boards.route())
        heading = _(
            "**{title}**: {first} vs {second}, played in the thread below.",
            title=render.title(snap),
            first=render.names(snap)[0],
            second=render.names(snap)[1],
        )
        await self._head(starter, heading)

    @staticmethod
    def _full_text(channel: discord.TextChannel) -> str:
        return _(
            "This server has as many active threads as Discord allows, so this match is "
            "played here in {channel}. Archiving some threads makes room for the next.",
            channel=channel.mention,
        )

    @staticmethod
    def _missing_text(channel: discord.TextChannel, missing: list[str]) -> str:
        return _(
            "I could not start a thread for this match, so it is played here in {channel}. "
            "A manager can give me {permissions} in this channel, or turn threads off with "
            "`/settings threads:off`.",
            channel=channel.mention,
            permissions=", ".join(f"**{name}**" for name in missing),
        )

    async def _tell(
        self,
        snap: MatchSnapshot,
        interaction: discord.Interaction | None,
        text: Callable[[], str],
    ) -> None:
        """Tell the member whose command or press started the match, privately; without one
        (a queue pairing), its players by DM."""
        if interaction is not None:
            try:
                await self.followups.send(
                    interaction, text(), ephemeral=True, allowed_mentions=SILENT
                )
            except discord.HTTPException as error:
                log.info("match %s: the thread notice failed: HTTP %s", snap.id, error.status)
            return
        if self.dms is None:
            return
        for user_id in snap.players:
            if self.dms.is_me(user_id):
                continue
            with await self.dms.speaking_to(user_id, snap.guild_id):
                post = Post(text())
            with contextlib.suppress(discord.HTTPException):
                await self.dms.send_dm(user_id, post, nonce=nonce(snap.id, -2, "thread", user_id))

    # ------------------------------------------------------------------ closing

    async def _close(self, snap: MatchSnapshot, thread_id: int) -> None:
        """Head the thread with the match's result and archive it."""
        thread = self.client.get_channel(thread_id)
        if not isinstance(thread, discord.Thread):
            try:
                thread = await self.client.fetch_channel(thread_id)
            except discord.HTTPException as error:
                log.info("match %s: its thread is out of reach: HTTP %s", snap.id, error.status)
                return
        if not isinstance(thread, discord.Thread):
            return
        parent = self.client.get_partial_messageable(thread.parent_id, guild_id=snap.guild_id)
        await self._head(parent.get_partial_message(thread_id), result_line(snap))
        try:
            await thread.edit(archived=True)
        except discord.HTTPException as error:
            log.info("match %s: its thread was not archived: HTTP %s", snap.id, error.status)

    @staticmethod
    async def _head(starter: discord.PartialMessage, text: str) -> None:
        """Make the thread's starter message the one line ``text``."""
        try:
            await starter.edit(
                content=render.fit(text),
                embeds=[],
                attachments=[],
                view=None,
                allowed_mentions=SILENT,
            )
        except discord.HTTPException as error:
            log.info("the heading of thread %s was not edited: HTTP %s", starter.id, error.status)


def thread_name(snap: MatchSnapshot) -> str:
    """The thread's name, e.g. ``Crown · match #12``."""
    return render.title(snap)[:NAME_MAX]


def result_line(snap: MatchSnapshot) -> str:
    """The heading of a finished match's thread: its title and result, on one line."""
    first, second = render.names(snap)
    title = render.title(snap)
    if snap.winner_id is not None:
        loser = next((p for p in snap.players if p != snap.winner_id), None)
        return _(
            "**{title}**: {winner} beat {loser}.",
            title=title,
            winner=render.mention(snap.winner_id),
            loser=render.mention(loser) if loser is not None else second,
        )
    if snap.status == "finished":
        return _("**{title}**: {first} and {second} drew.", title=title, first=first, second=second)
    return _(
        "**{title}**: {first} vs {second}, called off.", title=title, first=first, second=second
    )
