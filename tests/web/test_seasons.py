"""The season pages: the running season's standings per game, provisional players apart, the
seasons kept after they end, and nothing of another server's."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.match_parts import match_parts
from bot.service.seasons import Seasons
from tests.service.conftest import Clock, servers_for
from tests.web.conftest import Server
from tests.web.test_handlers import Client, MakeClient, links, page


@pytest.fixture
async def client(aiohttp_client: MakeClient, app: web.Application) -> Client:
    return await aiohttp_client(app)


async def test_the_running_season_lists_each_game_with_provisional_players_apart(
    client: Client, server: Server, base: str
) -> None:
    text = await page(client, f"{base}/season")
    assert "<h1>Season 1 (running)</h1>" in text
    assert "From 2026-01-01 to 2026-04-01 (UTC), ranked by rating." in text
    for title in ("Capture the Crown", "Number Claim", "Crystal Capture", "Flag Chase"):
        assert f">{title}</h2>" in text
    # A few matches each: every player is still provisional, listed apart and unranked.
    assert "<caption>Provisional in Capture the Crown: not ranked yet</caption>" in text
    assert "Ranked in" not in text and "Nobody ranked yet." in text
    assert re.search(r"\d{3,4}\?</td>", text)
    assert links(text, rf"{base}/p/[a-z2-7]+"), "players link to their pages"
    assert (await page(client, f"{base}/season/1")) == text
    assert (await client.get(f"{base}/season/2")).status == 404
    assert (await client.get(f"{base}/season/x")).status == 404


async def test_an_ended_season_is_kept_beside_the_next(
    client: Client, server: Server, base: str, sessions: async_sessionmaker[AsyncSession]
) -> None:
    clock = Clock()
    clock.now = datetime(2026, 4, 1, 0, 1, tzinfo=UTC)
    assert (
        len(await Seasons(sessions, clock=clock).close_due()) == 2
    )  # this server's, and another's

    running = await page(client, f"{base}/season")
    assert "<h1>Season 2 (running)</h1>" in running
    assert "No rated match this season yet." in running
    assert links(running, rf"{base}/season/1") == [f"{base}/season/1"]
    ended = await page(client, f"{base}/season/1")
    assert "<h1>Season 1 (ended)</h1>" in ended and "Provisional in Crystal Capture" in ended


async def test_a_server_without_seasons_says_so(
    client: Client, sessions: async_sessionmaker[AsyncSession]
) -> None:

    token = await servers_for(match_parts(sessions, clock=Clock())).open_site(5555)
    text = await page(client, f"/s/{token}/season")
    assert "<h1>Seasons</h1>" in text and "No season has started in this server yet" in text
    assert (await client.get(f"/s/{token}/season/1")).status == 404
