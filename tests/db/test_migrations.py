"""The Alembic migrations build exactly the models' schema, from the installed package's files."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Table, func, inspect, select
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from db.engine import create_engine
from db.migrate import MIGRATION_LOCK, alembic_config, upgrade
from db.models import Base

HEAD = "0016"

PROJECT = Path(__file__).parents[2]
TABLES = {
    "outbox",
    "matches",
    "match_players",
    "match_events",
    "player_stats",
    "guild_settings",
    "bot_meta",
    "tournaments",
    "tournament_entrants",
    "tournament_rounds",
    "tournament_games",
    "guild_organizers",
    "web_sites",
    "queue_entries",
    "queue_boards",
    "rating_history",
    "match_reviews",
    "member_locales",
    "dm_prompts",
    "dm_answers",
    "puzzles",
    "puzzle_attempts",
    "puzzle_ratings",
    "daily_puzzles",
    "puzzle_sources",
    "seasons",
    "season_standings",
    "season_podiums",
    "rank_roles",
    "rank_grants",
    "rank_updates",
}


def schema_differences(connection: Connection) -> list[Any]:
    differences: list[Any] = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    return differences + where_differences(connection)


def folded(where: object) -> str | None:
    """A partial index's ``WHERE`` as text, its spaces and brackets left out (PostgreSQL
    reflects ``(shown < version)`` for ``shown < version``)."""
    return None if where is None else str(where).translate(str.maketrans("", "", " ()"))


def where_differences(connection: Connection) -> list[Any]:
    """``(index, declared WHERE, stored WHERE)`` of each index whose ``WHERE`` differs from the
    models': Alembic's comparison reads an index's columns only."""
    dialect = connection.dialect.name
    stored = {
        index["name"]: folded(index.get("dialect_options", {}).get(f"{dialect}_where"))
        for table in Base.metadata.tables
        for index in inspect(connection).get_indexes(table)
    }
    declared = {
        index.name: folded(index.dialect_options[dialect]["where"])
        for table in Base.metadata.tables.values()
        for index in table.indexes
    }
    return [
        (name, where, stored.get(name))
        for name, where in declared.items()
        if name in stored and stored[name] != where
    ]


def current_revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def table_names(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names())


