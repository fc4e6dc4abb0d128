"""Migration 0004 adds tournaments to a host's database without touching what it holds: a match in
play goes on, records seed the first tournament, and a downgrade leaves the matches as they were.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from alembic import command
from sqlalchemy import Connection, MetaData, Table, func, insert, inspect, select

import games
from bot.service.match_parts import match_parts
from bot.service.tournaments.service import tournament_service
from db.engine import create_engine, session_factory
from db.migrate import alembic_config, upgrade
from db.models import Base, Match
from tests.service.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, Clock

PREVIOUS = "0003"
NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
TOURNAMENT_TABLES = {
    "tournaments",
    "tournament_entrants",
    "tournament_rounds",
    "tournament_games",
    "guild_organizers",
}


async def test_tournaments_arrive_beside_a_match_in_play_and_the_records_seed_them(
    database_url: str,
) -> None:
    engine = create_engine(database_url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(Base.metadata.drop_all)
        await upgrade(engine, PREVIOUS)
        crystal = games.get("crystal")
        state = crystal.new({}, 1)
        state, _ = crystal.apply(state, 0, crystal.parse(state, 0, "9"))
        async with engine.begin() as connection:
            tables = await connection.run_sync(_previous_tables)
            await connection.execute(
                insert(tables["matches"]).values(
                    id=3,
                    guild_id=GUILD,
                    channel_id=CHANNEL,
                    game="crystal",
                    options={},
                    seed=1,
                    state=crystal.dump(state),
                    status="active",
                    version=2,
                    deadline=NOW + timedelta(minutes=10),
                    deadline_kind="turn",
                    challenger_id=ALICE,
                    opponent_id=BOB,
                    vs_bot=False,
                    created_at=NOW,
                    updated_at=NOW,
                    recent=["{p0} captures crystal 9: 9 points."],
                )
            )
            await connection.execute(
                insert(tables["match_players"]),
                [
                    {"match_id": 3, "seat": 0, "user_id": ALICE},
                    {"match_id": 3, "seat": 1, "user_id": BOB},
                ],
            )
            await connection.execute(
                insert(tables["player_stats"]).values(
                    guild_id=GUILD,
                    game="crystal",
                    user_id=CAROL,
                    vs_bot=False,
                    wins=5,
                    losses=0,
                    draws=0,
                    streak=5,
                    best_streak=5,
                    rating=1800.0,
                    deviation=100.0,
                    volatility=0.06,
                    games_played=5,
                    updated_at=NOW,
                )
            )

        await upgrade(engine)

        async with engine.connect() as connection:
            assert await connection.run_sync(_table_names) >= TOURNAMENT_TABLES
        clock = Clock()
        sessions = session_factory(engine)
        service = match_parts(sessions, clock=clock, seeds=lambda: 1)
        tournaments = tournament_service(service)
        # The match in play goes on to its end.
        report = await service.play.submit(3, BOB, "1")
        report = await service.play.submit(3, ALICE, "6")
        assert (report.match.status, report.match.winner_id) == ("finished", ALICE)
        # A knockout seeds Carol, the best rated, first: the bracket puts her on top.
        view = await tournaments.create(
            guild_id=GUILD,
            channel_id=CHANNEL,
            creator_id=ALICE,
            may_organize=True,
            game="crystal",
            format="knockout",
        )
        for player in (ALICE, BOB, CAROL):
            await tournaments.join(view.id, player, guild_id=GUILD)
        view = await tournaments.start(view.id, ALICE, guild_id=GUILD, may_organize=True)
        assert {e.user_id: e.rating for e in view.entrants}[CAROL] == 1800.0
        assert view.round_info[1].bracket[0] == CAROL

        # Back to the previous schema: the tournaments go, the matches stay.
        async with engine.connect() as connection:
            await connection.run_sync(_downgrade, PREVIOUS)
            await connection.commit()
        async with engine.connect() as connection:
            names = await connection.run_sync(_table_names)
            assert not names & TOURNAMENT_TABLES
            assert await connection.scalar(select(func.count()).select_from(Match)) == 1
    finally:
        await engine.dispose()


def _previous_tables(connection: Connection) -> dict[str, Table]:
    metadata = MetaData()
    metadata.reflect(connection, only=["matches", "match_players", "player_stats"])
    return dict(metadata.tables)


def _table_names(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names())


def _downgrade(connection: Connection, revision: str) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.downgrade(config, revision)
