"""The counts a metrics scrape reads: right, and cheap on a server's whole history (the matches
in play are found through the status index, not by reading every finished match)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from db.gauges import read_counts
from db.models import Match, MatchStatus, OutboxEntry, QueueEntry
from tests.db.plans import plans_recorded

IN_FLIGHT = ("SCAN outbox", "SCAN queue_entries")
"""Tables that hold only what is under way (entries not shown yet, members waiting): counting
them whole is counting a handful of rows."""


async def test_counts_read_matches_in_play_through_an_index(engine: AsyncEngine) -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    statuses = [MatchStatus.FINISHED] * 5 + [MatchStatus.ACTIVE] * 2 + [MatchStatus.CHALLENGED]
    async with engine.begin() as connection:
        await connection.execute(
            insert(Match),
            [
                {"channel_id": 1, "game": "crown", "seed": n, "status": status,
                 "challenger_id": 10, "opponent_id": 11}
                for n, status in enumerate(statuses)
            ],
        )  # fmt: skip
        await connection.execute(
            insert(OutboxEntry),
            [{"match_id": 6, "version": 1, "kind": "board", "due_at": now + timedelta(seconds=n)}
             for n in (30, 10)],
        )  # fmt: skip
        await connection.execute(
            insert(QueueEntry),
            [{"user_id": 20 + n, "guild_id": 1, "channel_id": 1, "game": game, "rating": 1500.0,
              "joined_at": now} for n, game in enumerate(("flag", "flag", "safe"))],
        )  # fmt: skip

    async with engine.connect() as connection:
        counts = await read_counts(connection)
    assert counts.outbox == 2 and counts.outbox_first_due == now + timedelta(seconds=10)
    assert counts.matches == {"challenged": 1, "setup": 0, "active": 2}
    assert counts.queues == {"flag": 2, "safe": 1}

    if engine.dialect.name != "sqlite":
        return  # the query plans are SQLite's (a file)
    with plans_recorded(engine) as plans:
        async with engine.connect() as connection:
            await read_counts(connection)
    scans = [line for line, _statement in plans.scans if not line.startswith(IN_FLIGHT)]
    assert not scans, scans
    assert any("matches" in statement for statement in plans.explained)
