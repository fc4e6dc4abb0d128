"""An upgrade keeps a host's data: a database written by the previous schema, with records and a
match in play, is migrated, and the old match plays on to its end and counts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Connection, MetaData, Table, insert

import games
from bot.service.match_parts import match_parts
from db.engine import create_engine, session_factory
from db.migrate import upgrade
from db.models import Base, PlayerStats
from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock

PREVIOUS = "0001"
NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


async def test_an_old_match_in_play_finishes_after_the_upgrade(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(Base.metadata.drop_all)
        await upgrade(engine, PREVIOUS)

        # Written as the previous version stored it: a Crown match with both Crowns placed,
        # Alice to attack, and Alice's earlier record.
        crown = games.get("crown")
        state = crown.new({}, 1)
        for seat, cell in ((0, "1 1"), (1, "3 3")):
            state, _ = crown.apply(state, seat, crown.parse(state, seat, cell))
        async with engine.begin() as connection:
            tables = await connection.run_sync(_previous_tables)
            await connection.execute(
                insert(tables["matches"]).values(
                    id=7,
                    guild_id=GUILD,
                    channel_id=CHANNEL,
                    game="crown",
                    options=crown.options(state),
                    seed=1,
                    state=crown.dump(state),
                    status="active",
                    version=4,
                    deadline=NOW + timedelta(minutes=10),
                    deadline_kind="turn",
                    challenger_id=ALICE,
                    opponent_id=BOB,
                    vs_bot=False,
                    message_id=555,
                    created_at=NOW,
                    updated_at=NOW,
                )
            )
            await connection.execute(
                insert(tables["match_players"]),
                [
                    {"match_id": 7, "seat": 0, "user_id": ALICE},
                    {"match_id": 7, "seat": 1, "user_id": BOB},
                ],
            )
            await connection.execute(
                insert(tables["player_stats"]).values(
                    guild_id=GUILD,
                    game="crown",
                    user_id=ALICE,
                    vs_bot=False,
                    wins=3,
                    losses=1,
                    draws=0,
                    streak=2,
                    best_streak=2,
                    rating=1600.0,
                    deviation=120.0,
                    volatility=0.06,
                    games_played=4,
                    updated_at=NOW,
                )
            )

        await upgrade(engine)

        clock = Clock()
        service = match_parts(session_factory(engine), clock=clock, mention=lambda u: f"@{u}")
        snap = await service.lookups.snapshot(7)
        assert (snap.status, snap.to_act, snap.message_id) == ("active", (ALICE,), 555)
        report = await service.play.submit(7, ALICE, "3 3")
        assert report.match.status == "finished" and report.match.winner_id == ALICE
        async with session_factory(engine)() as session:
            record = await session.get(PlayerStats, (GUILD, "crown", ALICE, False))
            loser = await session.get(PlayerStats, (GUILD, "crown", BOB, False))
        assert record is not None and loser is not None
        assert (record.wins, record.losses, record.games_played, record.streak) == (4, 1, 5, 3)
        assert record.rating > 1600.0 and (loser.losses, loser.games_played) == (1, 1)
    finally:
        await engine.dispose()


def _previous_tables(connection: Connection) -> dict[str, Table]:
    """The tables as the previous schema made them, read from the database itself."""
    metadata = MetaData()
    metadata.reflect(connection, only=["matches", "match_players", "player_stats"])
    return dict(metadata.tables)
