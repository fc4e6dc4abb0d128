"""Turning a use case's ``Report`` into what members see: channel posts, DMs, ephemeral answers.

- A ``Public`` notice becomes a post in the match channel (the board and the buttons for the
  next move); the previous board loses its buttons, and the new one's id is stored with the
  match. A challenge's message is edited when it is answered, withdrawn or expires.
- A ``Private`` notice goes to the member who acted, as an ephemeral answer (or a DM reply);
  to anyone else, by DM.
- A ``Prompt`` goes by DM. When the DM is refused (403, code 50007) the channel is told, with a
  button that collects the same answer in an ephemeral message. A refused DM is never retried.

Logs name match and user ids only: never a message's text, which may hold a secret.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import weakref
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

import discord

from bot.chat import render
from bot.chat.buttons import to_view
from bot.chat.components import Post, Press
from bot.service.errors import REFUSALS, AlreadyPlayed
from bot.service.matches import MatchService
from bot.service.notices import MatchSnapshot, Private, Prompt, Public, Report

if TYPE_CHECKING:
    from bot.chat.app import Parlor

log = logging.getLogger(__name__)

CANNOT_DM = 50007
"""Discord's error code for a DM the recipient does not accept."""

NOT_YOUR_MATCH = "This is not your match: only its two players can act in it."
FAILED = "Something went wrong on my side and nothing was played. Please try again."


def log_failure(what: str, *args: object, error: BaseException | None = None) -> None:
    """Log ``error`` (default: the exception being handled) without its text.

    The text may quote a secret: a database error quotes its statement's parameters, and a
    match's state holds the match's secrets. The full traceback goes to DEBUG only.
    """
    error = error or sys.exc_info()[1]
    log.error(f"{what}: %s", *args, type(error).__name__)
    log.debug("%s", what % args, exc_info=error)


Interaction = discord.Interaction[Any]


class Actor(Protocol):
    """The member whose request produced a report, and how to answer them privately."""

    user_id: int

    async def tell(self, text: str) -> None: ...


class InteractionActor:
    """Collects private answers for one interaction; they are sent as one ephemeral followup."""

    def __init__(self, interaction: Interaction) -> None:
        self.user_id = interaction.user.id
        self.texts: list[str] = []

    async def tell(self, text: str) -> None:
        self.texts.append(text)


class MessageActor:
    """Answers a typed DM in the same DM channel; ``told`` says whether it did."""

    def __init__(self, message: discord.Message) -> None:
        self.user_id = message.author.id
        self.channel = message.channel
        self.told = False

    async def tell(self, text: str) -> None:
        self.told = True
        await self.channel.send(text)


