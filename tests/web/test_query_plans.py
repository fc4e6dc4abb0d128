"""No page reads a whole table: every statement behind each page finds its rows through an index
(SQLite's own query plans, as ``tests/service/test_query_plans.py`` checks the bot's)."""

from __future__ import annotations

import pytest
from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from tests.db.plans import plans_recorded
from tests.web.conftest import ALICE, Server, player_key
from web import ids


async def test_no_statement_behind_a_page_scans_a_table(
    engine: AsyncEngine, sessions: async_sessionmaker[AsyncSession], app: web.Application,
    server: Server, base: str, aiohttp_client: object,
) -> None:  # fmt: skip
    if engine.dialect.name != "sqlite":
        pytest.skip("query plans are SQLite's (a file)")
    client = await aiohttp_client(app)  # type: ignore[operator]
    key = ids.player_id(await player_key(sessions, server.token), ALICE)
    paths = [f"{base}/", f"{base}/g/flag?page=1", f"{base}/p/{key}", "/s/wrong/"]
    paths += [f"{base}/m/{server.finished[2]}?step=2", f"{base}/m/{server.in_play}"]
    with plans_recorded(engine) as plans:
        for path in paths:
            await (await client.get(path)).read()
    assert len(plans.explained) >= 10
    # ``mine`` is no table: it is the subquery of the member's last MEMBER_WINDOW rows of
    # match_players, themselves found through that table's index on the member; nor is
    # ``best``: a leaderboard's best ``records.WINDOW`` rows, read in its index's order; nor is
    # ``page``: one page's keys of a list, read from that index alone; nor is ``members``: the
    # members whose names a page shows, given in the statement.
    exempt = ("SCAN mine", "SCAN best", "SCAN page", "SCAN members")
    scans = [(line, statement) for line, statement in plans.scans if line not in exempt]
    assert not scans, "\n".join(f"{line}: {statement}" for line, statement in scans)
