"""The pages read in the server's language: its chosen one, else its preferred locale, else
English."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from markupsafe import Markup
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.i18n import speaking
from db.languages import choose_language, set_preferred_locales
from tests.web.conftest import ALICE, GUILD, Server, player_key
from tests.web.test_handlers import alice_points
from web import ids, texts
from web.app import make_app

Client = TestClient[web.Request, web.Application]
MakeClient = Callable[[web.Application], Awaitable[Client]]
NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


@pytest.fixture
async def client(aiohttp_client: MakeClient, app: web.Application) -> Client:
    return await aiohttp_client(app)


async def page(client: Client, path: str) -> str:
    response = await client.get(path)
    text = await response.text()
    assert response.status == 200, text
    return text


def title(game: str, locale: str) -> str:
    with speaking(locale):
        return games.get(game).title


async def test_a_french_server_reads_its_pages_in_french(
    client: Client, server: Server, base: str, sessions: async_sessionmaker[AsyncSession]
) -> None:
    async with sessions() as session, session.begin():
        await set_preferred_locales(session, {GUILD: "de"}, NOW)
        await choose_language(session, GUILD, "fr", NOW)

    home = await page(client, f"{base}/")
    assert '<html lang="fr">' in home
    assert "<title>Classements · Parlor</title>" in home
    assert "<h1>Classements</h1>" in home
    crown = title("crown", "fr")
    assert crown != "Capture the Crown"
    assert f">{crown}</h2>" in home
    assert f"Tout le classement de {crown}" in home
    assert "Leaderboard" not in home

    board = await page(client, f"{base}/g/crown?list=provisional")
    assert f"<h1>{crown} : joueurs à cote provisoire</h1>" in board
    assert '<th scope="col" class="num">Place</th>' in board
    assert '<abbr title="victoires">V</abbr>' in board

    player = re.findall(r'href="(/s/[^"]+/p/[^"]+)"', board)[0]
    text = await page(client, player)
    assert '<h2 id="recent">Parties récentes</h2>' in text
    assert re.search(r'<time datetime="[^"]+">\d+ janv\. 2026, \d\d:\d\d UTC</time>', text)

    match = await page(client, f"{base}/m/{server.finished[0]}?step=1")
    assert '<h2 id="moves">Coups</h2>' in match
    assert "(joueur 1) contre" in match
    assert "Coup 1 sur" in match
    assert re.search(r": [^<>]+ joue <code>[^<>]+</code>", match)


async def test_without_a_chosen_language_the_preferred_locale_is_read(
    client: Client, server: Server, base: str, sessions: async_sessionmaker[AsyncSession]
) -> None:
    async with sessions() as session, session.begin():
        await set_preferred_locales(session, {GUILD: "de"}, NOW)

    home = await page(client, f"{base}/")
    assert '<html lang="de">' in home
    assert "<h1>Bestenlisten</h1>" in home


async def test_a_server_with_no_language_reads_english(client: Client, base: str) -> None:
    home = await page(client, f"{base}/")
    assert '<html lang="en-US">' in home
    assert "<h1>Leaderboards</h1>" in home


def test_a_page_text_escapes_what_fills_it_and_keeps_markup_passed_in() -> None:
    code = Markup("<code>a1</code>")
    with speaking("fr"):
        shown = texts.gettext("{name} plays {move}", name="<b>Eve & co</b>", move=code)
    assert shown == "&lt;b&gt;Eve &amp; co&lt;/b&gt; joue <code>a1</code>"


async def test_a_chart_is_drawn_again_in_a_new_language(
    aiohttp_client: MakeClient, sessions: async_sessionmaker[AsyncSession], server: Server,
    base: str, tmp_path: Path,
) -> None:  # fmt: skip
    from web.app import SITE

    app = make_app(sessions, chart_folder=tmp_path, history=alice_points)
    client = await aiohttp_client(app)
    key = ids.player_id(await player_key(sessions, server.token), ALICE)
    english = await client.get(f"{base}/p/{key}/crown.png")
    assert english.status == 200
    async with sessions() as session, session.begin():
        await choose_language(session, GUILD, "fr", NOW)
    french = await client.get(f"{base}/p/{key}/crown.png")
    assert french.status == 200 and french.headers["ETag"] != english.headers["ETag"]
    assert await french.read() != await english.read()
    assert app[SITE].charts.drawn == 2
