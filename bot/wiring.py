"""The composition root: every part of one bot process, built around its Discord client.

``build(settings)`` gives an ``App`` whose ``client`` is ready to ``start(token)``. The client
calls the ``App`` back to start (database, fleet, cogs and buttons, commands, loops) and to stop
(loops, outbox, database). Every cog is built here with the ``Parts`` it uses, and every button
class is bound to them where it is registered. Nothing else builds a part, and no part finds
another through the client.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from typing import Any

from discord.ext import commands
from prometheus_client import CollectorRegistry
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.chat.after_game.commands import AfterGame, History, NameBook
from bot.chat.app import Parlor, invite_url, shard_options, user_install_url
from bot.chat.boards.delivery import Delivery
from bot.chat.boards.live import Boards
from bot.chat.boards.redelivery import Redelivery
from bot.chat.command_errors import CommandErrors
from bot.chat.command_sync import sync_commands
from bot.chat.command_translator import CommandTranslator
from bot.chat.dms.missed import MissedAnswers
from bot.chat.dms.send import DirectMessages
from bot.chat.dms.typed import TypedAnswers
from bot.chat.followups import Followups
from bot.chat.games import game_cogs
from bot.chat.gateway_watch import GatewayWatch
from bot.chat.invalid_requests import InvalidRequests
from bot.chat.matches.buttons import button_items
from bot.chat.matches.channel_holds import ChannelReach
from bot.chat.matches.forms import form_listener
from bot.chat.matches.hold_retries import ReachRetries
from bot.chat.matches.interactions import Interactions
from bot.chat.matches.threads import ThreadMaker
from bot.chat.parts import Parts
from bot.chat.puzzles.daily import DailyPoster
from bot.chat.puzzles.desk import PuzzleCommands, PuzzleDesk
from bot.chat.puzzles.rounds import PuzzleRounds
from bot.chat.queue.commands import QueueCog
from bot.chat.ranks.commands import Ranks
from bot.chat.ranks.keeper import RankKeeper
from bot.chat.request_watch import CommandWatch
from bot.chat.seasons.podiums import PodiumDesk
from bot.chat.servers import Servers
from bot.chat.shared_commands import Common
from bot.chat.sweeps import Sweeps
from bot.chat.tournaments.buttons import signup_items
from bot.chat.tournaments.commands import Tournaments
from bot.chat.tournaments.desk import TournamentDesk
from bot.fleet import Fleet
from bot.gauges import BotGauges
from bot.logins import STEADY, Logins, StartLimit
from bot.metrics import HealthCheck, Metrics, MetricsServer
from bot.service.daily_puzzles import DailyPuzzles
from bot.service.dm_answers import AwaitedAnswers
from bot.service.failures import log_failure
from bot.service.languages import Languages
from bot.service.match_parts import match_parts
from bot.service.match_state import Clock
from bot.service.match_threads import ThreadPlaces
from bot.service.member_history import HistoryService
from bot.service.outbox import Outbox
from bot.service.puzzle_finding import PublicPool, PuzzleFinder
from bot.service.puzzles import Puzzles
from bot.service.ranks import RankRoles
from bot.service.reach import Reach
from bot.service.replays import Replays
from bot.service.reviews import FairUse, Reviewer, review_pool
from bot.service.seasons import Seasons
from bot.service.servers import ServerService
from bot.service.sweeper import Sweeper
from bot.service.tournaments.service import tournament_service
from bot.settings import Settings
from db import migrate
from db.engine import create_engine, optimize, session_factory
from db.gauges import Counts, answers, read_counts
from db.models import utcnow

log = logging.getLogger(__name__)


class App:
    """One bot process: its client and every part around it.

    ``engine``, ``clock`` and ``seeds`` may be injected (tests drive time with them); an engine
    given is left open at the end, one made here is disposed of. ``invalid`` counts the invalid
    requests the client gets (its ``http_trace``); ``metrics``, when given, hears the process's
    workings and is served on ``METRICS_PORT`` with a health check.
    """

    def __init__(
        self,
        client: Parlor,
        settings: Settings,
        *,
        engine: AsyncEngine | None = None,
        clock: Clock = utcnow,
        seeds: Callable[[], int] | None = None,
        invalid: InvalidRequests | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.client = client
        self.metrics = metrics
        self.followups = Followups()
        """Creates every followup of the process, counted per interaction."""
        self.command_errors = CommandErrors(self.followups, client.dispatch)
        """Answers the slash commands that failed, on the client's command tree."""
        self.invalid = invalid or InvalidRequests()
        self.settings = settings
        self._owns_engine = engine is None
        self.engine = engine or create_engine(settings.database_url)
        self.fleet = Fleet(self.engine, settings.shards(), settings.shard_count)
        sessions = session_factory(self.engine)
        seeds = seeds or (lambda: secrets.randbits(62))
        timeouts = settings.timeouts()
        self.names = NameBook()
        """Members' names as interactions show them, for the texts the service writes."""
        self.languages = Languages(sessions, clock=clock)
        count = settings.shard_count or 1  # unset: one process runs every shard
        shards = settings.shards()
        self.logins = Logins(
            sessions,
            "all" if shards is None else ",".join(map(str, shards)),
            count if shards is None else len(shards),
            client.pause,
        )
        self._steady: asyncio.Task[None] | None = None
        self.matches = match_parts(
            sessions,
            clock=clock,
            seeds=seeds,
            timeouts=timeouts,
            names=self.names.name,
            languages=self.languages,
            shards=settings.shards() or tuple(range(count)),
            shard_count=count,
            observer=metrics,
        )
        matches = self.matches
        self.servers = ServerService(sessions, clock=clock, timeouts=timeouts)
        self.outbox = Outbox(sessions, clock=clock)
        self.seasons = Seasons(sessions, clock=clock)
        self.podiums = PodiumDesk(self.seasons, client, languages=self.languages)
        self.histories = HistoryService(sessions, clock=clock)
        self.review_pool = review_pool(settings.review_workers)
        """The processes reviews are computed in, started as the first is asked for."""
        replays = Replays(
            sessions,
            clock=clock,
            reviewer=Reviewer(self.review_pool),
            fair_use=FairUse(settings.reviews_per_minute, clock=clock),
        )
        self.after_game = AfterGame(
            replays, self.histories, client.busy, self.followups, observer=metrics
        )
        public_pool = PublicPool(sessions, clock=clock)
        self.puzzles = Puzzles(sessions, clock=clock, pool=public_pool)
        self.daily = DailyPuzzles(sessions, clock=clock, pool=public_pool)
        self.puzzle_desk = PuzzleDesk(self.puzzles, client.busy, self.followups, observer=metrics)
        self.boards = Boards(client, self.outbox, self.languages)
        self.awaited = AwaitedAnswers(sessions, matches.lookups, clock=clock)
        self.dms = DirectMessages(client, self.boards, self.languages, self.awaited)
        self.reach = Reach(matches.organizing, matches.deadlines, matches.lookups)
        self.channel_reach = ChannelReach(
            self.reach, self.dms, call_off=matches.organizing.call_off
        )
        self.delivery = Delivery(
            self.boards,
            self.dms,
            self.outbox,
            reach=self.channel_reach,
            tournament_moves_on=self._tournament_moves_on,
            threads=ThreadMaker(
                client, self.boards, ThreadPlaces(sessions), self.followups, self.dms
            ),
        )

        self.requests = Interactions(
            matches.lookups,
            self.boards,
            self.delivery,
            client.busy,
            self.followups,
            observer=metrics,
        )
        self.redelivery = Redelivery(matches.lookups, self.outbox, self.delivery, self.dms)
        self.retries = ReachRetries(
            client, self.channel_reach, self.delivery, self.redelivery, self.invalid
        )
        self.desk = TournamentDesk(
            tournament_service(matches), self.delivery.deliver, client, languages=self.languages
        )
        self.sweeps = Sweeps(
            client,
            self.fleet,
            Sweeper(
                matches.deadlines, settings.sweep_interval, reach=self.reach, seasons=self.seasons
            ),
            self.delivery,
            self.redelivery,
            self.retries,
            self.desk.sweep,
            settings.sweep_interval,
            upkeep=lambda: self.boards.forget_ended(matches.lookups.in_play),
            podiums=self.podiums.sweep,
        )
        self.ranks = RankRoles(sessions, clock=clock)
        """A server's rank roles; a season's end owes their update (``owe_season_update``)."""
        self.rank_keeper = RankKeeper(client, self.ranks, settings.sweep_interval)
        self.parts = Parts(
            settings=settings,
            matches=matches,
            servers=self.servers,
            seasons=self.seasons,
            histories=self.histories,
            tournaments=self.desk.service,
            requests=self.requests,
            delivery=self.delivery,
            places=self.boards,
            dms=self.dms,
            followups=self.followups,
            languages=self.languages,
            puzzles=self.puzzles,
            daily=self.daily,
        )
        self.puzzle_rounds = PuzzleRounds(
            client,
            PuzzleFinder(sessions, clock=clock, executor=self.review_pool),
            DailyPoster(
                client,
                self.daily,
                self.puzzle_desk,
                self.boards.budget,
                self.languages,
                self.fleet.runs,
            ),
            settings.sweep_interval,
        )
        self.queue = QueueCog(
            client, matches.queue, self.parts, self.channel_reach, observer=metrics
        )
        self.typed = TypedAnswers(client, self.parts, self.awaited)
        self.missed = MissedAnswers(client, self.awaited, self.typed)
        self.catching_up: asyncio.Task[None] | None = None
        """Reading the DMs typed while the bot was away (by the process that gets DMs)."""
        self._gets_dms = shards is None or 0 in shards
        self.items = (
            *button_items(self.parts),
            *signup_items(self.desk, client.busy, observer=metrics),
            *self.after_game.items(),
            *self.puzzle_desk.items(),
            self.queue.button_class,
        )
        """Every button's dynamic item class, bound to what it uses."""
        self.gateway = GatewayWatch(client, closing=lambda: client.closing)
        self.metrics_server = self._metrics_server(metrics, clock)
        client.attach(self)

    def _metrics_server(self, metrics: Metrics | None, clock: Clock) -> MetricsServer | None:
        """What serves ``metrics`` with the gauges read at each scrape and the health check."""
        if metrics is None:
            return None
        gauges = BotGauges(
            self._read_counts,
            now=clock,
            held=lambda: len(self.channel_reach.held_here),
            shards=self.gateway.readings,
            invalid=self.invalid.recent,
        )
        metrics.registry.register(gauges)
        health = HealthCheck(self._database_answers, gateway=self.gateway.connected)
        return MetricsServer(metrics.registry, health, refresh=gauges.refresh)

    async def _read_counts(self) -> Counts:
        async with self.engine.connect() as connection:
            return await read_counts(connection)

    async def _database_answers(self) -> None:
        async with self.engine.connect() as connection:
            await answers(connection)

    async def start(self) -> None:
        client = self.client
        assert client.user is not None
        port = self.settings.metrics_port
        if self.metrics_server is not None and port is not None:
            await self.metrics_server.start(self.settings.metrics_host, port)
            self.gateway.start()
        self.matches.runner.know_bot(client.user.id)
        await migrate.upgrade(self.engine)
        await self.fleet.join()  # before anything that answers members or acts on matches
        if not await self.log_in_paced():
            return  # shut-down began while waiting
        await optimize(self.engine)
        client.tree.error(self.command_errors.answer)
        client.add_dynamic_items(*self.items)
        client.add_listener(self.boards.on_guild_message, "on_message")
        client.add_listener(self.names.on_interaction, "on_interaction")
        client.add_listener(form_listener(self.parts), "on_interaction")
        self.retries.listen()
        if self.metrics is not None:
            CommandWatch(self.metrics).listen(client)
        await self.load_commands()
        await sync_commands(client.tree, self.settings.dev_guild_id, self.fleet, self.servers)
        if client.application_id is not None:
            log.info("Invite link: %s", invite_url(client.application_id))
            log.info("Add to my apps: %s", user_install_url(client.application_id))
        await self.sweeps.resume()  # before any deadline is swept
        self.sweeps.start()
        self.puzzle_rounds.start()
        self.rank_keeper.start()
        if self._gets_dms:
            self.catching_up = asyncio.create_task(self._catch_up())

    async def _catch_up(self) -> None:
        await self.client.wait_until_ready()
        try:
            await self.missed.catch_up()
        except Exception:
            log_failure(log, "reading the DMs typed while the bot was away failed")

    async def log_in_paced(self) -> bool:
        """Wait as the restarts before this one and the day's logins left ask (one log line
        each): whether to go on."""
        if not await self.logins.pace():
            return False
        try:
            limit = await self.client.fetch_session_start_limits()
        except Exception as error:  # the safe default: one IDENTIFY at a time, no count
            log.warning(
                "Could not read the day's logins left from Discord (%s); logging in one shard "
                "at a time without counting them",
                type(error).__name__,
            )
        else:
            reset_after = limit.reset_after / 1000
            total, remaining, concurrency = limit.total, limit.remaining, limit.max_concurrency
            if not await self.logins.within(StartLimit(total, remaining, reset_after, concurrency)):
                return False
        self._steady = asyncio.create_task(self._settle_when_steady())
        return True

    async def _settle_when_steady(self) -> None:
        await self.client.wait_until_ready()
        await asyncio.sleep(STEADY)
        await asyncio.shield(self._settle())  # a stop meanwhile does not cut its query

    async def before_identify(self, shard_id: int) -> None:
        await self.logins.before_identify(shard_id)

    async def load_commands(self) -> None:
        """Every slash command on the client's tree, each cog built with what it uses, with the
        translator that words them in each member's client language (read when the tree is
        synced): servers leaving, each game's command group, the shared commands, typed DMs,
        tournaments, the quick-pair queue, the history, puzzles, and rank roles."""
        client, parts = self.client, self.parts
        cogs: list[commands.Cog] = [
            Servers(client, self.matches.organizing, self.languages),
            *(cog(client, parts) for cog in game_cogs()),
            Common(client, parts),
            self.typed,
            Tournaments(self.desk, client.busy, self.followups),
            self.queue,
            History(self.after_game),
            PuzzleCommands(self.puzzle_desk),
            Ranks(self.ranks),
        ]
        for cog in cogs:
            await client.add_cog(cog)
        await client.tree.set_translator(CommandTranslator())

    async def stop(self, deadline: float) -> None:
        steady, self._steady = self._steady, None
        if steady is not None:
            steady.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await steady
            if self.client.is_ready() and self.client.refused is None:
                await self._settle()  # a clean stop: the next start logs in at once
        self.client.remove_dynamic_items(*self.items)
        catching, self.catching_up = self.catching_up, None
        if catching is not None and not self.client.is_ready():
            catching.cancel()  # still waiting for the gateway: nothing read yet
        if catching is not None:  # it stops between two DMs once shut-down began
            left = deadline - asyncio.get_running_loop().time()
            await asyncio.wait({catching}, timeout=max(left, 0))
        await self.sweeps.stop(deadline)
        await self.puzzle_rounds.stop(deadline)
        await self.rank_keeper.stop(deadline)

    async def release(self) -> None:
        await self.gateway.stop()
        if self.metrics_server is not None:
            await self.metrics_server.stop()
        try:
            await self.outbox.close()
        except Exception:
            log_failure(log, "writing the outbox at shut-down failed")
        await self.fleet.leave()
        # Waits for its workers to exit (a review under way is dropped): no process is left.
        await asyncio.to_thread(self.review_pool.shutdown, wait=True, cancel_futures=True)
        if self._owns_engine:
            await self.engine.dispose()

    async def _settle(self) -> None:
        try:
            await self.logins.settle()
        except Exception:
            log_failure(log, "recording a clean stop failed")

    async def _tournament_moves_on(self, tournament_id: int) -> None:
        await self.desk.progress(tournament_id)


def build(
    settings: Settings,
    *,
    engine: AsyncEngine | None = None,
    clock: Clock = utcnow,
    seeds: Callable[[], int] | None = None,
    **options: Any,
) -> App:
    """A bot process for ``settings``; ``options`` go to the discord.py client."""
    metrics = Metrics(CollectorRegistry()) if settings.metrics_port is not None else None
    invalid = InvalidRequests(answered=metrics.discord_status if metrics is not None else None)
    client = Parlor(**shard_options(settings), http_trace=invalid.trace(), **options)
    return App(
        client, settings, engine=engine, clock=clock, seeds=seeds, invalid=invalid, metrics=metrics
    )
