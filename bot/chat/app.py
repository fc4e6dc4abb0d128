"""The Discord client: one per bot process, started and stopped by what the composition root
(``bot.wiring``) built around it, taking requests until shut-down begins and then finishing those
in progress."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable
from typing import Any, Protocol

import discord
import yarl
from discord import app_commands
from discord.ext import commands

from bot.chat.logs import drop_voice_warnings, hide_components
from bot.chat.readers import hear
from bot.chat.request_outcomes import COMMAND_ENDED, REFUSED, began
from bot.i18n import N_, _
from bot.settings import Settings

log = logging.getLogger(__name__)

SCOPES = ("bot", "applications.commands")
PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    create_public_threads=True,
    embed_links=True,
    read_message_history=True,
    attach_files=True,
)
"""All the bot needs in a channel (files: the rating charts; public threads: a thread per match
and tournament rounds); nothing more is asked for in the invite."""

CLOSE_GRACE = 8.0
"""Seconds shut-down waits for the sweep and the requests in progress to finish: with logging
out and closing the database, a stop takes under 10 s (a container's default grace)."""
RESTARTING = N_("Parlor is restarting: try again in a moment.")
"""The answer to a request that arrives once shut-down has begun."""
NOT_A_MEMBER = N_("That user is not a member of this server.")
"""A member option (an opponent, a record to show) naming someone outside the server."""
NOT_A_MEMBER_TO_CHALLENGE = N_(
    "That user is not a member of this server: challenge a member here, or me."
)


def intents() -> discord.Intents:
    """The default intents: none privileged (DM texts are readable without Message Content)."""
    return discord.Intents.default()


def point_at(api_base_url: str, gateway_url: str) -> None:
    """Send discord.py's REST calls and gateway connection to these URLs (process-wide).

    Discord's own by default; a rate-limit proxy or a local emulator otherwise.
    """
    discord.http.Route.BASE = api_base_url.rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


def shard_options(settings: Settings) -> dict[str, Any]:
    """discord.py's sharding options from the settings: none when they leave it to Discord."""
    shards = settings.shards()
    options: dict[str, Any] = {}
    if settings.shard_count is not None:
        options["shard_count"] = settings.shard_count
    if shards is not None:
        options["shard_ids"] = list(shards)
    return options


def invite_url(application_id: int) -> str:
    """The link that adds the bot to a server with its scopes and permissions."""
    url = discord.utils.oauth_url(application_id, permissions=PERMISSIONS, scopes=SCOPES)
    return f"{url}&integration_type=0"


def user_install_url(application_id: int) -> str:
    """The link that adds Parlor to a member's own account (a user install): its commands in
    any DM or group DM, where its matches live on their own messages."""
    return (
        f"https://discord.com/oauth2/authorize?client_id={application_id}"
        "&integration_type=1&scope=applications.commands"
    )


class Lifecycle(Protocol):
    """What the composition root starts with the client and stops before it."""

    async def start(self) -> None:
        """Logged in, before the gateway connects: the database, extensions, commands, loops."""

    async def stop(self, deadline: float) -> None:
        """Shut-down has begun: stop background work by ``deadline`` (event loop time)."""

    async def release(self) -> None:
        """Logged out: write what is pending, and let the database go."""

    async def before_identify(self, shard_id: int) -> None:
        """Before a shard IDENTIFYs: wait for its turn among the fleet's logins."""


class ParlorTree(app_commands.CommandTree["Parlor"]):
    """The slash commands; once shut-down has begun they are answered "restarting" instead."""

    async def interaction_check(self, interaction: discord.Interaction[Parlor], /) -> bool:
        hear(interaction)  # the command, and its answers, in the member's language
        began(interaction)
        if not self.client.closing:
            return True
        await interaction.response.send_message(_(RESTARTING), ephemeral=True)
        self.client.dispatch(COMMAND_ENDED, interaction, REFUSED)
        return False


class Parlor(commands.AutoShardedBot):
    """The bot's client. ``attach`` gives it its lifecycle before it starts.

    It runs the shards ``shard_ids`` names, of ``shard_count`` in all; unset, every shard, as
    many as Discord recommends. Other processes may run the other shards on the same
    PostgreSQL database (docs/scaling.md).
    """

    close_grace: float = CLOSE_GRACE

    def __init__(self, **options: Any) -> None:
        # Before discord.py's client starts logging: a failed button is logged with its
        # label, which may be a secret, and voice (which Parlor never uses) warns at start.
        hide_components()
        drop_voice_warnings()
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents(),
            help_command=None,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False),
            tree_cls=ParlorTree,
            # No message cache: nothing reads it (a board is found by id, a press carries its
            # message), and keeping the last thousand messages made every edit of one parse
            # it twice and kept them all in the collector's oldest generation.
            max_messages=None,
            **options,
        )
        self._lifecycle: Lifecycle | None = None
        self._in_progress = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self.closing = False
        """Set once shut-down has begun: new requests are answered "restarting"."""
        self._shutdown: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()
        self.refused: Exception | None = None
        """Why the bot stopped itself: another process took its shards while it was cut off."""

    def attach(self, lifecycle: Lifecycle) -> None:
        """What starts and stops with the client: the composition root's ``App``."""
        self._lifecycle = lifecycle

    async def setup_hook(self) -> None:
        # Logged in by now, and no command can arrive before the gateway connects.
        if self._lifecycle is not None:
            await self._lifecycle.start()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        # discord.py waits 5 s before each IDENTIFY but the first of the process; the
        # lifecycle waits for the turn of the shard's bucket among every process instead.
        if self._lifecycle is None:
            await super().before_identify_hook(shard_id, initial=initial)
        else:
            await self._lifecycle.before_identify(shard_id or 0)

    async def pause(self, seconds: float) -> bool:
        """Wait ``seconds``: ``True``, or ``False`` as soon as shut-down begins."""
        try:
            async with asyncio.timeout(seconds):
                await self._stopping.wait()
        except TimeoutError:
            return True
        return False

    def serves_guild(self, guild_id: int) -> bool:
        """Whether ``guild_id``'s events come to this process: its shard is one of ours."""
        count = self.shard_count or 1
        return (guild_id >> 22) % count in set(self.shards)

    def stop_refused(self, refused: Exception) -> None:
        """Stop the bot: another process took its shards (``refused`` says which)."""
        self.refused = refused
        if self._shutdown is None:
            self._shutdown = asyncio.create_task(self._close())

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Once shut-down has begun, answer a button press: nothing else will.

        Commands are answered by ``ParlorTree``; a form already open is still taken (its
        request counts as in progress).
        """
        component = interaction.type is discord.InteractionType.component
        if self.closing and component and not interaction.response.is_done():
            hear(interaction)
            await interaction.response.send_message(_(RESTARTING), ephemeral=True)

    async def close(self) -> None:
        """Stop taking requests, let those in progress finish, log out, release the database.

        Buttons and commands that arrive meanwhile are answered "restarting". Background work
        and the requests in progress get ``close_grace`` seconds in all; work still going on
        then is left to end with the process. Work is never cancelled in the middle of a query:
        a database connection whose query was cancelled may hang the shut-down (and the query's
        transaction is lost anyway).
        """
        if self._shutdown is None:
            self._shutdown = asyncio.create_task(self._close())
        await self._shutdown

    async def _close(self) -> None:
        self.closing = True
        self._stopping.set()
        deadline = asyncio.get_running_loop().time() + self.close_grace
        if self._lifecycle is not None:
            await self._lifecycle.stop(deadline)
        if not await within(deadline, self._idle.wait()):
            log.warning("Shutting down with %d requests still in progress", self._in_progress)
        await super().close()
        if self._lifecycle is not None:
            await self._lifecycle.release()

    @contextlib.asynccontextmanager
    async def busy(self) -> AsyncIterator[None]:
        """Mark the handling of one request, which shut-down waits for."""
        self._in_progress += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._in_progress -= 1
            if not self._in_progress:
                self._idle.set()


async def within(deadline: float, waiting: Awaitable[Any]) -> bool:
    """Whether ``waiting`` finished before ``deadline`` (event loop time); cancelled if not."""
    try:
        async with asyncio.timeout_at(deadline):
            await waiting
    except TimeoutError:
        return False
    return True
