"""What a member is told when a request cannot be served: plainly, privately, and not logged as
the bot's own failure."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bot.settings import Settings

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeMember

pytest_plugins = ("tests.e2e.bot_fixtures",)

FAILED = "Something went wrong on my side"


def database_file(settings: Settings) -> Path:
    assert settings.database_url is not None
    return Path(settings.database_url.removeprefix("sqlite+aiosqlite:///"))


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def test_challenging_someone_outside_the_server_says_so(
    table: Table, alice: FakeMember, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    stranger = table.fake.add_user("dave")  # not a member of the table's server
    told = await table.slash(alice, "crown challenge", opponent=stranger)
    assert told.messages[0].ephemeral
    assert table.answer(told) == (
        "That user is not a member of this server: challenge a member here, or me."
    )
    told = await table.slash(alice, "stats", user=stranger)
    assert told.messages[0].ephemeral
    assert table.answer(told) == "That user is not a member of this server."
    assert not errors(caplog)


async def test_a_dm_naming_a_match_number_too_large_is_refused_plainly(
    table: Table, alice: FakeMember, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    reply = await table.dm(alice, "#99999999999999999999 2 3")
    assert reply.content == "There is no match #99999999999999999999."
    reply = await table.dm(alice, "#2147483648 2 3")
    assert reply.content == "There is no match #2147483648."
    assert not errors(caplog)


async def test_stats_errors_are_private(
    table: Table, alice: FakeMember, bob: FakeMember, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    shown = await table.slash(alice, "stats")
    assert not shown.messages[0].ephemeral and shown.messages[0].embeds

    # The bot runs in this event loop: the test's own queries run in a thread.
    database = sqlite3.connect(
        database_file(table.settings), isolation_level=None, check_same_thread=False
    )
    try:
        await asyncio.to_thread(database.execute, "DROP TABLE player_stats")
        told = await table.slash(alice, "stats")
        assert all(m.ephemeral for m in told.messages)
        assert FAILED in table.answer(told)

        # Slower than Discord lets an answer wait: the bot says it is thinking, publicly; a
        # failure after that still goes to the member alone. Reads do not wait for another
        # program's write lock, but a challenge does, and holds the bot's one SQLite
        # connection meanwhile: /stats waits for it.
        await asyncio.to_thread(database.execute, "BEGIN IMMEDIATE")
        held = await table.fake.slash(alice, table.channel, "crown challenge", opponent=bob)
        await table.fake.wait_until(lambda: held.acknowledged, what="the challenge to wait")
        slow = await table.fake.slash(alice, table.channel, "stats", game="crown")
        await table.fake.wait_until(lambda: slow.acknowledged, what="the deferral")
        assert slow.original is not None and not slow.original.ephemeral
    finally:
        await asyncio.to_thread(database.rollback)
        database.close()
    await table.fake.wait_until(lambda: slow.followups, what="the answer")
    # The challenge went through once the lock was gone.
    await table.fake.wait_until(
        lambda: "challenges you" in table.answer(held), what="the challenge"
    )
    assert slow.original.deleted
    assert all(m.ephemeral for m in slow.followups)
    assert FAILED in slow.followups[0].content
    public = [m for m in table.fake.messages(table.channel) if FAILED in m.text]
    assert not public
