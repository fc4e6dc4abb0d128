"""The bot with ``WRITER_PROCESSES=2``: a match played through the fake Discord, with its moves'
transactions in child processes, goes on after a restart, and the children end with the bot.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from bot.settings import Settings

from .test_bot_games import play_crystal, start

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeMember

pytest_plugins = ("tests.e2e.bot_fixtures",)


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"writer_processes": 2})


def writer_pids(table: Table) -> list[int]:
    assert table.bot is not None
    return table.bot.service.writer_pids


async def test_a_match_through_writer_processes_goes_on_after_a_restart(
    idle_table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    table = idle_table
    async with table.running():
        await start(table, alice, bob, "crystal challenge")
        pids = writer_pids(table)
        assert pids
    for pid in pids:  # ended with the bot
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)

    async with table.running():
        await play_crystal(table, alice, bob)
        assert writer_pids(table)
