"""Runs tournaments on Discord: records results as matches end, posts each round (in a thread of
its own where the bot may start one), posts its matches' boards, and announces the end.

``progress`` does everything a tournament needs now, under a lock per tournament so that two
callers in one process take turns; across processes the service's version checks and claims keep
each step to one process. The composition root calls it once it has delivered a report whose
match plays a tournament's pairing (``Report.match.tournament_id``), and the sweeper calls
``sweep``, a safety net that also catches what a stopped process left undone. Every step may run
again: at least once, never twice in effect.

The desk is handed what it uses: the tournament service, the function that delivers a match's
report, and the Discord client it posts with.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from typing import Any, Concatenate, Literal, ParamSpec, TypeVar

import discord

from bot.chat.readers import in_server_language
from bot.chat.tournaments import posts
from bot.chat.tournaments.buttons import signup_view
from bot.service.failures import log_failure
from bot.service.languages import Languages
from bot.service.notices import Report
from bot.service.tournaments.service import TournamentService
from bot.service.tournaments.view import TournamentView

log = logging.getLogger(__name__)

THREAD_ARCHIVE_MINUTES: Literal[10080] = 10080
"""A round's thread is archived after a week without messages: a round may take days."""
SILENT = discord.AllowedMentions.none()

Deliver = Callable[[Report], Awaitable[None]]
"""Delivers a match's report: its board, private lines and prompts."""

P = ParamSpec("P")
R = TypeVar("R")


def public(
    post: Callable[Concatenate[TournamentDesk, TournamentView, P], Awaitable[R]],
) -> Callable[Concatenate[TournamentDesk, TournamentView, P], Awaitable[R]]:
    """A desk's post about the tournament ``view``, written in its server's language."""

    async def in_language(
        desk: TournamentDesk, view: TournamentView, /, *args: P.args, **kwargs: P.kwargs
    ) -> R:
        with await desk.in_server_language(view.guild_id):
            return await post(desk, view, *args, **kwargs)

    return in_language


class TournamentDesk:
    """The Discord side of every tournament, for one bot process."""

    def __init__(
        self,
        service: TournamentService,
        deliver: Deliver,
        client: discord.Client,
        *,
        languages: Languages | None = None,
    ) -> None:
        self.service = service
        self.deliver = deliver
        self.client = client
        self.languages = languages
        """The server's language, which every tournament post is written in."""
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    async def in_server_language(self, guild_id: int) -> AbstractContextManager[None]:
        """The language of a public post in the server."""
        return await in_server_language(self.languages, guild_id)

    def _lock(self, tournament_id: int) -> asyncio.Lock:
        lock = self._locks.get(tournament_id)
        if lock is None:
            lock = self._locks[tournament_id] = asyncio.Lock()
        return lock

    async def sweep(self) -> None:
        """Move on every tournament with something to do (each on its own: one failing is
        logged and left for the next sweep)."""
        for tournament_id in await self.service.progress.needing_attention():
            try:
                await self.progress(tournament_id)
            except Exception:
                log_failure(log, "tournament %s: could not move it on", tournament_id)

    async def progress(self, tournament_id: int) -> None:
        """Record results, post new rounds, start and post their matches, announce the end."""
        async with self._lock(tournament_id):
            await self.service.progress.settle(tournament_id)
            while (number := await self.service.progress.claim_round(tournament_id)) is not None:
                if not await self._post_round(tournament_id, number):
                    break  # its claim runs out and a later sweep tries again
            for report in await self.service.progress.start_matches(tournament_id):
                await self.deliver(report)
            for report in await self.service.progress.unposted(tournament_id):
                await self.deliver(report)
            if await self.service.progress.claim_end(tournament_id):
                await self._post_end(tournament_id)

    async def _post_round(self, tournament_id: int, number: int) -> bool:
        """Post the round in the tournament's channel and start its thread; whether it was
        posted (the round's matches then go in the thread, or the channel without one)."""
        return await self._post_round_of(await self.service.progress.load(tournament_id), number)

    @public
    async def _post_round_of(self, view: TournamentView, number: int) -> bool:
        threads = self._thread_parent(view)
        content = posts.round_content(view, number, threaded=threads is not None)
        channel = threads or self._channel(view)
        try:
            message = await channel.send(
                content=content, embeds=posts.round_embeds(view, number), allowed_mentions=SILENT
            )
        except discord.HTTPException as error:
            log.warning(
                "tournament %s: could not post round %s: HTTP %s", view.id, number, error.status
            )
            return False
        where = view.channel_id
        if threads is not None:
            try:
                thread = await message.create_thread(
                    name=posts.thread_name(view, number),
                    auto_archive_duration=THREAD_ARCHIVE_MINUTES,
                )
                where = thread.id
            except discord.HTTPException as error:
                log.info(
                    "tournament %s: no thread for round %s (HTTP %s): matches go in the channel",
                    view.id,
                    number,
                    error.status,
                )
                unthreaded = posts.round_content(view, number, threaded=False)
                with contextlib.suppress(discord.HTTPException):
                    await message.edit(content=unthreaded, allowed_mentions=SILENT)
        await self.service.progress.record_round(view.id, number, where, message.id)
        log.info("tournament %s: round %s posted", view.id, number)
        return True

    async def _post_end(self, tournament_id: int) -> None:
        await self._post_end_of(await self.service.progress.load(tournament_id))

    @public
    async def _post_end_of(self, view: TournamentView) -> None:
        users = [discord.Object(view.winner_id)] if view.winner_id else []
        try:
            await self._channel(view).send(
                content=posts.end_content(view),
                embed=posts.standings_embed(view),
                allowed_mentions=discord.AllowedMentions.none().merge(
                    discord.AllowedMentions(users=users)
                ),
            )
        except discord.HTTPException as error:
            log.warning("tournament %s: could not post its end: HTTP %s", view.id, error.status)
            return
        await self.service.progress.record_end(view.id)
        log.info("tournament %s: over, winner %s", view.id, view.winner_id)

    @public
    async def announce_cancelled(self, view: TournamentView, by: int) -> None:
        """Tell the tournament's channel who cancelled it."""
        try:
            await self._channel(view).send(
                content=posts.cancelled_content(view, by), allowed_mentions=SILENT
            )
        except discord.HTTPException as error:
            log.warning(
                "tournament %s: could not announce its cancelling: HTTP %s", view.id, error.status
            )

    @public
    async def update_signup(self, view: TournamentView) -> None:
        """Show the sign-up message as the tournament now is (no buttons once it is closed)."""
        if view.message_id is None:
            return
        message = self._channel(view).get_partial_message(view.message_id)
        try:
            await message.edit(
                content=None,
                embed=posts.signup_embed(view),
                view=signup_view(view),
                allowed_mentions=SILENT,
            )
        except discord.HTTPException as error:
            log.info("tournament %s: sign-up message not updated: HTTP %s", view.id, error.status)

    def _channel(self, view: TournamentView) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(view.channel_id, guild_id=view.guild_id)

    def _thread_parent(self, view: TournamentView) -> discord.TextChannel | None:
        """The tournament's channel, if the bot may start public threads in it."""
        channel: Any = self.client.get_channel(view.channel_id)
        if not isinstance(channel, discord.TextChannel):
            return None
        me = channel.guild.me
        allowed = channel.permissions_for(me) if me is not None else None
        if allowed is None or not (
            allowed.create_public_threads and allowed.send_messages_in_threads
        ):
            return None
        return channel
