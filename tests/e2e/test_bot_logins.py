"""Logging in without being refused or spending the day's logins, as a host's processes do.

The fake Discord refuses a second IDENTIFY in a bucket within 5 seconds (op 9), from whichever
process it comes, and counts the day's session starts down. Two processes of one fleet started
at once take turns through their database and neither is refused; a process that keeps
restarting, or that would leave too few of the day's logins, says so in one line and waits.
"""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.logins import FREE_STARTS, LOGINS_KEPT
from bot.settings import Settings
from bot.wiring import build
from db import migrate
from db.bot_meta import set_meta
from db.engine import create_engine, session_factory
from db.models import utcnow

from .bot_process import READY, BotProcess, bot_environment, bot_process
from .fake_discord import FakeDiscord
from .postgres import own_database, url_of

SHARDS = 2


def fleet_settings(database_url: str, shard: int) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        discord_token=SecretStr("unused: the fake Discord has its own"),
        database_url=database_url,
        shard_count=SHARDS,
        shard_ids=str(shard),
        sweep_interval=0.1,
        dev_guild_id=None,
    )


async def test_two_processes_of_a_fleet_started_at_once_log_in_without_a_refusal(
    tmp_path: Path,
) -> None:
    """Each process has its own client and its own engine on the shared database, as two
    processes have (one event loop runs both); only the database tells them of each other."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'parlor.db'}"
    engine = create_engine(url)
    await migrate.upgrade(engine)  # as `parlor db upgrade` before the fleet starts
    await engine.dispose()
    async with FakeDiscord(shards=SHARDS) as fake:
        for shard in range(SHARDS):
            fake.add_guild(f"on shard {shard}", shard=(shard, SHARDS))
        with fake.patch_discord():
            bots = [
                build(fleet_settings(url, shard), guild_ready_timeout=0.01).client
                for shard in range(SHARDS)
            ]
            blocks = [fake.connected(bot, ready_timeout=30) for bot in bots]
            await asyncio.gather(*(block.__aenter__() for block in blocks))
            try:
                assert all(bot.is_ready() for bot in bots)
                assert [len(bot.guilds) for bot in bots] == [1, 1]
            finally:
                for block in reversed(blocks):
                    await block.__aexit__(None, None, None)
    assert fake.gateway.starts.refused == []
    assert fake.gateway.starts.used == SHARDS


@pytest.mark.slow
async def test_two_bot_processes_on_postgresql_started_at_once_log_in_without_a_refusal(
    tmp_path: Path,
) -> None:
    """``python -m bot`` twice, one shard each, on one PostgreSQL database."""
    async with own_database("parlor_logins") as database, FakeDiscord(shards=SHARDS) as fake:
        for shard in range(SHARDS):
            fake.add_guild(f"on shard {shard}", shard=(shard, SHARDS))
        processes = []
        try:
            for shard in range(SHARDS):
                directory = tmp_path / f"shard{shard}"
                directory.mkdir()
                env = bot_environment(
                    directory,
                    fake,
                    DATABASE_URL=url_of(database),
                    SHARD_COUNT=str(SHARDS),
                    SHARD_IDS=str(shard),
                    LOG_LEVEL="INFO",
                )
                processes.append(await BotProcess.start(directory, env))
            for process in processes:
                await process.wait_for_line(READY, timeout=60)
            assert fake.gateway.starts.refused == []
        finally:
            for process in processes:
                process.send_signal(signal.SIGTERM)
            for process in processes:
                await process.wait()
                await process.kill()


async def stopped_while_waiting(bot: BotProcess, fake: FakeDiscord, line: str) -> str:
    """The line ``bot`` says it waits with; then it is stopped, having started no session."""
    said = await bot.wait_for_line(line)
    await asyncio.sleep(0.5)  # what it would do next, were it not waiting
    assert fake.gateway.starts.used == 0 and not fake.gateway.starts.refused
    bot.send_signal(signal.SIGTERM)
    assert await bot.wait() == 0
    assert "Traceback" not in bot.output
    return said


async def crashed(tmp_path: Path, starts: int) -> None:
    """The bot's database records ``starts`` starts in a row that did not run steadily."""
    engine = create_engine(bot_environment(tmp_path, None)["DATABASE_URL"])
    await migrate.upgrade(engine)
    record = json.dumps({"starts": starts, "at": time.time()})
    async with session_factory(engine).begin() as session:
        await set_meta(session, "starts:all", record, utcnow())
    await engine.dispose()


async def test_a_process_that_keeps_restarting_waits_before_logging_in(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    await crashed(tmp_path, FREE_STARTS)

    async with bot_process(tmp_path, fake_discord) as bot:
        line = await stopped_while_waiting(bot, fake_discord, "times in a row")
    assert f"started {FREE_STARTS + 1} times in a row" in line
    assert "waiting 15 s before logging in" in line


async def test_a_process_that_would_leave_too_few_of_the_days_logins_waits(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake_discord.gateway.starts.total = LOGINS_KEPT  # the day's logins nearly spent
    async with bot_process(tmp_path, fake_discord) as bot:
        line = await stopped_while_waiting(bot, fake_discord, "more logins")
    assert f"Discord allows {LOGINS_KEPT} more logins of {LOGINS_KEPT} until" in line
    assert "waiting until then" in line


async def test_a_clean_stop_lets_the_next_start_log_in_at_once(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    await crashed(tmp_path, FREE_STARTS - 1)  # one more start in a row is still free
    for _ in range(2):
        async with bot_process(tmp_path, fake_discord) as bot:
            await bot.wait_for_line(READY)
            bot.send_signal(signal.SIGTERM)
            assert await bot.wait() == 0
        assert "times in a row" not in bot.output  # the second: the first stopped cleanly
    assert fake_discord.gateway.starts.refused == []
