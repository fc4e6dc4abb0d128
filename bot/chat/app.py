"""The Discord bot: start-up (schema, buttons, commands), the deadline sweeper, and shut-down."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any

import discord
import yarl
from discord import app_commands
from discord.ext import commands, tasks
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.chat import games as game_modules
from bot.chat.buttons import DYNAMIC_ITEMS, on_form_submit
from bot.chat.delivery import FAILED, Delivery, log_failure
from bot.fleet import Fleet, FleetRefused
from bot.service.matches import Clock, MatchService
from bot.settings import Settings
from db import migrate
from db.engine import create_engine, optimize, session_factory
from db.models import utcnow

log = logging.getLogger(__name__)

SCOPES = ("bot", "applications.commands")
PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    embed_links=True,
    read_message_history=True,
)
"""All the bot needs in a channel; nothing more is asked for in the invite."""

COMMAND_HASH_KEY = "command_tree_hash"
EXTENSIONS = ("bot.chat.common", "bot.chat.dms")
"""Loaded at start, after each game's command group: the shared commands and typed DMs."""
CLOSE_GRACE = 10.0
"""Seconds shut-down waits for requests in progress to finish."""


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
    return discord.utils.oauth_url(application_id, permissions=PERMISSIONS, scopes=SCOPES)


class Parlor(commands.AutoShardedBot):
    """The bot. ``engine``, ``clock`` and ``seeds`` may be injected (tests drive time with them).

    It runs the shards ``SHARD_IDS`` names, of ``SHARD_COUNT`` in all; unset, every shard, as many
    as Discord recommends. Other processes may run the other shards on the same PostgreSQL
    database (docs/scaling.md).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        engine: AsyncEngine | None = None,
        clock: Clock = utcnow,
        seeds: Callable[[], int] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents(),
            help_command=None,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False),
            **shard_options(settings),
            **options,
        )
        self.settings = settings
        self._owns_engine = engine is None
        self.engine = engine or create_engine(settings.database_url)
        self.fleet = Fleet(self.engine, settings.shards(), settings.shard_count)
        self.service = MatchService(
            session_factory(self.engine),
            clock=clock,
            seeds=seeds or (lambda: secrets.randbits(62)),
            timeouts=settings.timeouts(),
        )
        self.delivery = Delivery(self, self.service)
        self.sweeper = tasks.loop(seconds=settings.sweep_interval)(self._sweep)
        self.sweeper.before_loop(self.wait_until_ready)
        self._sweeping = asyncio.Lock()
        self._in_progress = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self.refused: FleetRefused | None = None
        """Why the bot stopped itself: another process took its shards while it was cut off."""
        self._stopping: asyncio.Task[None] | None = None

    async def setup_hook(self) -> None:
        # Logged in by now, and no command can arrive before the gateway connects.
        assert self.user is not None
        self.service.bot_user_id = self.user.id
        await migrate.upgrade(self.engine)
        await self.fleet.join()  # before anything that answers members or acts on matches
        await optimize(self.engine)
        self.tree.error(self.on_app_command_error)
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        self.add_listener(self.delivery.on_guild_message, "on_message")
        self.add_listener(on_form_submit, "on_interaction")
        for module in game_modules.MODULES.values():
            await module.setup(self)
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        await self.sync_commands()
        if self.application_id is not None:
            log.info("Invite link: %s", invite_url(self.application_id))
        self.sweeper.start()

    async def on_ready(self) -> None:
        assert self.user is not None
        log.info("Logged in as %s (id %s) in %d servers", self.user, self.user.id, len(self.guilds))
        shards = ", ".join(map(str, sorted(self.shards)))
        log.info("Running shard %s of %s", shards, self.shard_count)

    async def on_app_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        """Answer a slash command that failed before or outside the match service, privately."""
        if isinstance(error, app_commands.MissingPermissions):
            text = "You need the Manage Server permission for this command."
        elif isinstance(error, app_commands.NoPrivateMessage):
            text = "This command works in a server channel, not in DMs."
        else:
            cause = error.original if isinstance(error, app_commands.CommandInvokeError) else error
            log_failure("command of user %s failed", interaction.user.id, error=cause)
            text = FAILED
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)

    async def close(self) -> None:
        """Stop the sweeper, let requests in progress finish, log out, release the database.

        Work is never cancelled in the middle of a query: a database connection whose query
        was cancelled may hang the shut-down (and the query's transaction is lost anyway).
        """
        async with self._sweeping:
            self.sweeper.cancel()  # now asleep or waiting for the lock: a safe point
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), CLOSE_GRACE)
        await super().close()
        await self.fleet.leave()
        if self._owns_engine:
            await self.engine.dispose()

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

    # ------------------------------------------------------------------ commands

    async def sync_commands(self) -> None:
        """Register the slash commands with Discord.

        With ``DEV_GUILD_ID`` they go to that server only, at once, from the process that runs
        its shard. Otherwise they are synced globally, but only when they changed since the last
        sync (a hash of the payload is kept in the database): Discord limits how often commands
        may be created each day. Processes sharing the database take turns, so the first one
        syncs and the others find the commands unchanged.
        """
        guild_id = self.settings.dev_guild_id
        if guild_id and not self.fleet.runs(guild_id):
            return
        if guild_id:
            guild = discord.Object(guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("Synced %d commands to server %s", len(synced), guild_id)
            return
        digest = self.command_hash()
        async with self.fleet.turn("commands"):
            if await self.service.remembered(COMMAND_HASH_KEY) == digest:
                log.info("Commands unchanged since the last sync: not syncing")
                return
            synced = await self.tree.sync()
            await self.service.remember(COMMAND_HASH_KEY, digest)
        log.info("Synced %d global commands", len(synced))

    def command_hash(self) -> str:
        """A digest of the global command payload, to tell whether it changed."""
        payload = [command.to_dict(self.tree) for command in self.tree.get_commands()]
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    # ------------------------------------------------------------------ deadlines

    async def sweep_once(self) -> int:
        """Act on every passed deadline and post what happened; how many matches it touched."""
        reports = await self.service.sweep()
        for report in reports:
            await self.delivery.deliver(report)
        return len(reports)

    async def _sweep(self) -> None:
        try:
            await self.fleet.hold()
        except FleetRefused as refused:
            log.error("%s Stopping.", refused)
            self.refused = refused
            self._stopping = asyncio.create_task(self.close())  # which ends this loop too
            return
        except Exception:
            log_failure("checking this process's shards failed")  # the next sweep tries again
            return
        try:
            async with self._sweeping:
                count = await self.sweep_once()
        except Exception:
            # One bad sweep must not stop the loop: the next one tries again.
            log_failure("deadline sweep failed")
            return
        if count:
            log.info("Deadline sweep: %d matches", count)
