"""The composition root: every part of one bot process, built around its Discord client.

``build(settings)`` gives an ``App`` whose ``client`` is ready to ``start(token)``. The client
holds the ``Parts`` the commands and buttons use (each extension's ``setup`` reads them) and
calls the ``App`` back to start (database, fleet, extensions, commands, loops) and to stop
(loops, outbox, database). Nothing else builds a part, and no part finds another through the
client.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

import games
from bot.chat.app import Parlor, invite_url, shard_options
from bot.chat.buttons import DYNAMIC_ITEMS, on_form_submit
from bot.chat.command_sync import sync_commands
from bot.chat.delivery import Delivery
from bot.chat.direct import DirectMessages
from bot.chat.failures import log_failure
from bot.chat.front import Front
from bot.chat.interactions import Interactions
from bot.chat.live_boards import Boards
from bot.chat.outbox import Outbox
from bot.chat.parts import Parts
from bot.chat.redelivery import Redelivery
from bot.chat.sweeps import Sweeps
from bot.chat.tournament_buttons import DYNAMIC_ITEMS as SIGNUP_ITEMS
from bot.chat.tournament_desk import TournamentDesk
from bot.fleet import Fleet
from bot.service.matches import Clock, MatchService
from bot.service.notices import Report
from bot.service.sweeper import Sweeper
from bot.settings import Settings
from db import migrate
from db.engine import create_engine, optimize, session_factory
from db.models import utcnow

log = logging.getLogger(__name__)

EXTENSIONS = (
    "bot.chat.servers",
    *(f"bot.chat.games.{name}" for name in games.GAMES),
    "bot.chat.common",
    "bot.chat.dms",
    "bot.chat.tournaments",
)
"""Loaded at start, by name: servers leaving, each game's command group, the shared commands,
typed DMs and tournaments."""


class App:
    """One bot process: its client and every part around it.

    ``engine``, ``clock`` and ``seeds`` may be injected (tests drive time with them); an engine
    given is left open at the end, one made here is disposed of.
    """

    def __init__(
        self,
        client: Parlor,
        settings: Settings,
        *,
        engine: AsyncEngine | None = None,
        clock: Clock = utcnow,
        seeds: Callable[[], int] | None = None,
    ) -> None:
        self.client = client
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
        self.outbox = Outbox(self.service)
        self.boards = Boards(client, self.outbox)
        self.dms = DirectMessages(client, self.boards)
        self.delivery = Delivery(
            self.boards,
            self.dms,
            self.outbox,
            call_off=self.service.call_off,
            match_over=self._match_over,
        )
        self.requests = Interactions(self.service, self.boards, self.delivery, client.busy)
        self.redelivery = Redelivery(self.service, self.outbox, self.delivery, self.dms)
        self.front = Front(self.requests, self.delivery, self.boards, self.dms)
        # The tournament modules still find the match service and the delivery on the client.
        client.service = self.service
        client.delivery = self.front
        self.desk = TournamentDesk(client)
        client.tournaments = self.desk
        self.sweeps = Sweeps(
            client,
            self.fleet,
            Sweeper(self.service, settings.sweep_interval),
            self.delivery,
            self.redelivery,
            self.desk.sweep,
            settings.sweep_interval,
        )
        self.parts = Parts(
            service=self.service,
            tournaments=self.desk.service,
            requests=self.requests,
            delivery=self.delivery,
            places=self.front,
            dms=self.dms,
        )
        self._background: set[asyncio.Task[None]] = set()
        client.attach(self.parts, self)

    async def start(self) -> None:
        client = self.client
        assert client.user is not None
        self.service.bot_user_id = client.user.id
        await migrate.upgrade(self.engine)
        await self.fleet.join()  # before anything that answers members or acts on matches
        await optimize(self.engine)
        client.add_dynamic_items(*DYNAMIC_ITEMS, *SIGNUP_ITEMS)
        client.add_listener(self.boards.on_guild_message, "on_message")
        client.add_listener(on_form_submit, "on_interaction")
        for extension in EXTENSIONS:
            await client.load_extension(extension)
        await sync_commands(client.tree, self.settings.dev_guild_id, self.fleet, self.service)
        if client.application_id is not None:
            log.info("Invite link: %s", invite_url(client.application_id))
        await self.sweeps.resume()  # before any deadline is swept
        self.sweeps.start()

    async def stop(self, deadline: float) -> None:
        self.client.remove_dynamic_items(*DYNAMIC_ITEMS)
        await self.sweeps.stop(deadline)

    async def release(self) -> None:
        try:
            await self.outbox.close()
        except Exception:
            log_failure("writing the outbox at shut-down failed")
        await self.fleet.leave()
        if self._owns_engine:
            await self.engine.dispose()

    async def _match_over(self, report: Report) -> None:
        """A match ended: its tournament, if any, moves on (beside the request that ended it)."""
        task = asyncio.create_task(self._move_tournament_on(report.match.id))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _move_tournament_on(self, match_id: int) -> None:
        async with self.client.busy():
            try:
                await self.desk.match_over(match_id)
            except Exception:
                log_failure("match %s: its tournament could not be moved on", match_id)


def build(
    settings: Settings,
    *,
    engine: AsyncEngine | None = None,
    clock: Clock = utcnow,
    seeds: Callable[[], int] | None = None,
    **options: Any,
) -> App:
    """A bot process for ``settings``; ``options`` go to the discord.py client."""
    client = Parlor(**shard_options(settings), **options)
    return App(client, settings, engine=engine, clock=clock, seeds=seeds)
