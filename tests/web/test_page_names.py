"""The server's first page names every member it lists as their latest stored name, reading the
names of all five games' members in one statement."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

import games
from db.after_match import keep_names, latest_names
from db.models import MatchPlayer
from tests.service.test_languages import statements
from tests.web.conftest import ALICE, BOB, CAROL, DAVE, GUILD, Server, player_key
from tests.web.test_handlers import page
from web import ids

Client = TestClient[web.Request, web.Application]
MakeClient = Callable[[web.Application], Awaitable[Client]]
CALLED = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol"}
"""Dave's name is never stored: he shows as a placeholder."""


@pytest.fixture
async def client(aiohttp_client: MakeClient, app: web.Application) -> Client:
    return await aiohttp_client(app)


@pytest.fixture
async def named(server: Server, sessions: async_sessionmaker[AsyncSession]) -> Server:
    """The server with names stored as its matches ended, each match its own name for each of
    its players but Dave (``Alice #12``), so only the latest one is right."""
    async with sessions.begin() as session:
        for match_id in server.finished:
            seats = await session.execute(
                select(MatchPlayer.seat, MatchPlayer.user_id).where(
                    MatchPlayer.match_id == match_id
                )
            )
            names = {seat: f"{CALLED[user]} #{match_id}" for seat, user in seats if user in CALLED}
            await keep_names(session, match_id, names)
    return server


def listed(text: str, base: str) -> list[tuple[str, str]]:
    """Each member the page links to, as (opaque id, name shown), in the page's order."""
    return re.findall(rf'<a href="{base}/p/([a-z2-7]+)">([^<]*)</a>', text)


async def test_the_server_page_reads_every_games_names_at_once(
    client: Client, named: Server, base: str, engine: AsyncEngine,
    sessions: async_sessionmaker[AsyncSession],
) -> None:  # fmt: skip
    with statements(engine) as seen:
        text = await page(client, f"{base}/")
    reading_names = [s for s in seen if "display_name" in s]
    assert len(reading_names) == 1, reading_names

    sections = re.split(r'<section aria-labelledby="top-', text)[1:]
    assert len(sections) == len(games.GAMES), "every game has members listed"
    key = await player_key(sessions, named.token)
    shown: dict[int, str] = {}
    for section in sections:
        for opaque, name in listed(section, base):
            user = ids.user_id(key, opaque)
            assert user is not None
            assert shown.setdefault(user, name) == name, "one name for a member on one page"
    assert set(shown) == {ALICE, BOB, CAROL, DAVE}
    async with sessions() as session:
        for user, name in shown.items():
            alone = await latest_names(session, GUILD, [user])
            # What the page read per game before: a member's latest name, whoever is beside.
            assert name == alone.get(user, f"Member {ids.player_id(key, user)[:4].upper()}")
    assert shown[DAVE].startswith("Member ")
    latest = max(m for m in named.finished)
    assert any(name.endswith(f"#{latest}") for name in shown.values())


async def test_a_leaderboard_still_reads_its_names_in_one_statement(
    client: Client, named: Server, base: str, engine: AsyncEngine
) -> None:
    with statements(engine) as seen:
        text = await page(client, f"{base}/g/crown?list=provisional")
    assert len([s for s in seen if "display_name" in s]) == 1
    assert len(listed(text, base)) >= 2
