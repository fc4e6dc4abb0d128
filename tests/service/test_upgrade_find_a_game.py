"""The upgrade to 0008 keeps a host's data: a challenge by name waiting for its answer is still
taken by its opponent, a tournament's match is known as a pairing, and a server's timeouts stay
while it gets the queue's default wait and no threads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import MetaData, Table, insert, select, text

from bot.service.match_parts import match_parts
from bot.service.servers import ServerService
from db.engine import create_engine, session_factory
from db.migrate import upgrade
from db.models import Base, Match
from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock

PREVIOUS = "0006"
NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


async def test_matches_and_settings_carry_over(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(Base.metadata.drop_all)
            await connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
        await upgrade(engine, PREVIOUS)
        async with engine.begin() as connection:
            tables = await connection.run_sync(
                lambda sync: {
                    name: Table(name, MetaData(), autoload_with=sync)
                    for name in ("matches", "guild_settings")
                }
            )
            base = {
                "guild_id": GUILD, "channel_id": CHANNEL, "game": "crystal", "options": {},
                "seed": 1, "version": 0, "challenger_id": ALICE, "opponent_id": BOB,
                "vs_bot": False, "created_at": NOW, "updated_at": NOW, "tournament_id": None,
            }  # fmt: skip
            await connection.execute(
                insert(tables["matches"]),
                [
                    {**base, "id": 1, "status": "challenged", "deadline_kind": "challenge",
                     "deadline": NOW + timedelta(minutes=15)},
                    {**base, "id": 2, "status": "aborted", "tournament_id": 5, "deadline": None,
                     "deadline_kind": None},
                ],
            )  # fmt: skip
            await connection.execute(
                insert(tables["guild_settings"]).values(
                    guild_id=GUILD, turn_timeout=90, updated_at=NOW
                )
            )
        await upgrade(engine)

        sessions = session_factory(engine)
        async with sessions() as session:
            rows = (await session.execute(select(Match.id, Match.origin).order_by(Match.id))).all()
        assert [tuple(row) for row in rows] == [(1, "named"), (2, "paired")]
        clock = Clock()
        service = match_parts(sessions, clock=clock, seeds=lambda: 1, mention=lambda u: f"@{u}")
        started = await service.challenges.accept(1, BOB)
        assert started.match.status == "active" and started.match.players == (ALICE, BOB)
        servers = ServerService(sessions, clock=clock)
        assert (await servers.server_timeouts(GUILD)).turn == 90
        options = await servers.options(GUILD)
        assert (options.queue_fallback, options.threads) == (None, False)
    finally:
        await engine.dispose()
