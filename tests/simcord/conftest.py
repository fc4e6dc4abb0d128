"""Fixtures for Parlor on SimCord: the bot running in SimCord with a server, a channel and members.

The helpers the tests act and read with are in ``tests.simcord.table``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import simcord
from pydantic import SecretStr

from bot.settings import Settings

from .table import SETTLE_TIMEOUT, Member, SimClock, Table, new_parlor


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings as the environment would give them, without reading any ``.env``.

    The database is a new SQLite file: the bot creates its schema at start, as in production.
    """
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        discord_token=SecretStr("unused: SimCord logs the bot in"),
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'parlor.db'}",
        dev_guild_id=None,
    )


@pytest.fixture
def clock() -> SimClock:
    return SimClock()


@pytest.fixture
async def simcord_env(settings: Settings, clock: SimClock) -> AsyncIterator[simcord.Env]:
    """SimCord running Parlor; at the end the bot is closed and any error it swallowed fails
    the test.

    This replaces the SimCord plugin's fixture of the same name, which builds the bot before
    the environment: too early to hand the match service SimCord's clock.
    """
    env = simcord.Env(new_parlor(settings, clock), settle_timeout=SETTLE_TIMEOUT, shard_count=1)
    clock.bind(env)
    await env.start()
    try:
        yield env
    finally:
        bot = env.bot
        try:
            await env.settle()
            await bot.close()
        finally:
            await env.shutdown()
        env.raise_errors()


@pytest.fixture
def table(simcord_env: simcord.Env, settings: Settings, clock: SimClock) -> Table:
    return Table(simcord_env, settings, clock)


@pytest.fixture
def alice(table: Table) -> Member:
    return table.seat("alice")


@pytest.fixture
def bob(table: Table) -> Member:
    return table.seat("bob")


@pytest.fixture
def carol(table: Table) -> Member:
    """A member whose DMs are closed to the bot: its DMs to her fail with 403, code 50007."""
    return table.seat("carol", dms_open=False)
