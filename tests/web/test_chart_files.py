"""The chart folder as another local user would try it: a folder of theirs, links planted at a
chart's name or at the name it is written under, and a chart drawing while the site is asked
for more (on SQLite the pool has one connection)."""

from __future__ import annotations

import asyncio
import os
import stat
import threading
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.i18n import speaking
from bot.locales import DEFAULT
from bot.service.charts import RatingPoint, rating_chart
from tests.web.conftest import ALICE, BOB, GUILD, Server, player_key
from web import ids
from web.app import SITE, make_app
from web.chart_folder import FolderRefused
from web.charts import RatingHistory, chart_name

Client = TestClient[web.Request, web.Application]
MakeClient = Callable[[web.Application], Awaitable[Client]]
SECRET = b"DISCORD_TOKEN=not-for-the-web\n"
START = datetime(2026, 1, 1, tzinfo=UTC)


def rated(matches: int) -> list[RatingPoint]:
    return [
        RatingPoint(START + timedelta(days=n), 1500 + 20 * n, 300 - 20 * n) for n in range(matches)
    ]


class Ratings:
    """Alice's and Bob's Crown ratings, which a test may move on by a match."""

    def __init__(self) -> None:
        self.points = {ALICE: rated(6), BOB: rated(3)}

    async def __call__(
        self, session: AsyncSession, guild_id: int, user_id: int
    ) -> dict[str, list[RatingPoint]]:
        found = self.points.get(user_id)
        return {"crown": list(found)} if found else {}


@pytest.fixture
def ratings() -> Ratings:
    return Ratings()


@pytest.fixture
def history(ratings: Ratings) -> RatingHistory:
    return ratings


@pytest.fixture
def charts(tmp_path: Path) -> Path:
    """The folder the ``app`` fixture keeps its charts in."""
    return tmp_path / "charts"