class Delivery:
    """Sends reports to Discord for one bot (one per process)."""

    def __init__(self, client: Parlor, service: MatchService) -> None:
        self.client = client
        self.service = service
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._boards: dict[int, tuple[int, int]] = {}
        """Match id -> (version, message id) of the newest board posted by this process."""

    # ------------------------------------------------------------------ interactions

    async def run(
        self,
        interaction: Interaction,
        use_case: Callable[[], Awaitable[Report]],
        *,
        stale: Press | None = None,
    ) -> Report | None:
        """Acknowledge ``interaction`` at once, run ``use_case``, and deliver its report.

        Discord wants an answer within 3 seconds, so the interaction is deferred before any
        work: a button press silently (the board itself shows the result), a command or form
        with a private "thinking" state that the answer replaces. A refusal (``REFUSALS``)
        is answered privately with its message, and ``None`` returned. ``stale`` is the button
        pressed, if any, for ``explain``.
        """
        async with self.client.busy():
            component = interaction.type is discord.InteractionType.component
            if component:
                await interaction.response.defer()
            else:
                await interaction.response.defer(ephemeral=True, thinking=True)
            try:
                report = await use_case()
            except REFUSALS as error:
                text = await self.explain(error, stale, interaction)
                await interaction.followup.send(text, ephemeral=True)
                return None
            except Exception:
                log_failure("request of user %s failed", interaction.user.id)
                await interaction.followup.send(FAILED, ephemeral=True)
                return None
            actor = InteractionActor(interaction)
            board = await self.publish(report, actor=actor)
            texts = actor.texts or ([] if component else [_done(report, board)])
            if texts:
                await interaction.followup.send(render.fit("\n".join(texts)), ephemeral=True)
            return report

    async def explain(self, error: Exception, press: Press | None, interaction: Interaction) -> str:
        """What to tell the member whose request was refused.

        An out-of-date button says "already played" before the service knows who pressed it;
        someone outside the match is told it is not their match instead.
        """
        if isinstance(error, AlreadyPlayed) and press is not None:
            try:
                snap = await self.service.snapshot(press.match_id)
            except REFUSALS:
                return str(error)
            if interaction.user.id not in (snap.challenger_id, snap.opponent_id):
                return NOT_YOUR_MATCH
        return str(error)

    async def show(
        self,
        interaction: Interaction,
        make: Callable[[], Awaitable[Post]],
        *,
        stale: Press | None = None,
    ) -> None:
        """Answer ``interaction`` privately with the post ``make`` builds (a picker, a prompt).

        A refusal (``REFUSALS``) is answered privately instead, as in ``run``.
        """
        async with self.client.busy():
            await interaction.response.defer(ephemeral=True, thinking=True)
            try:
                post = await make()
            except REFUSALS as error:
                text = await self.explain(error, stale, interaction)
                await interaction.followup.send(text, ephemeral=True)
                return
            except Exception:
                log_failure("request of user %s failed", interaction.user.id)
                await interaction.followup.send(FAILED, ephemeral=True)
                return
            await self.reply(interaction, post)

    async def reply(self, interaction: Interaction, post: Post) -> None:
        """Answer ``interaction`` (already deferred) privately with ``post`` and its buttons."""
        view = to_view(post.layout)
        if view is None:
            await interaction.followup.send(post.content, ephemeral=True)
        else:
            await interaction.followup.send(post.content, view=view, ephemeral=True)

    async def close_picker(self, interaction: Interaction) -> None:
        """Take the buttons off the private message whose button was just used."""
        try:
            await interaction.edit_original_response(view=None)
        except discord.HTTPException as error:
            log.info(
                "could not close a picker (user %s): HTTP %s", interaction.user.id, error.status
            )

    def board_url(self, snap: MatchSnapshot) -> str:
        """A link to the match's newest board (or its challenge) in its channel."""
        newest = self._boards.get(snap.id)
        message_id = newest[1] if newest else snap.message_id
        return render.jump_url(snap.guild_id, snap.channel_id, message_id)

    def is_me(self, user_id: int) -> bool:
        """Whether ``user_id`` is the bot's own user."""
        me = self.client.user
        return me is not None and me.id == user_id

    def server_name(self, guild_id: int) -> str:
        guild = self.client.get_guild(guild_id)
        return guild.name if guild else f"server {guild_id}"

    # ------------------------------------------------------------------ reports

    async def publish(self, report: Report, *, actor: Actor | None = None) -> int | None:
        """Deliver every notice of ``report``; the id of the board message posted, if any.

        A notice that cannot be delivered is logged and skipped: the others still go out (the
        match itself is already saved). Nothing is ever sent to the bot itself: it plays its
        own seat inside the service.
        """
        board: int | None = None
        for notice in report.notices:
            if not isinstance(notice, Public) and self.is_me(notice.user_id):
                continue
            try:
                if isinstance(notice, Public):
                    board = await self._post_public(notice) or board
                elif isinstance(notice, Private):
                    await self._tell(notice, actor)
                else:
                    await self._ask(notice)
            except discord.HTTPException as error:
                log.warning(
                    "could not deliver a %s notice of match %s: HTTP %s (code %s)",
                    type(notice).__name__,
                    notice.match.id,
                    error.status,
                    error.code,
                )
            except Exception:
                log_failure(
                    "could not deliver a %s notice of match %s",
                    type(notice).__name__,
                    notice.match.id,
                )
        return board

    async def _post_public(self, notice: Public) -> int | None:
        snap = notice.match
        channel = self.client.get_partial_messageable(
            snap.channel_id, guild_id=snap.guild_id or None
        )
        lock = self._locks.get(snap.id)
        if lock is None:
            lock = self._locks[snap.id] = asyncio.Lock()
        async with lock:
            if notice.kind == "challenge":
                message = await _send(channel, render.challenge_post(snap, notice.lines))
                await self.service.set_message(snap.id, message.id)
                return message.id
            if notice.kind == "expired" or not snap.players:
                closed = render.closed_challenge_post(snap, notice.lines)
                return await _edit_or_send(channel, snap.message_id, closed)
            return await self._post_board(channel, notice)

    async def _post_board(self, channel: discord.PartialMessageable, notice: Public) -> int:
        snap = notice.match
        newest = self._boards.get(snap.id)
        if newest is not None and newest[0] > snap.version:
            # A report that lost a race to a newer one: say what happened, offer no buttons.
            post = render.board_post(notice)
            message = await _send(channel, Post(post.content, post.embed, (), post.ping))
            return message.id
        previous = newest[1] if newest else snap.message_id
        # A match against the bot starts without a challenge message to close.
        if notice.kind == "start" and not snap.vs_bot:
            accepted = (f"{render.mention(snap.opponent_id)} accepted: the match is on.",)
            closed = render.closed_challenge_post(snap, accepted)
            await _edit_or_send(channel, snap.message_id, closed)
            previous = None
        message = await _send(channel, render.board_post(notice))
        # Stored first: a later press, even in another process, finds the newest board.
        await self.service.set_message(snap.id, message.id)
        if snap.over:
            self._boards.pop(snap.id, None)
        else:
            self._boards[snap.id] = (snap.version, message.id)
        if previous is not None and previous != message.id:
            await _remove_buttons(channel, previous)
        return message.id

    async def _tell(self, notice: Private, actor: Actor | None) -> None:
        text = render.private_text(notice)
        if actor is not None and actor.user_id == notice.user_id:
            await actor.tell(text)
        elif not await self.send_dm(notice.user_id, Post(text)):
            log.info(
                "match %s: a private notice for user %s was not delivered (DMs closed)",
                notice.match.id,
                notice.user_id,
            )

    async def _ask(self, prompt: Prompt) -> None:
        snap = prompt.match
        post = render.prompt_post(
            prompt,
            server=self.server_name(snap.guild_id),
            board=self.board_url(snap),
        )
        if await self.send_dm(prompt.user_id, post):
            log.info(
                "match %s: asked user %s for a %s by DM", snap.id, prompt.user_id, prompt.ask.value
            )
            return
        log.info(
            "match %s: DMs of user %s are closed; offering the prompt in the channel",
            snap.id,
            prompt.user_id,
        )
        channel = self.client.get_partial_messageable(
            snap.channel_id, guild_id=snap.guild_id or None
        )
        await _send(channel, render.dm_refused_post(prompt))

    async def send_dm(self, user_id: int, post: Post) -> bool:
        """DM ``post`` to the user; ``False`` when they do not accept DMs from the bot.

        Tried once: a refused DM is reported to the caller, never retried.
        """
        user = self.client.get_user(user_id) or await self.client.fetch_user(user_id)
        try:
            await _send(user, post)
        except discord.Forbidden as error:
            if error.code == CANNOT_DM:
                return False
            raise
        return True