@pytest.fixture
async def empty_database_url(database_url: str) -> str:
    """The test's database without a single table."""
    engine = create_engine(database_url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(Base.metadata.drop_all)
        async with engine.connect() as connection:
            assert await connection.run_sync(table_names) == set()
    finally:
        await engine.dispose()
    return database_url


@pytest.fixture
async def migrated_engine(empty_database_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(empty_database_url)
    await upgrade(engine)
    yield engine
    await engine.dispose()


def crown_in_play() -> Any:
    """A Capture the Crown state in play: both secrets chosen (1 1 and 3 3)."""
    import games

    crown = games.get("crown")
    state = crown.new({}, 1)
    for seat, cell in ((0, "1 1"), (1, "3 3")):
        state, _events = crown.apply(state, seat, crown.parse(state, seat, cell))
    return state


async def reflected(connection: AsyncConnection, *names: str) -> dict[str, Table]:
    """The tables ``names`` as the database's schema has them now (an older revision's)."""
    from sqlalchemy import MetaData

    return await connection.run_sync(
        lambda sync: {name: Table(name, MetaData(), autoload_with=sync) for name in names}
    )


async def insert_open_match(
    connection: AsyncConnection,
    tables: dict[str, Table],
    game: str,
    state: Any,
    now: datetime,
    *,
    version: int = 4,
    **columns: object,
) -> None:
    """Match 7, Alice against Bob at ``game`` in play (``state``, at ``version``), and its
    seats, as an older revision stored them: ``tables`` reflected from its schema, ``columns``
    what it holds beside (``place`` from 0013 on)."""
    from datetime import timedelta

    from sqlalchemy import insert

    import games
    from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD

    engine = games.get(game)
    await connection.execute(
        insert(tables["matches"]).values(
            id=7, guild_id=GUILD, channel_id=CHANNEL, game=game,
            options=engine.options(state), seed=1, state=engine.dump(state),
            status="active", version=version, deadline=now + timedelta(minutes=10),
            deadline_kind="turn", challenger_id=ALICE, opponent_id=BOB, vs_bot=False,
            message_id=555, created_at=now, updated_at=now, origin="named", **columns,
        )
    )  # fmt: skip
    await connection.execute(
        insert(tables["match_players"]),
        [{"match_id": 7, "seat": 0, "user_id": ALICE},
         {"match_id": 7, "seat": 1, "user_id": BOB}],
    )  # fmt: skip


def test_there_is_one_head() -> None:
    scripts = ScriptDirectory.from_config(alembic_config())

    assert scripts.get_heads() == [HEAD]
    assert Path(scripts.dir).resolve() == (PROJECT / "db" / "migrations").resolve()


async def test_upgrading_an_empty_database_gives_the_models_schema(
    migrated_engine: AsyncEngine,
) -> None:
    async with migrated_engine.connect() as connection:
        differences = await connection.run_sync(schema_differences)
        revision = await connection.run_sync(current_revision)
        tables = await connection.run_sync(table_names)

    assert differences == []
    assert revision == HEAD
    assert tables == TABLES | {"alembic_version"}


async def test_upgrading_an_up_to_date_database_changes_nothing(
    migrated_engine: AsyncEngine,
) -> None:
    await upgrade(migrated_engine)

    async with migrated_engine.connect() as connection:
        assert await connection.run_sync(current_revision) == HEAD
        assert await connection.run_sync(schema_differences) == []


async def test_upgrade_takes_a_url_and_works_from_any_directory(
    empty_database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)

    await upgrade(empty_database_url)

    engine = create_engine(empty_database_url)
    try:
        async with engine.connect() as connection:
            assert await connection.run_sync(current_revision) == HEAD
    finally:
        await engine.dispose()


async def test_downgrading_to_base_removes_every_table(migrated_engine: AsyncEngine) -> None:
    def downgrade_to_base(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.downgrade(config, "base")

    async with migrated_engine.connect() as connection:
        await connection.run_sync(downgrade_to_base)
    async with migrated_engine.connect() as connection:
        assert await connection.run_sync(table_names) == {"alembic_version"}
        assert await connection.run_sync(current_revision) is None


async def test_sqlite_connections_keep_foreign_keys_after_migrating(
    migrated_engine: AsyncEngine,
) -> None:
    if migrated_engine.dialect.name != "sqlite":
        pytest.skip("SQLite pragma")
    async with migrated_engine.connect() as connection:
        foreign_keys = await connection.exec_driver_sql("PRAGMA foreign_keys")
        assert foreign_keys.scalar_one() == 1


async def test_an_upgrade_waits_for_one_already_under_way(empty_database_url: str) -> None:
    # Two bot processes starting together on one database: the second must wait for the first,
    # then find nothing to do, instead of creating the tables a second time.
    holder, engine = create_engine(empty_database_url), create_engine(empty_database_url)
    try:
        async with holder.connect() as held:
            if held.dialect.name == "postgresql":
                await held.execute(select(func.pg_advisory_lock(MIGRATION_LOCK)))
            else:
                await held.exec_driver_sql("BEGIN IMMEDIATE")
            waiting = asyncio.create_task(upgrade(engine))
            await asyncio.sleep(0.3)
            assert not waiting.done()
            await held.rollback()
            if held.dialect.name == "postgresql":
                await held.execute(select(func.pg_advisory_unlock(MIGRATION_LOCK)))
        await waiting

        async with engine.connect() as connection:
            assert await connection.run_sync(current_revision) == HEAD
    finally:
        await holder.dispose()
        await engine.dispose()


async def test_match_facts_are_filled_in_from_the_event_log(empty_database_url: str) -> None:
    """0005 carries what tournaments read out of event payloads into columns."""
    from datetime import UTC, datetime

    from sqlalchemy import insert, text

    engine = create_engine(empty_database_url)
    when = datetime(2026, 1, 1, tzinfo=UTC)
    try:
        await upgrade(engine, "0004")
        async with engine.begin() as connection:
            tables = await reflected(connection, "matches", "match_events")
            base = {
                "guild_id": 1, "channel_id": 2, "game": "crown", "options": {}, "seed": 1,
                "version": 3, "challenger_id": 10, "opponent_id": 11, "vs_bot": False,
                "created_at": when, "updated_at": when,
            }  # fmt: skip
            await connection.execute(
                insert(tables["matches"]),
                [{**base, "id": 1, "status": "finished"}, {**base, "id": 2, "status": "aborted"}],
            )
            event = {"created_at": when, "audience": None}
            await connection.execute(
                insert(tables["match_events"]),
                [
                    {**event, "match_id": 1, "seq": 1, "seat": 1, "kind": "action:secret",
                     "payload": {"action": "1 1"}},
                    {**event, "match_id": 2, "seq": 1, "seat": None, "kind": "abort",
                     "payload": {"by": 11}},
                ],
            )  # fmt: skip
        await upgrade(engine, "0005")
        async with engine.connect() as connection:
            query = text("SELECT id, acted_seats, called_off_by FROM matches ORDER BY id")
            rows = (await connection.execute(query)).all()
        assert [tuple(row) for row in rows] == [(1, 2, None), (2, 0, 11)]
    finally:
        await engine.dispose()


async def test_0011_keeps_a_servers_settings_and_an_open_match_plays_to_its_end(
    empty_database_url: str,
) -> None:
    """A database holding 0010's data: a server's timeouts and a Crown match in play. After the
    upgrade the server has no language of its own (English until Discord reports its locale),
    the match plays to its end, and the move stores the member's locale."""
    from datetime import UTC, datetime

    from sqlalchemy import insert

    from bot.service.acting import Acting
    from bot.service.languages import Languages
    from bot.service.match_parts import match_parts
    from db.engine import session_factory
    from db.languages import member_locale, server_language
    from db.models import GuildSettings, PlayerStats
    from tests.service.conftest import ALICE, BOB, GUILD, Clock

    engine = create_engine(empty_database_url)
    now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    state = crown_in_play()
    try:
        await upgrade(engine, "0010")
        async with engine.begin() as connection:
            tables = await reflected(connection, "matches", "match_players", "guild_settings")
            await connection.execute(
                insert(tables["guild_settings"]).values(
                    guild_id=GUILD, turn_timeout=900, threads=False, updated_at=now
                )
            )
            await insert_open_match(connection, tables, "crown", state, now)

        await upgrade(engine)

        sessions = session_factory(engine)
        async with sessions() as session:
            settings = await session.get(GuildSettings, GUILD)
            assert settings is not None and settings.turn_timeout == 900
            assert await server_language(session, GUILD) == (None, None)
            assert await member_locale(session, ALICE) is None
        clock = Clock()
        languages = Languages(sessions, clock=clock)
        assert await languages.server(GUILD) == "en-US"
        service = match_parts(sessions, clock=clock, languages=languages)

        report = await service.play.submit(7, Acting(ALICE, "de"), "3 3")  # her client's locale
        assert report.match.status == "finished"
        async with sessions() as session:
            assert await member_locale(session, ALICE) == "de"
            assert await member_locale(session, BOB) is None
            winner = await session.get(PlayerStats, (GUILD, "crown", ALICE, False))
            assert winner is not None and winner.wins == 1
        assert await languages.member(BOB, GUILD) == "en-US"  # the server's, until Bob speaks
        assert await languages.member(ALICE, GUILD) == "de"
    finally:
        await engine.dispose()


async def test_0013_carries_every_match_forward_as_a_server_place(
    empty_database_url: str,
) -> None:
    """A database holding 0012's data: a Crown match in play and a finished one. After the
    upgrade both are matches of a server channel, and the one in play ends as before."""
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import insert, text

    import games
    from bot.service.acting import Acting
    from bot.service.match_parts import match_parts
    from db.engine import session_factory
    from db.models import MatchPlace
    from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock

    engine = create_engine(empty_database_url)
    now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    state = crown_in_play()
    crown = games.get("crown")
    try:
        await upgrade(engine, "0012")
        async with engine.begin() as connection:
            tables = await reflected(connection, "matches", "match_players")
            match = {
                "guild_id": GUILD, "channel_id": CHANNEL, "game": "crown",
                "options": crown.options(state), "seed": 1, "state": crown.dump(state),
                "version": 4, "deadline": now + timedelta(minutes=10), "deadline_kind": "turn",
                "challenger_id": ALICE, "opponent_id": BOB, "vs_bot": False, "message_id": 555,
                "created_at": now, "updated_at": now, "origin": "named",
            }  # fmt: skip
            await connection.execute(
                insert(tables["matches"]),
                [{**match, "id": 7, "status": "active"}, {**match, "id": 8, "status": "aborted"}],
            )
            await connection.execute(
                insert(tables["match_players"]),
                [{"match_id": 7, "seat": 0, "user_id": ALICE},
                 {"match_id": 7, "seat": 1, "user_id": BOB}],
            )  # fmt: skip

        await upgrade(engine)

        async with engine.connect() as connection:
            query = text("SELECT id, place FROM matches ORDER BY id")
            rows = [tuple(row) for row in (await connection.execute(query)).all()]
        assert rows == [(7, MatchPlace.SERVER.value), (8, MatchPlace.SERVER.value)]
        service = match_parts(session_factory(engine), clock=Clock())
        report = await service.play.submit(7, Acting(ALICE), "3 3")
        assert report.match.status == "finished"
        assert report.match.place == MatchPlace.SERVER
    finally:
        await engine.dispose()


async def test_0014_keeps_servers_and_matches_and_an_open_match_plays_to_its_end(
    empty_database_url: str,
) -> None:
    """A database holding 0013's data: a server's settings and a Crown match in play. After the
    upgrade the server keeps its settings with no daily puzzle channel, the match plays to its
    end, and a puzzle found in it is stored and answered."""
    from datetime import UTC, datetime

    from sqlalchemy import insert

    from bot.service.acting import Acting
    from bot.service.match_parts import match_parts
    from bot.service.puzzles import Puzzles
    from db.engine import session_factory
    from db.models import GuildSettings
    from tests.puzzle_values import crystal_puzzle
    from tests.service.conftest import ALICE, CAROL, GUILD, Clock

    engine = create_engine(empty_database_url)
    now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    state = crown_in_play()
    try:
        await upgrade(engine, "0013")
        async with engine.begin() as connection:
            tables = await reflected(connection, "matches", "match_players", "guild_settings")
            await connection.execute(
                insert(tables["guild_settings"]).values(
                    guild_id=GUILD, turn_timeout=900, threads=True, language="fr", updated_at=now
                )
            )
            await insert_open_match(connection, tables, "crown", state, now, place="server")

        await upgrade(engine)

        sessions = session_factory(engine)
        async with sessions() as session:
            settings = await session.get(GuildSettings, GUILD)
            assert settings is not None
            assert (settings.turn_timeout, settings.threads, settings.language) == (900, True, "fr")
            assert settings.puzzle_channel is None
        clock = Clock()
        service = match_parts(sessions, clock=clock)
        report = await service.play.submit(7, Acting(ALICE), "3 3")
        assert report.match.status == "finished"
        puzzles = Puzzles(sessions, clock=clock)
        assert await puzzles.store(GUILD, 7, [crystal_puzzle()]) == 1
        shown = await puzzles.next_puzzle(GUILD, CAROL, None)
        assert shown.match_id == 7
        assert (await puzzles.answer(GUILD, CAROL, shown.id, "1")).correct
    finally:
        await engine.dispose()


async def test_0015_carries_ratings_forward_without_a_jump_and_an_open_match_ends(
    empty_database_url: str,
) -> None:
    """A database holding 0013's data: rated records, their history, an old record whose
    history is only 0010's point, a record against the bot, and a Crown match in play. After
    the upgrade each record knows its last rated match, its deviation grows only from the
    upgrade (so nothing shown changes then), and the match plays to its end, rating both."""
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import insert

    import games
    from bot.service.acting import Acting
    from bot.service.match_parts import match_parts
    from bot.service.ratings import INACTIVE_AFTER, Listing, Rating, display
    from bot.service.stats import standing_rating, to_line
    from db.engine import session_factory
    from db.models import PlayerStats, RatingChange
    from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock

    carol, dave = ALICE + 7, BOB + 7
    engine = create_engine(empty_database_url)
    clock = Clock()
    clock.now = now = datetime.now(UTC)  # the upgrade dates itself by the real clock
    played, long_ago = now - timedelta(days=3), now - timedelta(days=200)
    state = crown_in_play()
    crown = games.get("crown")

    def stats(user: int, rating: float, deviation: float, at: datetime, **more: object) -> dict:  # type: ignore[type-arg]
        return {
            "guild_id": GUILD, "game": "crown", "user_id": user, "vs_bot": False, "wins": 5,
            "losses": 3, "draws": 0, "streak": 1, "best_streak": 2, "rating": rating,
            "deviation": deviation, "volatility": 0.06, "games_played": 8, "updated_at": at,
            **more,
        }  # fmt: skip

    try:
        await upgrade(engine, "0013")
        async with engine.begin() as connection:
            tables = await reflected(
                connection, "matches", "match_players", "player_stats", "rating_history"
            )
            await connection.execute(
                insert(tables["player_stats"]),
                [
                    stats(ALICE, 1650.0, 70.0, played),
                    stats(BOB, 1742.0, 290.0, played),
                    stats(carol, 1800.0, 60.0, long_ago),  # only 0010's point in history
                    stats(dave, 1500.0, 500.0, played, vs_bot=True, games_played=4),
                ],
            )
            history = {
                "guild_id": GUILD, "game": "crown", "rating_before": 1500.0,
                "deviation_before": 80.0, "rating_after": 1650.0, "deviation_after": 70.0,
            }  # fmt: skip
            await connection.execute(
                insert(tables["rating_history"]),
                [
                    {**history, "match_id": None, "user_id": ALICE, "at": long_ago},
                    {**history, "match_id": None, "user_id": carol, "at": long_ago},
                    {**history, "match_id": None, "user_id": BOB, "at": long_ago},
                ],
            )
            await insert_open_match(connection, tables, "crown", state, now, place="server")
            # Alice's last rated match is in the matches table, newer than her history point.
            await connection.execute(
                insert(tables["matches"]).values(
                    id=6, guild_id=GUILD, channel_id=CHANNEL, game="crown",
                    options=crown.options(state), seed=1, state=crown.dump(state),
                    status="finished", version=9, challenger_id=ALICE, opponent_id=BOB,
                    vs_bot=False, message_id=554, created_at=played, updated_at=played,
                    finished_at=played, winner_seat=0, origin="named", place="server",
                )
            )  # fmt: skip
            await connection.execute(
                insert(tables["rating_history"]),
                [{**history, "match_id": 6, "user_id": ALICE, "at": played},
                 {**history, "match_id": 6, "user_id": BOB, "at": played}],
            )  # fmt: skip

        before = datetime.now(UTC)
        await upgrade(engine)
        after = datetime.now(UTC)

        sessions = session_factory(engine)
        async with sessions() as session:
            rows = {
                row.user_id: row
                for row in await session.scalars(
                    select(PlayerStats).where(PlayerStats.guild_id == GUILD)
                )
            }
        alice, bob, old, bot_record = rows[ALICE], rows[BOB], rows[carol], rows[dave]
        assert alice.rated_at == bob.rated_at == played
        assert old.rated_at == long_ago
        assert bot_record.rated_at is None and bot_record.deviation_at is None
        for row in (alice, bob, old):
            assert row.deviation_at is not None and before <= row.deviation_at <= after
            upgraded = row.deviation_at
            # Nothing shown changes at the moment of the upgrade.
            assert standing_rating(row, upgraded).deviation == row.deviation
            assert to_line(row, upgraded).rating == display(
                Rating(row.rating, row.deviation, row.volatility)
            )
        assert to_line(alice, after).listing is Listing.RANKED
        assert alice.ranked_until is not None and alice.ranked_until > after
        assert to_line(bob, after).listing is Listing.PROVISIONAL
        assert to_line(old, after).listing is Listing.INACTIVE
        assert old.ranked_until == long_ago + INACTIVE_AFTER

        clock.now = after + timedelta(hours=1)
        service = match_parts(sessions, clock=clock)
        report = await service.play.submit(7, Acting(ALICE), "3 3")
        assert report.match.status == "finished"
        async with sessions() as session:
            winner = await session.get(PlayerStats, (GUILD, "crown", ALICE, False))
            assert winner is not None and winner.wins == 6 and winner.rating > 1650.0
            assert winner.rated_at == winner.deviation_at == clock.now
            change = await session.scalar(
                select(RatingChange).where(
                    RatingChange.match_id == 7, RatingChange.user_id == ALICE
                )
            )
            assert change is not None and change.deviation_before == pytest.approx(
                standing_rating(alice, clock.now).deviation
            )
            assert change.deviation_before > 70.0, "the deviation grew for the hour since"
    finally:
        await engine.dispose()


async def test_0015_keeps_settings_and_records_and_an_open_match_ends_in_the_first_season(
    empty_database_url: str,
) -> None:
    """A database holding 0013's data: a server's settings, both players' records and a Crystal
    match in play. After the upgrade the settings, records and ratings are as they were, the
    server has no season yet and reads the defaults, and the match plays to its end: its
    result opens the server's first season and counts in it."""
    from datetime import UTC, datetime

    from sqlalchemy import insert

    import games
    from bot.service.acting import Acting
    from bot.service.match_parts import match_parts
    from bot.service.seasons import Seasons
    from db.engine import session_factory
    from db.models import GuildSettings, PlayerStats, SeasonLength, SeasonScore
    from tests.service.conftest import ALICE, BOB, GUILD, Clock

    engine = create_engine(empty_database_url)
    now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    crystal = games.get("crystal")
    state = crystal.new({}, 1)
    # Alice 9 then 5 (14), Bob 8 and 2: Alice takes 1 next and reaches exactly 15.
    for seat, text in ((0, "9"), (1, "8"), (0, "5"), (1, "2")):
        state, _events = crystal.apply(state, seat, crystal.parse(state, seat, text))
    record = {
        "guild_id": GUILD, "game": "crystal", "vs_bot": False, "wins": 3, "losses": 1,
        "draws": 0, "streak": 1, "best_streak": 2, "deviation": 80.0, "volatility": 0.09,
        "games_played": 4, "updated_at": now,
    }  # fmt: skip
    try:
        await upgrade(engine, "0013")
        async with engine.begin() as connection:
            tables = await reflected(
                connection, "matches", "match_players", "guild_settings", "player_stats"
            )
            await connection.execute(
                insert(tables["guild_settings"]).values(
                    guild_id=GUILD, turn_timeout=900, threads=True, language="fr", updated_at=now
                )
            )
            await connection.execute(
                insert(tables["player_stats"]),
                [{**record, "user_id": ALICE, "rating": 1620.0},
                 {**record, "user_id": BOB, "rating": 1580.0}],
            )  # fmt: skip
            await insert_open_match(
                connection, tables, "crystal", state, now, version=6, place="server"
            )

        await upgrade(engine)

        sessions = session_factory(engine)
        async with sessions() as session:
            settings = await session.get(GuildSettings, GUILD)
            assert settings is not None
            assert (settings.turn_timeout, settings.threads, settings.language) == (900, True, "fr")
            alice = await session.get(PlayerStats, (GUILD, "crystal", ALICE, False))
            assert alice is not None and (alice.rating, alice.deviation) == (1620.0, 80.0)
        clock = Clock()
        seasons = Seasons(sessions, clock=clock)
        options = await seasons.options(GUILD)
        assert (options.length, options.score, options.channel_id) == (
            SeasonLength.QUARTER,
            SeasonScore.RATING,
            None,
        )
        assert await seasons.numbers(GUILD) == []

        service = match_parts(sessions, clock=clock)
        report = await service.play.submit(7, Acting(ALICE), "1")
        assert report.match.status == "finished" and report.match.winner_id == ALICE
        board = await seasons.board(GUILD, None, "crystal", 10)
        assert board.number == 1 and board.open
        assert [(x.rank, x.user_id, x.wins, x.losses) for x in board.games[0].ranked] == [
            (1, ALICE, 1, 0),
            (2, BOB, 0, 1),
        ]
    finally:
        await engine.dispose()


async def test_0015_starts_without_ranks_and_an_open_match_plays_to_its_end(
    empty_database_url: str,
) -> None:
    """A database holding 0013's data: a member's rating and a Crown match in play. After the
    upgrade the server has no rank, nobody holds a rank role nor is owed one; a rank set then,
    the match ends as before and its players are owed their rank roles."""
    from datetime import UTC, datetime

    from sqlalchemy import insert, text

    from bot.service.acting import Acting
    from bot.service.match_parts import match_parts
    from bot.service.ranks import Rank, RankRoles
    from db.engine import session_factory
    from db.models import PlayerStats
    from tests.service.conftest import ALICE, BOB, GUILD, Clock

    engine = create_engine(empty_database_url)
    now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    state = crown_in_play()
    try:
        await upgrade(engine, "0013")
        async with engine.begin() as connection:
            tables = await reflected(connection, "matches", "match_players", "player_stats")
            await connection.execute(
                insert(tables["player_stats"]).values(
                    guild_id=GUILD, game="crown", user_id=ALICE, vs_bot=False, wins=9, losses=1,
                    draws=0, streak=3, best_streak=5, rating=1720.0, deviation=70.0,
                    volatility=0.06, games_played=10, updated_at=now,
                )
            )  # fmt: skip
            await insert_open_match(connection, tables, "crown", state, now, place="server")

        await upgrade(engine)

        async with engine.connect() as connection:
            for table in ("rank_roles", "rank_grants", "rank_updates"):
                count = await connection.execute(text(f"SELECT count(*) FROM {table}"))
                assert count.scalar() == 0
        sessions = session_factory(engine)
        clock = Clock()
        ranks = RankRoles(sessions, clock=clock)
        await ranks.set(GUILD, Rank(901, "crown", 1700))
        service = match_parts(sessions, clock=clock)
        report = await service.play.submit(7, Acting(ALICE), "3 3")
        assert report.match.status == "finished"
        async with sessions() as session:
            alice = await session.get(PlayerStats, (GUILD, "crown", ALICE, False))
            assert alice is not None and alice.wins == 10 and alice.rating > 1720.0
        [first, second] = sorted(await ranks.due(), key=lambda owed: owed.user_id)
        assert (first.user_id, second.user_id) == (ALICE, BOB)
        change = await ranks.change(first)
        assert change.give == {901} and not change.take
        assert (await ranks.change(second)).nothing  # Bob's first rating is provisional
    finally:
        await engine.dispose()


def indexes_of(connection: Connection) -> dict[str, tuple[list[str], str | None]]:
    """Each index of the outbox and the daily posts: its columns, and its ``WHERE``."""
    where = f"{connection.dialect.name}_where"
    return {
        str(index["name"]): (
            [str(name) for name in index["column_names"]],
            folded(index.get("dialect_options", {}).get(where)),
        )
        for table in ("outbox", "daily_puzzles")
        for index in inspect(connection).get_indexes(table)
    }


async def test_0016_keeps_the_outbox_and_the_daily_posts_and_an_open_match_plays_to_its_end(
    empty_database_url: str,
) -> None:
    """A database holding 0015's data: a Crown match in play with entries still owed, and two
    servers' daily posts, shown and behind. After the upgrade every row is as it was, both
    indexes stand (the daily posts' only over the posts behind), the sweep finds the posts
    behind, and the match plays to its end, its boards forgotten once shown."""
    from datetime import timedelta

    from sqlalchemy import insert, text

    from bot.service.acting import Acting
    from bot.service.daily_puzzles import DailyPuzzles
    from bot.service.match_parts import match_parts
    from bot.service.match_state import DELIVERY_GRACE
    from bot.service.outbox import Outbox
    from bot.service.puzzles import Puzzles
    from db.engine import session_factory
    from db.outbox import owed_lines
    from tests.puzzle_values import crystal_puzzle
    from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock

    other = GUILD + 1
    engine = create_engine(empty_database_url)
    clock = Clock()
    now = clock.now
    state = crown_in_play()
    owed = {"match_id": 7, "attempts": 0, "due_at": now + timedelta(seconds=5)}
    outbox_rows = [
        (7, 3, "board", None, "Alice took 1 1."),
        (7, 4, "board", None, None),
        (7, 4, "prompt", BOB, None),
    ]
    daily_rows = text(
        "SELECT guild_id, day, version, shown, message_id FROM daily_puzzles ORDER BY day, guild_id"
    )
    try:
        await upgrade(engine, "0015")
        async with engine.begin() as connection:
            tables = await reflected(connection, "matches", "match_players", "outbox")
            await insert_open_match(connection, tables, "crown", state, now, place="server")
            await connection.execute(
                insert(tables["outbox"]),
                [{**owed, "version": v, "kind": k, "user_id": u, "text": t}
                 for _m, v, k, u, t in outbox_rows],
            )  # fmt: skip
        # The puzzles' tables are the same at 0015 as now: their own use cases fill them.
        sessions = session_factory(engine)
        puzzles, daily = Puzzles(sessions, clock=clock), DailyPuzzles(sessions, clock=clock)
        for guild in (GUILD, other):
            await puzzles.store(guild, None, [crystal_puzzle(seed) for seed in (1, 2)])
            await daily.set_channel(guild, CHANNEL)
        assert await daily.plan() == 2
        for post in await daily.behind():
            await daily.shown(post.guild_id, post.day, post.version, message_id=post.guild_id)
        clock.advance(days=1)
        assert await daily.plan(runs=lambda guild_id: guild_id == GUILD) == 1
        async with engine.connect() as connection:
            dailies = [tuple(row) for row in await connection.execute(daily_rows)]
        assert [(day, version, shown) for _g, day, version, shown, _m in dailies] == [
            ("2026-01-01", 1, 1),
            ("2026-01-01", 1, 1),
            ("2026-01-02", 1, 0),
        ]

        await upgrade(engine)

        async with engine.connect() as connection:
            assert await connection.run_sync(current_revision) == HEAD
            indexes = await connection.run_sync(indexes_of)
            query = text("SELECT match_id, version, kind, user_id, text FROM outbox ORDER BY id")
            assert [tuple(row) for row in await connection.execute(query)] == outbox_rows
            assert [tuple(row) for row in await connection.execute(daily_rows)] == dailies
        assert indexes["ix_outbox_match"] == (["match_id", "kind", "version"], None)
        assert indexes["ix_daily_puzzles_behind"] == (["day", "guild_id"], "shown<version")
        (behind,) = await daily.behind()
        assert (behind.guild_id, behind.day, behind.message_id) == (GUILD, "2026-01-02", None)
        async with sessions() as session:
            assert await owed_lines(session, 7, 4) == ["Alice took 1 1."]

        service = match_parts(sessions, clock=clock)
        report = await service.play.submit(7, Acting(ALICE), "3 3")
        assert report.match.status == "finished"
        outbox = Outbox(sessions, clock=clock)
        outbox.board_shown(7, report.match.version)
        await outbox.flush()
        clock.advance(seconds=DELIVERY_GRACE.total_seconds())
        left = await outbox.due()
        assert ("prompt", BOB, 4) in [(item.kind, item.user_id, item.version) for item in left]
        assert all(item.kind != "board" for item in left)
    finally:
        await engine.dispose()
