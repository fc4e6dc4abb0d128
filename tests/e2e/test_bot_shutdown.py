"""Shut-down is bounded: a request that does not finish in time does not hold the bot up."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .bot_fixtures import Table

pytest_plugins = ("tests.e2e.bot_fixtures",)


async def test_close_gives_up_on_a_request_that_does_not_finish(
    idle_table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with idle_table.running() as bot:
        bot.close_grace = 0.2
        async with bot.busy():  # a request stuck until the bot has closed
            await bot.close()
            assert bot.is_closed()
    assert "Shutting down with 1 requests still in progress" in caplog.text