# ---------------------------------------------------------------------- sending


async def _send(target: discord.abc.Messageable, post: Post) -> discord.Message:
    allowed = discord.AllowedMentions(
        everyone=False,
        roles=False,
        replied_user=False,
        users=[discord.Object(uid) for uid in post.ping],
    )
    kwargs: dict[str, Any] = {"allowed_mentions": allowed}
    if post.content:
        kwargs["content"] = post.content
    if post.embed is not None:
        kwargs["embed"] = post.embed
    view = to_view(post.layout)
    if view is not None:
        kwargs["view"] = view
    return await target.send(**kwargs)


async def _edit_or_send(
    channel: discord.PartialMessageable, message_id: int | None, post: Post
) -> int:
    """Edit the message into ``post`` (buttons gone); post it anew if the message is gone."""
    if message_id is not None:
        try:
            await channel.get_partial_message(message_id).edit(
                content=post.content,
                view=to_view(post.layout),
                allowed_mentions=discord.AllowedMentions.none(),
            )
            return message_id
        except discord.NotFound:
            pass
    message = await _send(channel, post)
    return message.id


async def _remove_buttons(channel: discord.PartialMessageable, message_id: int) -> None:
    with contextlib.suppress(discord.NotFound):
        await channel.get_partial_message(message_id).edit(view=None)


def _done(report: Report, board: int | None) -> str:
    snap: MatchSnapshot = report.match
    link = render.jump_url(snap.guild_id, snap.channel_id, board or snap.message_id)
    if snap.status == "challenged":
        return f"Challenge posted: {link}"
    if snap.vs_bot and any(isinstance(n, Public) and n.kind == "start" for n in report.notices):
        return f"Match started against me: {link}"
    return f"Done: {link}"
