"""The Discord side of tournaments is built from what it uses, not from the whole bot."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import discord
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.chat.tournament_wiring import build_tournaments
from bot.service.match_parts import match_parts
from bot.service.notices import Report
from bot.service.tournaments.service import TournamentService


class Delivery:
    def __init__(self) -> None:
        self.delivered: list[Report] = []

    async def deliver(self, report: Report) -> None:
        self.delivered.append(report)


@contextlib.asynccontextmanager
async def busy() -> AsyncIterator[None]:
    yield


async def test_the_desk_and_the_cog_are_built_from_what_they_use(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    matches = match_parts(sessions)
    delivery = Delivery()
    client = discord.Client(intents=discord.Intents.none())

    desk, cog = build_tournaments(client, matches, delivery, busy=busy)

    assert isinstance(desk.service, TournamentService)
    progress = desk.service.progress
    assert (progress.sessions, progress.organizing) == (sessions, matches.organizing)
    assert (progress.lookups, progress.play) == (matches.lookups, matches.play)
    assert (desk.deliver, desk.client) == (delivery.deliver, client)
    assert (cog.desk, cog.busy) == (desk, busy)
    commands = {c.qualified_name for c in cog.walk_app_commands()}
    names = ("create", "start", "standings", "leave", "cancel")
    assert commands >= {f"tournament {name}" for name in names}