@pytest.fixture
async def client(aiohttp_client: MakeClient, app: web.Application) -> Client:
    return await aiohttp_client(app)


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file the web process can read and write, which no chart may show or overwrite."""
    path = tmp_path / ".env"
    path.write_bytes(SECRET)
    return path


async def chart_address(
    sessions: async_sessionmaker[AsyncSession], server: Server, user: int
) -> str:
    key = ids.player_id(await player_key(sessions, server.token), user)
    return f"/s/{server.token}/p/{key}/crown.png"


def files(folder: Path) -> list[str]:
    return sorted(entry.name for entry in folder.iterdir())


def untouched(secret: Path) -> bool:
    return secret.read_bytes() == SECRET


def private_file(path: Path) -> bool:
    """A regular file (not a link) only its owner may read."""
    found = path.lstat()
    return stat.S_ISREG(found.st_mode) and stat.S_IMODE(found.st_mode) == 0o600


def plant(charts: Path, secret: Path, at: list[str]) -> None:
    """Links to ``secret`` at each name of ``at`` in the chart folder."""
    charts.mkdir(mode=0o700, exist_ok=True)
    for name in at:
        (charts / name).unlink(missing_ok=True)
        (charts / name).symlink_to(secret)


def test_a_folder_another_user_could_write_in_or_own_or_a_link_is_refused(
    sessions: async_sessionmaker[AsyncSession], tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # as the system's temporary folder is
    with pytest.raises(FolderRefused, match="other users may write in it"):
        make_app(sessions, chart_folder=shared)
    elsewhere = tmp_path / "mine"
    elsewhere.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(elsewhere)
    with pytest.raises(FolderRefused, match="link"):
        make_app(sessions, chart_folder=tmp_path / "link")
    if os.geteuid() == 0:  # only root can give a folder to another user
        theirs = tmp_path / "theirs"
        theirs.mkdir(mode=0o700)
        os.chown(theirs, 65534, 65534)
        with pytest.raises(FolderRefused, match="another user"):
            make_app(sessions, chart_folder=theirs)


async def test_a_missing_folder_is_created_for_this_user_alone(
    aiohttp_client: MakeClient, sessions: async_sessionmaker[AsyncSession], tmp_path: Path
) -> None:
    folder = tmp_path / "data" / "charts"
    await aiohttp_client(make_app(sessions, chart_folder=folder))
    found = folder.lstat()
    assert stat.S_ISDIR(found.st_mode) and stat.S_IMODE(found.st_mode) & 0o077 == 0
    assert found.st_uid == os.geteuid()


async def test_a_link_planted_at_a_charts_names_is_never_followed(
    client: Client, server: Server, sessions: async_sessionmaker[AsyncSession], charts: Path,
    secret: Path, ratings: Ratings,
) -> None:  # fmt: skip
    with speaking(DEFAULT):
        alices = chart_name(GUILD, ALICE, "crown", ratings.points[ALICE])
        bobs = chart_name(GUILD, BOB, "crown", ratings.points[BOB])
    plant(charts, secret, [alices])
    # Where a chart was once written before its final name: a PNG must never land in .env.
    pids = range(os.getpid() - 2, os.getpid() + 3)
    plant(charts, secret, [f"{bobs.removesuffix('.png')}.{pid}.part" for pid in pids])
    for user in (ALICE, BOB):
        response = await client.get(await chart_address(sessions, server, user))
        body = await response.read()
        assert response.status == 200 and body.startswith(b"\x89PNG")
        assert untouched(secret)
    for name in (alices, bobs):
        assert private_file(charts / name), "a link is replaced by the chart, not written through"


async def test_a_chart_swapped_for_a_link_is_never_served(
    client: Client, server: Server, sessions: async_sessionmaker[AsyncSession], charts: Path,
    secret: Path,
) -> None:  # fmt: skip
    address = await chart_address(sessions, server, ALICE)
    drawn = await (await client.get(address)).read()
    plant(charts, secret, files(charts))
    response = await client.get(address)
    body = await response.read()
    assert body != SECRET and SECRET not in body
    assert response.status == 200 and body == drawn, "drawn again in its place"
    assert untouched(secret)


async def test_a_newer_chart_removes_the_one_it_replaces(
    client: Client, server: Server, sessions: async_sessionmaker[AsyncSession], charts: Path,
    ratings: Ratings,
) -> None:  # fmt: skip
    alice = await chart_address(sessions, server, ALICE)
    first = await client.get(alice)
    assert (await client.get(await chart_address(sessions, server, BOB))).status == 200
    before = files(charts)
    assert len(before) == 2
    ratings.points[ALICE] = rated(7)  # Alice plays another rated match
    second = await client.get(alice)
    assert second.status == 200 and second.headers["ETag"] != first.headers["ETag"]
    after = files(charts)
    assert len(after) == 2, "Alice's old chart is gone, Bob's stays"
    assert len(set(before) & set(after)) == 1


async def test_a_seasons_reset_is_a_newer_chart_named_apart_from_a_match(
    client: Client, server: Server, sessions: async_sessionmaker[AsyncSession],
    ratings: Ratings,
) -> None:  # fmt: skip
    alice = await chart_address(sessions, server, ALICE)
    first = await client.get(alice)
    last = ratings.points[ALICE][-1]
    reset = RatingPoint(START + timedelta(days=30), last.rating, 120.0, reset=True)
    ratings.points[ALICE] = [*rated(6), reset]  # the season ended: the band widens
    second = await client.get(alice)
    assert second.status == 200 and second.headers["ETag"] != first.headers["ETag"]
    as_a_match = [*rated(6), RatingPoint(reset.at, reset.rating, reset.deviation)]
    assert chart_name(GUILD, ALICE, "crown", as_a_match) != chart_name(
        GUILD, ALICE, "crown", ratings.points[ALICE]
    )


async def test_a_chart_drawing_holds_no_database_connection(
    client: Client, app: web.Application, server: Server, base: str,
    sessions: async_sessionmaker[AsyncSession],
) -> None:  # fmt: skip
    started, release = threading.Event(), threading.Event()

    def slow(*args: Any, **kwargs: Any) -> bytes | None:
        started.set()
        release.wait(60)
        return rating_chart(*args, **kwargs)

    app[SITE].charts.render = slow
    request = asyncio.create_task(client.get(await chart_address(sessions, server, ALICE)))
    try:
        assert await asyncio.to_thread(started.wait, 60)
        # A connection held by the drawing would keep these waiting for the pool's timeout.
        async with asyncio.timeout(20):
            async with sessions() as session, session.begin():
                assert (await session.execute(text("SELECT 1"))).scalar() == 1
            page = await client.get(f"{base}/g/crown")
        assert page.status == 200
    finally:
        release.set()
    response = await request
    assert response.status == 200 and (await response.read()).startswith(b"\x89PNG")
