"""A rating chart's description says where new seasons began, as its dashed lines show them: the
seasons closed through the season service, their soft resets read back from the database the
way the site reads a chart's points, in the server's language."""

from __future__ import annotations

import html
import random
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.match_parts import match_parts
from bot.service.member_history import series
from bot.service.seasons import Seasons
from db.after_match import rating_points
from db.languages import choose_language
from tests.service.conftest import Clock
from tests.web.conftest import ALICE, BOB, PARLOR, Server, play, player_key
from tests.web.test_handlers import page
from web import ids
from web.charts import RatingHistory
from web.pages import SEASON_DAYS

Client = TestClient[web.Request, web.Application]
MakeClient = Callable[[web.Application], Awaitable[Client]]
GUILD = 1000
DESCRIBED = "{name}\u2019s Capture the Crown rating after each rated match, with its likely range."


@pytest.fixture
def history() -> RatingHistory:
    """The points the site itself draws charts from (``web.server``)."""
    return series


@pytest.fixture
async def client(aiohttp_client: MakeClient, app: web.Application) -> Client:
    return await aiohttp_client(app)


async def new_seasons(
    sessions: async_sessionmaker[AsyncSession], clock: Clock, ends: list[datetime]
) -> None:
    """A rated Crown match of Alice's, then the server's running season closed at its end, for
    each of ``ends`` (each the running season's end): each soft reset widens her deviation."""
    seeds = iter(range(500, 10_000))
    service = match_parts(sessions, clock=clock, seeds=lambda: next(seeds), bot_user_id=PARLOR)
    rng = random.Random(3)
    for end in ends:
        await play(service, sessions, "crown", (ALICE, BOB), rng)
        clock.now = end.replace(minute=1)
        assert await Seasons(sessions, clock=clock).close_due(), "the season closed"


def quarters(count: int) -> list[datetime]:
    """The ends of the server's first ``count`` seasons, a quarter each from 2026-04-01."""
    return [datetime(2026 + q // 4, 1 + 3 * (q % 4), 1, tzinfo=UTC) for q in range(1, count + 1)]


async def described(client: Client, sessions: async_sessionmaker[AsyncSession], server: Server,
                    base: str, user: int = ALICE) -> str:  # fmt: skip
    """The description of the member's Crown chart on their page, their name as ``{name}``."""
    key = ids.player_id(await player_key(sessions, server.token), user)
    text = await page(client, f"{base}/p/{key}")
    found = re.findall(rf'src="{base}/p/{key}/crown\.png"[^>]*alt="([^"]*)"', text)
    assert len(found) == 1, text
    name = re.findall(r"<h1>([^<]*)</h1>", text)
    assert len(name) == 1
    return html.unescape(found[0]).replace(html.unescape(name[0]), "{name}")


async def resets(sessions: async_sessionmaker[AsyncSession], user: int) -> list[datetime]:
    async with sessions() as session:
        points = (await rating_points(session, GUILD, user, "crown"))["crown"]
    return [p.at for p in points if p.reset]


async def test_without_a_new_season_the_chart_is_described_as_before(
    client: Client, server: Server, base: str, sessions: async_sessionmaker[AsyncSession]
) -> None:
    assert await described(client, sessions, server, base) == DESCRIBED


async def test_the_description_names_each_new_seasons_day(
    client: Client, server: Server, base: str, sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
) -> None:  # fmt: skip
    await new_seasons(sessions, clock, quarters(1))
    assert [at.date().isoformat() for at in await resets(sessions, ALICE)] == ["2026-04-01"]
    assert await described(client, sessions, server, base) == (
        f"{DESCRIBED} A dashed line marks where a new season began, on 2026-04-01 (UTC)."
    )
    bob = await described(client, sessions, server, base, BOB)
    assert bob.endswith("A dashed line marks where a new season began, on 2026-04-01 (UTC).")


async def test_several_new_seasons_are_listed_in_the_servers_language(
    client: Client, server: Server, base: str, sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
) -> None:  # fmt: skip
    await new_seasons(sessions, clock, quarters(3))
    assert len(await resets(sessions, ALICE)) == 3
    assert await described(client, sessions, server, base) == (
        f"{DESCRIBED} Dashed lines mark where 3 new seasons began, on 2026-04-01, 2026-07-01,"
        " and 2026-10-01 (UTC)."
    )
    async with sessions.begin() as session:
        await choose_language(session, GUILD, "fr", clock())
    assert await described(client, sessions, server, base) == (
        "Cote de {name} en Capture de la couronne après chaque partie classée, avec sa plage"
        " probable. Des lignes pointillées marquent le début de 3 nouvelles saisons, les"
        " 2026-04-01, 2026-07-01 et 2026-10-01 (UTC)."
    )


async def test_many_new_seasons_are_counted_from_the_first_to_the_latest(
    client: Client, server: Server, base: str, sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
) -> None:  # fmt: skip
    await new_seasons(sessions, clock, quarters(SEASON_DAYS + 1))
    assert len(await resets(sessions, ALICE)) == SEASON_DAYS + 1
    assert await described(client, sessions, server, base) == (
        f"{DESCRIBED} Dashed lines mark where 7 new seasons began, the first on 2026-04-01 and"
        " the latest on 2027-10-01 (UTC)."
    )
