"""A server with matches played through the real match service, and the site over it."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.service.match_parts import MatchParts, match_parts
from db.models import Match
from db.site import site_by_token, token_hash
from tests.service.conftest import Clock, servers_for
from web.app import make_app
from web.charts import RatingHistory

GUILD, OTHER_GUILD, CHANNEL = 1000, 1001, 2000
ALICE, BOB, CAROL, DAVE = (314159265358979300 + n for n in (11, 22, 33, 44))
"""Snowflake-sized, so a test can tell that no page shows one."""
PARLOR = 314159265358979399
"""The bot's own user id."""


async def play(
    service: MatchParts,
    sessions: async_sessionmaker[AsyncSession],
    game: str,
    players: tuple[int, int],
    rng: random.Random,
    *,
    guild: int = GUILD,
    finish: bool = True,
) -> int:
    """A match of ``game`` between ``players`` with random legal moves; its id. Unless
    ``finish``, it stops at its first move that is not a secret: a match in play."""
    report = await service.challenges.challenge(
        guild_id=guild, channel_id=CHANNEL, challenger_id=players[0], opponent_id=players[1],
        game=game,
    )  # fmt: skip
    match_id = report.match.id
    if players[1] != PARLOR:
        report = await service.challenges.accept(match_id, players[1])
    engine = games.get(game)
    for _ in range(400):
        if report.match.over:
            return match_id
        user = rng.choice([u for u in report.match.to_act if u != PARLOR])
        seat = report.match.players.index(user)
        async with sessions() as session:
            row = await session.get(Match, match_id)
            assert row is not None and row.state is not None
            state = engine.load(row.state)
        if not finish and (not engine.has_secrets or report.match.status == "active"):
            return match_id
        legal = engine.legal_actions(state, seat)
        action = legal[rng.randrange(len(legal))]
        report = await service.play.submit(match_id, user, str(action))
    await service.play.resign(match_id, players[0])
    return match_id


@dataclass
class Server:
    """The test server: its link's token and what was played in it."""

    token: str
    finished: list[int]
    in_play: int
    against_bot: int
    elsewhere: int
    """A finished match of another server."""


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def server(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> Server:
    seeds = iter(range(1, 10_000))
    service = match_parts(sessions, clock=clock, seeds=lambda: next(seeds), bot_user_id=PARLOR)
    rng = random.Random(7)
    finished = []
    pairs = [(ALICE, BOB), (BOB, CAROL), (ALICE, CAROL), (DAVE, ALICE), (ALICE, BOB)]
    for index, name in enumerate(["crown", "claim", "crystal", "flag", "safe"] * 2):
        finished.append(await play(service, sessions, name, pairs[index % len(pairs)], rng))
        clock.advance(minutes=30)
    against_bot = await play(service, sessions, "crystal", (CAROL, PARLOR), rng)
    in_play = await play(service, sessions, "crown", (ALICE, DAVE), rng, finish=False)
    elsewhere = await play(service, sessions, "crown", (ALICE, BOB), rng, guild=OTHER_GUILD)
    token = await servers_for(service).open_site(GUILD)
    await servers_for(service).open_site(OTHER_GUILD)
    return Server(token, finished, in_play, against_bot, elsewhere)


@pytest.fixture
def history() -> RatingHistory | None:
    """What the site draws charts from; none unless a test says so."""
    return None


@pytest.fixture
def app(
    sessions: async_sessionmaker[AsyncSession],
    tmp_path: Path,
    history: RatingHistory | None,
    clock: Clock,
) -> web.Application:
    return make_app(sessions, chart_folder=tmp_path / "charts", history=history, clock=clock)


async def player_key(sessions: async_sessionmaker[AsyncSession], token: str) -> bytes:
    async with sessions() as session:
        found = await site_by_token(session, token_hash(token))
    assert found is not None
    return found.player_key


@pytest.fixture
async def base(server: Server) -> AsyncIterator[str]:
    yield f"/s/{server.token}"
