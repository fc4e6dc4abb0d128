"""The site's handlers over a server whose matches were played through the match service."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.charts import RatingPoint
from tests.service.conftest import Clock
from tests.web.conftest import (
    ALICE,
    BOB,
    CAROL,
    DAVE,
    GUILD,
    PARLOR,
    Server,
    player_key,
)
from web import ids
from web.app import make_app
from web.charts import RatingHistory

Client = TestClient[web.Request, web.Application]
MakeClient = Callable[[web.Application], Awaitable[Client]]
USERS = (ALICE, BOB, CAROL, DAVE, PARLOR)


@pytest.fixture
async def client(aiohttp_client: MakeClient, app: web.Application) -> Client:
    return await aiohttp_client(app)


async def page(client: Client, path: str, status: int = 200) -> str:
    response = await client.get(path)
    text = await response.text()
    assert response.status == status, text
    for user in USERS:
        assert str(user) not in text, f"{path} shows a user id"
    return text


def links(text: str, pattern: str) -> list[str]:
    return re.findall(rf'href="({pattern})"', text)


async def test_the_server_page_shows_each_game_played(
    client: Client, server: Server, base: str
) -> None:
    text = await page(client, f"{base}/")
    for title in ("Capture the Crown", "Number Claim", "Crystal Capture", "Flag Chase"):
        assert f">{title}</h2>" in text
    assert (
        "<caption>Capture the Crown: provisional players by rating (not ranked)</caption>" in text
    )
    assert "Nobody is ranked in Capture the Crown yet." in text, "two matches each: provisional"


async def test_a_bad_or_old_token_gets_a_plain_404(
    client: Client, server: Server, base: str, sessions: async_sessionmaker[AsyncSession]
) -> None:
    wrong = await client.get("/s/not-a-token/")
    assert wrong.status == 404
    assert wrong.content_type == "text/plain"
    unknown = await client.get(f"{base}/no-such-page")
    assert (await unknown.text()) == (await wrong.text()) == "Not found.\n"
    crown = await page(client, f"{base}/g/crown?list=provisional")
    player = links(crown, rf"{base}/p/[a-z2-7]+")[0]

    servers = servers_for_sessions(sessions)
    new_token = await servers.open_site(GUILD)
    assert (await client.get(f"{base}/")).status == 404
    assert (await client.get(player)).status == 404, "an old link's player pages die with it"
    await page(client, f"/s/{new_token}/")
    assert await servers.close_site(GUILD)
    assert (await client.get(f"/s/{new_token}/")).status == 404
    assert not await servers.close_site(GUILD)


def servers_for_sessions(sessions: async_sessionmaker[AsyncSession]):  # type: ignore[no-untyped-def]
    from bot.service.servers import ServerService

    return ServerService(sessions, clock=Clock())


async def test_provisional_players_are_listed_apart_unranked(
    client: Client, server: Server, base: str, clock: Clock
) -> None:
    text = await page(client, f"{base}/g/crown")
    assert "Nobody is ranked in Capture the Crown yet." in text
    assert f'href="{base}/g/crown?list=provisional"' in text
    text = await page(client, f"{base}/g/crown?list=provisional")
    assert "<caption>Capture the Crown: provisional players by rating (not ranked)" in text
    rows = re.findall(r"<tr>\s*<td class=\"num\">([^<]*)</td>", text)
    assert rows and set(rows) == {"\u2013"}, "provisional players are not numbered"
    assert re.search(r"\d{3,4}\? ± \d+", text)
    assert "Member " in text, "names never stored show as a placeholder"
    assert (await client.get(f"{base}/g/crown?list=provisional&page=2")).status == 404
    assert (await client.get(f"{base}/g/crown?list=best")).status == 404
    assert (await client.get(f"{base}/g/chess")).status == 404
    assert (await client.get(f"{base}/g/crown?page=x")).status == 404

    clock.advance(days=31)
    assert "Nobody is listed here" in await page(client, f"{base}/g/crown?list=provisional")
    text = await page(client, f"{base}/g/crown?list=inactive")
    assert "<caption>Capture the Crown: inactive players by rating (not ranked)" in text


async def test_a_leaderboard_ranks_players_and_pages_at_fifty_rows(
    aiohttp_client: MakeClient, sessions: async_sessionmaker[AsyncSession], tmp_path: object
) -> None:
    from db.models import PlayerStats

    clock = Clock()
    now = clock()
    async with sessions.begin() as session:
        for n in range(120):
            session.add(
                PlayerStats(
                    guild_id=GUILD, game="safe", user_id=10**17 + n, rating=1000.0 + n,
                    deviation=60.0, wins=n % 7, rated_at=now, deviation_at=now,
                    ranked_until=now + timedelta(days=30),
                )
            )  # fmt: skip
    token = await servers_for_sessions(sessions).open_site(GUILD)
    app = make_app(sessions, chart_folder=tmp_path, clock=clock)  # type: ignore[arg-type]
    client = await aiohttp_client(app)
    first = await page(client, f"/s/{token}/g/safe")
    assert "<caption>Safe Cracker by rating: ranks 1 to 50" in first
    rows = re.findall(r"<tr>\s*<td class=\"num\">(\d+)</td>", first)
    assert rows == [str(n) for n in range(1, 51)]
    assert re.search(r"1119 ± 60</td>\s*<td class=\"num\">0</td>", first)
    assert 'rel="next"' in first and 'rel="prev"' not in first
    third = await page(client, f"/s/{token}/g/safe?page=3")
    assert "ranks 101 to 120" in third and 'rel="next"' not in third
    assert third.count("<tr>") == 21


async def test_a_player_page_shows_records_opponents_and_recent_matches(
    client: Client, server: Server, base: str, sessions: async_sessionmaker[AsyncSession]
) -> None:
    key = ids.player_id(await player_key(sessions, server.token), ALICE)
    text = await page(client, f"{base}/p/{key}")
    assert '<h2 id="records">Records</h2>' in text
    assert '<h2 id="opponents">Head to head</h2>' in text
    played = links(text, rf"{base}/m/\d+")
    assert played and all(int(link.rsplit("/", 1)[1]) in server.finished for link in played)
    assert str(server.elsewhere) not in [link.rsplit("/", 1)[1] for link in played]
    for opponent in links(text, rf"{base}/p/[a-z2-7]+"):
        await page(client, opponent)


async def test_a_player_with_no_record_here_or_no_id_gets_a_404(
    client: Client, server: Server, base: str, sessions: async_sessionmaker[AsyncSession]
) -> None:
    key = await player_key(sessions, server.token)
    assert (await client.get(f"{base}/p/{ids.player_id(key, 12345)}")).status == 404
    assert (await client.get(f"{base}/p/{ids.player_id(key, PARLOR)}")).status == 404
    assert (await client.get(f"{base}/p/{ALICE}")).status == 404
    assert (await client.get(f"{base}/p/{ids.player_id(b'x' * 32, ALICE)}")).status == 404


async def test_a_match_page_replays_a_finished_match_step_by_step(
    client: Client, server: Server, base: str
) -> None:
    match = server.finished[0]
    text = await page(client, f"{base}/m/{match}")
    assert '<h2 id="step-title">' in text and "Start" in text
    steps = links(text, rf"{base}/m/{match}\?step=\d+#board")
    last = max(int(re.search(r"step=(\d+)", s)[1]) for s in steps)  # type: ignore[index]
    assert last >= 3
    end = await page(client, f"{base}/m/{match}?step={last}")
    assert f"Step {last} of {last}" in end
    assert "won" in end or "Draw" in end
    assert 'data-key="ArrowRight"' not in end and 'data-key="ArrowLeft"' in end
    assert (await client.get(f"{base}/m/{match}?step={last + 1}")).status == 404


async def test_a_replayed_position_shows_what_its_player_could_play(
    client: Client, server: Server, base: str
) -> None:
    match = server.finished[2]  # Crystal Capture: nine crystals, all free at the start
    start = await page(client, f"{base}/m/{match}")
    assert "to play, from:" in start
    assert len(re.findall(r'<span class="control[ "]', start)) == 9
    assert len(re.findall(r'<span class="control played"', start)) == 1
    assert "control off" not in start
    steps = links(start, rf"{base}/m/{match}\?step=\d+#board")
    last = max(int(re.search(r"step=(\d+)", s)[1]) for s in steps)  # type: ignore[index]
    end = await page(client, f"{base}/m/{match}?step={last}")
    assert "to play, from:" not in end


async def test_a_match_in_play_or_of_another_server_has_no_page(
    client: Client, server: Server, base: str
) -> None:
    assert (await client.get(f"{base}/m/{server.in_play}")).status == 404
    assert (await client.get(f"{base}/m/{server.elsewhere}")).status == 404
    assert (await client.get(f"{base}/m/999999")).status == 404


async def test_a_match_against_the_bot_names_it_without_a_link(
    client: Client, server: Server, base: str
) -> None:
    text = await page(client, f"{base}/m/{server.against_bot}")
    assert "Parlor (Player" in text


async def test_every_answer_carries_the_security_headers(
    client: Client, server: Server, base: str
) -> None:
    for path in (f"{base}/", f"{base}/g/crown", "/s/wrong/", "/static/site.css"):
        response = await client.get(path)
        csp = response.headers["Content-Security-Policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp
        assert "unsafe-inline" not in csp
        assert response.headers["Referrer-Policy"] == "no-referrer"
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["X-Frame-Options"] == "DENY"


async def test_pages_carry_an_etag_and_answer_304_when_unchanged(
    client: Client, server: Server, base: str
) -> None:
    first = await client.get(f"{base}/g/claim")
    etag = first.headers["ETag"]
    assert first.headers["Cache-Control"].startswith("private")
    again = await client.get(f"{base}/g/claim", headers={"If-None-Match": etag})
    assert again.status == 304
    match = await client.get(f"{base}/m/{server.finished[1]}")
    assert "max-age=86400" in match.headers["Cache-Control"]
    (stylesheet,) = re.findall(r'href="(/static/site\.css\?v=[0-9a-f]+)"', await first.text())
    css = await client.get(stylesheet)
    assert "immutable" in css.headers["Cache-Control"]


async def test_a_client_over_its_rate_is_told_to_wait(
    aiohttp_client: MakeClient,
    sessions: async_sessionmaker[AsyncSession],
    server: Server,
    base: str,
    tmp_path: object,
) -> None:
    app = make_app(sessions, chart_folder=tmp_path, requests_per_minute=12)  # type: ignore[arg-type]
    client = await aiohttp_client(app)
    statuses = [(await client.get(f"{base}/g/crown")).status for _ in range(12)]
    assert statuses[:10] == [200] * 10 and statuses[-1] == 429
    refused = await client.get(f"{base}/g/crown", headers={"X-Forwarded-For": "203.0.113.9"})
    assert refused.status == 429, "a forwarded address counts only from a trusted proxy"
    assert int(refused.headers["Retry-After"]) >= 1


async def test_a_trusted_proxy_forwards_each_clients_own_address(
    aiohttp_client: MakeClient,
    sessions: async_sessionmaker[AsyncSession],
    server: Server,
    base: str,
    tmp_path: object,
) -> None:
    app = make_app(
        sessions,
        chart_folder=tmp_path,  # type: ignore[arg-type]
        requests_per_minute=12,
        trusted_proxies="127.0.0.1,::1",
    )
    client = await aiohttp_client(app)
    for client_number in range(3):
        forwarded = {"X-Forwarded-For": f"203.0.113.{client_number}"}
        statuses = [(await client.get(f"{base}/", headers=forwarded)).status for _ in range(10)]
        assert statuses == [200] * 10


async def alice_points(
    session: AsyncSession, guild_id: int, user_id: int
) -> dict[str, list[RatingPoint]]:
    """Alice's Crown rating over eight rated matches; nobody else has any."""
    if user_id != ALICE:
        return {}
    start = datetime(2026, 1, 1, tzinfo=UTC)
    return {
        "crown": [
            RatingPoint(start + timedelta(days=n), 1500 + 20 * n, 300 - 20 * n) for n in range(8)
        ]
    }


@pytest.fixture
def history() -> RatingHistory:
    return alice_points


async def test_a_rating_chart_is_drawn_once_and_served_from_its_file(
    client: Client, app: web.Application, server: Server, base: str,
    sessions: async_sessionmaker[AsyncSession],
) -> None:  # fmt: skip
    from web.app import SITE

    key = ids.player_id(await player_key(sessions, server.token), ALICE)
    text = await page(client, f"{base}/p/{key}")
    assert f'src="{base}/p/{key}/crown.png"' in text
    first = await client.get(f"{base}/p/{key}/crown.png")
    body = await first.read()
    assert first.status == 200 and body.startswith(b"\x89PNG")
    second = await client.get(f"{base}/p/{key}/crown.png")
    assert await second.read() == body
    assert app[SITE].charts.drawn == 1
    assert (await client.get(f"{base}/p/{key}/claim.png")).status == 404
    other = ids.player_id(await player_key(sessions, server.token), BOB)
    assert (await client.get(f"{base}/p/{other}/crown.png")).status == 404
