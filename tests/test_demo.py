"""``parlor demo``: run as a newcomer runs it, into a temporary file, then read as the bot and
the web pages read it."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot import demo
from bot.service.member_history import series
from bot.service.servers import ServerService
from db.engine import session_factory
from db.migrate import upgrade
from db.models import Match, MatchPlayer, MatchReview, RatingChange
from web.app import make_app
from web.server import read_only_engine

REPO = Path(__file__).resolve().parents[1]
PER_GAME = 2
LINK = re.compile(r"Its web pages: (http://\S+/s/([\w-]+)/)$", re.MULTILINE)

Client = TestClient[web.Request, web.Application]
MakeClient = Callable[[web.Application], Awaitable[Client]]


@dataclass(frozen=True)
class Done:
    status: int
    out: str
    err: str


def parlor_demo(*args: str, where: Path, timeout: float = 120) -> Done:
    """``parlor demo ARGS`` as its own process in the folder ``where``, as a newcomer types
    it (with no ``.env`` there)."""
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    for setting in ("DATABASE_URL", "WEB_BASE_URL", "WEB_HOST", "WEB_PORT"):
        environment.pop(setting, None)
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "demo", *args],
        capture_output=True,
        text=True,
        cwd=where,
        env=environment,
        timeout=timeout,
        check=False,
    )
    return Done(done.returncode, done.stdout, done.stderr)


@dataclass(frozen=True)
class Made:
    path: Path
    token: str
    out: str


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    path = tmp_path_factory.mktemp("demo") / "demo.db"
    done = parlor_demo("--database", str(path), "--matches", str(PER_GAME), where=path.parent)
    assert done.status == 0, done.err
    found = LINK.search(done.out)
    assert found is not None, done.out
    return Made(path, found[2], done.out)


@pytest.fixture
async def read_only(made: Made) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = read_only_engine(demo.sqlite_url(made.path))
    try:
        yield session_factory(engine)
    finally:
        await engine.dispose()


def test_the_demo_says_where_its_pages_are_and_how_to_serve_them(made: Made) -> None:
    assert f"Its web pages: http://127.0.0.1:8080/s/{made.token}/" in made.out
    assert f"DATABASE_URL=sqlite+aiosqlite:///{made.path} parlor web" in made.out
    assert demo.is_demo(made.path)


async def test_every_game_has_finished_rated_reviewed_matches(
    read_only: async_sessionmaker[AsyncSession],
) -> None:
    async with read_only() as session:
        rows = await session.execute(
            select(Match.game, func.count()).where(Match.status == "finished").group_by(Match.game)
        )
        finished = {game: count for game, count in rows}
        unnamed = await session.scalar(
            select(func.count()).select_from(MatchPlayer).where(MatchPlayer.display_name.is_(None))
        )
        rated = set((await session.execute(select(RatingChange.game).distinct())).scalars().all())
        reviews = await session.scalar(select(func.count()).select_from(MatchReview))
    assert finished == dict.fromkeys(games.GAMES, PER_GAME)
    assert unnamed == 0
    assert rated == set(games.GAMES)
    assert reviews == PER_GAME * len(games.GAMES)

    boards = await ServerService(read_only).leaderboards(demo.GUILD, None, 20)
    members = range(demo.FIRST_MEMBER, demo.FIRST_MEMBER + len(demo.MEMBERS))
    for game in games.GAMES:
        board = boards[game]
        assert not board.empty, f"{game} has no leaderboard"
        for standing in [*board.ranked, *board.provisional, *board.inactive]:
            assert standing.user_id in members
            assert standing.line.wins + standing.line.losses + standing.line.draws > 0


async def test_the_site_serves_its_pages_from_the_demo(
    made: Made, read_only: async_sessionmaker[AsyncSession], aiohttp_client: MakeClient,
    tmp_path: Path,
) -> None:  # fmt: skip
    client = await aiohttp_client(make_app(read_only, chart_folder=tmp_path, history=series))
    base = f"/s/{made.token}"

    async def page(path: str) -> str:
        response = await client.get(path)
        assert response.status == 200, path
        return await response.text()

    home = await page(f"{base}/")
    for game in games.GAMES:
        board = await page(f"{base}/g/{game}?list=provisional")  # two matches a game each
        assert any(f">{name}</a>" in board for name, _ in demo.MEMBERS)
    player = re.findall(rf'href="({base}/p/\w+)"', home)[0]
    shown = await page(player)
    chart = re.findall(r'src="([^"]+\.png)"', shown)[0]
    response = await client.get(chart)
    assert response.status == 200 and response.content_type == "image/png"
    match = re.findall(rf'href="({base}/m/\d+)"', shown)[0]
    replay = await page(match)
    assert "Step 1 of" in await page(f"{match}?step=1") and "Moves" in replay


def test_another_database_is_left_alone_without_force(tmp_path: Path) -> None:
    import asyncio

    path = tmp_path / "parlor.db"
    asyncio.run(upgrade(demo.sqlite_url(path)))
    before = path.read_bytes()

    refused = parlor_demo("--database", str(path), "--matches", "1", where=tmp_path)

    assert refused.status == 2
    assert "is not a demo database; it is left as it is" in refused.err
    assert path.read_bytes() == before
    assert not demo.is_demo(path)

    forced = parlor_demo("--database", str(path), "--matches", "1", "--force", where=tmp_path)

    assert forced.status == 0, forced.err
    assert demo.is_demo(path)


def test_an_earlier_demo_in_the_default_file_is_made_again(tmp_path: Path) -> None:
    first = parlor_demo("--matches", "1", where=tmp_path)
    again = parlor_demo("--matches", "1", where=tmp_path)

    assert first.status == again.status == 0, again.err
    assert demo.is_demo(tmp_path / demo.DEFAULT_FILE)
    links = [LINK.search(done.out) for done in (first, again)]
    assert links[0] is not None and links[1] is not None
    assert links[0][2] != links[1][2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_serves_the_pages_until_stopped(tmp_path: Path) -> None:
    port = free_port()
    environment = {**os.environ, "PYTHONPATH": str(REPO), "WEB_PORT": str(port)}
    environment.pop("DATABASE_URL", None)
    environment.pop("WEB_BASE_URL", None)
    args = ["--database", str(tmp_path / "served.db"), "--matches", "1", "--serve"]
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "demo", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=environment,
    )
    try:
        assert process.stdout is not None
        lines = []
        for line in process.stdout:
            lines.append(line)
            if "Ctrl+C stops" in line:
                break
        found = LINK.search("".join(lines))
        assert found is not None, "".join(lines)
        with urllib.request.urlopen(found[1], timeout=10) as response:
            assert response.status == 200
            assert "Parlor" in response.read().decode()
    finally:
        process.send_signal(signal.SIGINT)
        status = process.wait(timeout=30)
    assert status == 0
