"""The Discord bot: start-up (schema, buttons, commands), the deadline sweeper, and shut-down."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import discord
import yarl
from discord import app_commands
from discord.ext import commands, tasks
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.chat import games as game_modules
from bot.chat.buttons import DYNAMIC_ITEMS, on_form_submit
from bot.chat.delivery import FAILED, Delivery, log_failure
from bot.chat.history import AfterGame, History, NameBook
from bot.chat.logs import drop_voice_warnings, hide_components
from bot.chat.tournament_buttons import DYNAMIC_ITEMS as SIGNUP_ITEMS
from bot.chat.tournament_desk import TournamentDesk
from bot.fleet import Fleet, FleetRefused
from bot.service.deadlines import Deadlines
from bot.service.history import HistoryService
from bot.service.match_state import Clock
from bot.service.matches import MatchService
from bot.service.outbox import Outbox
from bot.service.replays import Replays
from bot.service.servers import ServerService
from bot.service.sweeper import Sweeper
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
    attach_files=True,
)
"""All the bot needs in a channel (files: the rating charts); nothing more is asked for in the
invite."""

COMMAND_HASH_KEY = "command_tree_hash"
EXTENSIONS = ("bot.chat.common", "bot.chat.dms", "bot.chat.tournaments", "bot.chat.queue")
"""Loaded at start, after each game's command group: the shared commands, typed DMs,
tournaments and the quick-pair queue."""
CLOSE_GRACE = 8.0
"""Seconds shut-down waits for the sweep and the requests in progress to finish: with logging
out and closing the database, a stop takes under 10 s (a container's default grace)."""
RESTARTING = "Parlor is restarting: try again in a moment."
"""The answer to a request that arrives once shut-down has begun."""
NOT_A_MEMBER = "That user is not a member of this server."
"""A member option (an opponent, a record to show) naming someone outside the server."""
NOT_A_MEMBER_TO_CHALLENGE = (
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
    return discord.utils.oauth_url(application_id, permissions=PERMISSIONS, scopes=SCOPES)


class ParlorTree(app_commands.CommandTree["Parlor"]):
    """The slash commands; once shut-down has begun they are answered "restarting" instead."""

    async def interaction_check(self, interaction: discord.Interaction[Parlor], /) -> bool:
        if not self.client.closing:
            return True
        await interaction.response.send_message(RESTARTING, ephemeral=True)
        return False


class Parlor(commands.AutoShardedBot):
    """The bot. ``engine``, ``clock`` and ``seeds`` may be injected (tests drive time with them).

    It runs the shards ``SHARD_IDS`` names, of ``SHARD_COUNT`` in all; unset, every shard, as many
    as Discord recommends. Other processes may run the other shards on the same PostgreSQL
    database (docs/scaling.md).
    """

    close_grace: float = CLOSE_GRACE

    def __init__(
        self,
        settings: Settings,
        *,
        engine: AsyncEngine | None = None,
        clock: Clock = utcnow,
        seeds: Callable[[], int] | None = None,
        **options: Any,
    ) -> None:
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
            **shard_options(settings),
            **options,
        )
        self.settings = settings
        self._owns_engine = engine is None
        self.engine = engine or create_engine(settings.database_url)
        self.fleet = Fleet(self.engine, settings.shards(), settings.shard_count)
        sessions = session_factory(self.engine)
        seeds = seeds or (lambda: secrets.randbits(62))
        timeouts = settings.timeouts()
        self.names = NameBook()
        self.service = MatchService(
            sessions, clock=clock, seeds=seeds, timeouts=timeouts, names=self.names.name
        )
        count = settings.shard_count or 1  # unset: one process runs every shard
        self.deadline_service = Deadlines(
            sessions,
            clock=clock,
            seeds=seeds,
            timeouts=timeouts,
            shards=settings.shards() or tuple(range(count)),
            shard_count=count,
            names=self.names.name,
        )
        self.servers = ServerService(sessions, clock=clock, timeouts=settings.timeouts())
        self.outbox = Outbox(sessions, clock=clock)
        self.histories = HistoryService(sessions, clock=clock)
        self.after_game = AfterGame(Replays(sessions, clock=clock), self.histories, self.busy)
        self.delivery = Delivery(self, self.service)
        self.deadlines = Sweeper(self.deadline_service, settings.sweep_interval)
        self.tournaments = TournamentDesk(self)
        self.sweeper = tasks.loop(seconds=settings.sweep_interval)(self._sweep)
        self.sweeper.before_loop(self.wait_until_ready)
        self.heartbeats = tasks.loop(seconds=settings.sweep_interval)(self._heartbeat)
        self.heartbeats.before_loop(self.wait_until_ready)
        self._sweeping = asyncio.Lock()
        self._in_progress = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self.closing = False
        """Set once shut-down has begun: new requests are answered "restarting"."""
        self._shutdown: asyncio.Task[None] | None = None
        self.refused: FleetRefused | None = None
        """Why the bot stopped itself: another process took its shards while it was cut off."""
        self._stopping: asyncio.Task[None] | None = None

    async def setup_hook(self) -> None:
        # Logged in by now, and no command can arrive before the gateway connects.
        assert self.user is not None
        self.service.bot_user_id = self.deadline_service.bot_user_id = self.user.id
        await migrate.upgrade(self.engine)
        await self.fleet.join()  # before anything that answers members or acts on matches
        await optimize(self.engine)
        self.tree.error(self.on_app_command_error)
        self.add_dynamic_items(*DYNAMIC_ITEMS, *SIGNUP_ITEMS, *self.after_game.items())
        self.add_listener(self.delivery.on_guild_message, "on_message")
        self.add_listener(self.names.on_interaction, "on_interaction")
        self.add_listener(on_form_submit, "on_interaction")
        for module in game_modules.MODULES.values():
            await module.setup(self)
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        await self.add_cog(History(self.after_game))
        await self.sync_commands()
        if self.application_id is not None:
            log.info("Invite link: %s", invite_url(self.application_id))
        # Deadlines that passed while the bot was down start again, before any is swept.
        for report in await self.deadlines.start():
            await self.delivery.deliver(report)
        self.heartbeats.start()
        self.sweeper.start()

    async def on_ready(self) -> None:
        assert self.user is not None
        log.info("Logged in as %s (id %s) in %d servers", self.user, self.user.id, len(self.guilds))
        shards = ", ".join(map(str, sorted(self.shards)))
        log.info("Running shard %s of %s", shards, self.shard_count)
        # READY lists every server the bot is in (those in an outage too): matches elsewhere
        # belong to servers that removed the bot while it was away.
        async with self.busy():
            await self.service.abort_absent_guilds(
                {guild.id for guild in self.guilds}, serves=self.serves_guild
            )

    def serves_guild(self, guild_id: int) -> bool:
        """Whether ``guild_id``'s events come to this process: its shard is one of ours."""
        count = self.shard_count or 1
        return (guild_id >> 22) % count in set(self.shards)

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """Removed from a server (or the server deleted): its matches are called off, no result."""
        async with self.busy():
            await self.service.abort_guild(guild.id)

    async def on_app_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        """Answer a slash command that failed before or outside the match service, privately."""
        if isinstance(error, app_commands.MissingPermissions):
            text = "You need the Manage Server permission for this command."
        elif isinstance(error, app_commands.NoPrivateMessage):
            text = "This command works in a server channel, not in DMs."
        elif _not_a_member(error):
            command = interaction.command
            challenge = command is not None and command.name == "challenge"
            text = NOT_A_MEMBER_TO_CHALLENGE if challenge else NOT_A_MEMBER
        else:
            cause = error.original if isinstance(error, app_commands.CommandInvokeError) else error
            log_failure("command of user %s failed", interaction.user.id, error=cause)
            text = FAILED
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Once shut-down has begun, answer a button press: nothing else will.

        Commands are answered by ``ParlorTree``; a form already open is still taken (its
        request counts as in progress).
        """
        component = interaction.type is discord.InteractionType.component
        if self.closing and component and not interaction.response.is_done():
            await interaction.response.send_message(RESTARTING, ephemeral=True)

    async def close(self) -> None:
        """Stop taking requests, let those in progress finish, log out, release the database.

        Buttons and commands that arrive meanwhile are answered "restarting". The sweep and the
        requests in progress get ``close_grace`` seconds in all; work still going on then is
        left to end with the process. Work is never cancelled in the middle of a query: a
        database connection whose query was cancelled may hang the shut-down (and the query's
        transaction is lost anyway).
        """
        if self._shutdown is None:
            self._shutdown = asyncio.create_task(self._close())
        await self._shutdown

    async def _close(self) -> None:
        self.closing = True
        self.remove_dynamic_items(*DYNAMIC_ITEMS, *self.after_game.items())
        deadline = asyncio.get_running_loop().time() + self.close_grace
        self.heartbeats.cancel()
        if await _within(deadline, self._sweeping.acquire()):
            self.sweeper.cancel()  # now asleep or waiting for the lock: a safe point
            self._sweeping.release()
        else:
            self.sweeper.stop()
            log.warning("Shutting down during a deadline sweep: it did not finish in time")
        if not await _within(deadline, self._idle.wait()):
            log.warning("Shutting down with %d requests still in progress", self._in_progress)
        await super().close()
        await self.outbox.close()
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
            if await self.servers.remembered(COMMAND_HASH_KEY) == digest:
                log.info("Commands unchanged since the last sync: not syncing")
                return
            synced = await self.tree.sync()
            await self.servers.remember(COMMAND_HASH_KEY, digest)
        log.info("Synced %d global commands", len(synced))

    def command_hash(self) -> str:
        """A digest of the global command payload, to tell whether it changed."""
        payload = [command.to_dict(self.tree) for command in self.tree.get_commands()]
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    # ------------------------------------------------------------------ deadlines

    async def sweep_once(self) -> int:
        """Act on every passed deadline and post what happened, deliver what the outbox holds
        that nobody confirmed, and move on the tournaments with something left to do; how many
        matches it touched."""
        reports = await self.deadlines.round()
        for report in reports:
            await self.delivery.deliver(report)
        for item in await self.outbox.due():
            if self.delivery.delivering(item.match_id):
                await self.outbox.retry_later(item)  # its first delivery is still under way
            elif await self.delivery.redeliver(item):
                await self.outbox.forget(item)
            else:
                await self.outbox.retry_later(item)
        await self.tournaments.sweep()
        return len(reports)

    async def _heartbeat(self) -> None:
        """Record that this process's shards are up, on a timer of its own: a long sweep round
        is never taken for downtime."""
        try:
            reports = await self.deadlines.heartbeat()
        except Exception:
            log_failure("recording the heartbeat failed")  # the next one tries again
            return
        for report in reports:
            await self.delivery.deliver(report)

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


def _not_a_member(error: app_commands.AppCommandError) -> bool:
    """A user option that needs a member got a user who is not in the server.

    Discord resolves such a user without member data, and discord.py refuses to make a
    ``Member`` of it.
    """
    return isinstance(error, app_commands.TransformerError) and (
        error.type is discord.AppCommandOptionType.user and isinstance(error.value, discord.User)
    )


async def _within(deadline: float, waiting: Awaitable[Any]) -> bool:
    """Whether ``waiting`` finished before ``deadline`` (event loop time); cancelled if not."""
    try:
        async with asyncio.timeout_at(deadline):
            await waiting
    except TimeoutError:
        return False
    return True
