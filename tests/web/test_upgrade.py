"""``parlor web`` on a database of the previous release: refused in one line until the bot (or
``parlor db upgrade``) has upgraded it, then it shows the ratings the database already held."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from bot.service.servers import ServerService
from bot.settings import Settings
from db.engine import create_engine, session_factory
from db.migrate import upgrade
from web.app import make_app
from web.server import NOT_UPGRADED, read_only_engine, serve

PREVIOUS_RELEASE = "0006"


async def test_a_database_the_bot_has_not_upgraded_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    await upgrade(url, PREVIOUS_RELEASE)
    assert await serve(Settings(database_url=url)) == 2
    err = capsys.readouterr().err
    assert err == NOT_UPGRADED + "\n" and "`parlor db upgrade`" in err
    missing = f"sqlite+aiosqlite:///{tmp_path / 'none.db'}"
    assert await serve(Settings(database_url=missing)) == 2
    assert not (tmp_path / "none.db").exists(), "a missing file is not created"


async def test_the_ratings_of_a_previous_release_show_once_upgraded(
    tmp_path: Path, aiohttp_client: object
) -> None:
    path = tmp_path / "old.db"
    url = f"sqlite+aiosqlite:///{path}"
    await upgrade(url, PREVIOUS_RELEASE)
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO player_stats (guild_id, game, user_id, vs_bot, wins, losses, draws,"
            " streak, best_streak, rating, deviation, volatility, games_played, updated_at)"
            " VALUES (5, 'safe', 777, 0, 9, 2, 1, 3, 4, 1712.4, 61.0, 0.06, 12,"
            " '2025-06-01 10:00:00.000000')"
        )
    await upgrade(url)  # what the bot does as it starts
    writer = create_engine(url)
    token = await ServerService(session_factory(writer)).open_site(5)
    await writer.dispose()
    reader = read_only_engine(url)
    try:
        app = make_app(session_factory(reader), chart_folder=tmp_path / "charts")
        client: TestClient[web.Request, web.Application] = await aiohttp_client(app)  # type: ignore[operator]
        # Last rated long before the upgrade: listed apart as inactive, rating as it was.
        text = await (await client.get(f"/s/{token}/g/safe?list=inactive")).text()
        assert "1712 ± 61" in text and "3 won" in text
        async with reader.connect() as connection:
            with pytest.raises(Exception, match=r"readonly"):
                await connection.exec_driver_sql("DELETE FROM player_stats")
    finally:
        await reader.dispose()
