"""The models and the engine: defaults, column types, constraints, the SQLite connection setup."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import DateTime, delete, func, insert, select, text
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.exc import IntegrityError, StatementError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from db.engine import DEFAULT_URL, create_engine
from db.models import (
    Match,
    MatchEvent,
    MatchPlayer,
    MatchStatus,
    PlayerStats,
    UTCDateTime,
)

SNOWFLAKE = 1_234_567_890_123_456_789  # a Discord id: needs 64 bits


def new_match(**values: object) -> Match:
    fields: dict[str, object] = {
        "guild_id": SNOWFLAKE,
        "channel_id": SNOWFLAKE + 1,
        "game": "crown",
        "seed": 2**62 + 7,
        "challenger_id": SNOWFLAKE + 2,
        "opponent_id": SNOWFLAKE + 3,
    }
    fields.update(values)
    return Match(**fields)


def test_new_rows_carry_their_defaults_before_any_flush() -> None:
    stats = PlayerStats(guild_id=1, game="crown", user_id=2)
    match = new_match()

    assert (stats.wins, stats.losses, stats.draws, stats.streak, stats.games_played) == (0,) * 5
    assert (stats.rating, stats.deviation, stats.volatility) == (1500.0, 500.0, 0.09)
    assert stats.vs_bot is False
    assert match.status == MatchStatus.CHALLENGED
    assert match.version == 0
    assert match.options == {}
    assert match.state is None
    assert match.created_at.tzinfo is not None


def test_explicit_values_win_over_defaults() -> None:
    stats = PlayerStats(guild_id=1, game="crown", user_id=2, rating=1700.0, vs_bot=True)

    assert stats.rating == 1700.0
    assert stats.vs_bot is True


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(TypeError):
        Match(colour="red")


async def test_a_match_round_trips_ids_json_and_aware_timestamps(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    deadline = datetime(2026, 3, 1, 12, 30, tzinfo=timezone(timedelta(hours=2)))
    state = {"grid": [[0, 1], [None, True]], "names": ["Zoë", "李"], "turn": 3}
    async with sessions.begin() as session:
        match = new_match(state=state, options={"hints": "auto"}, deadline=deadline)
        session.add(match)
        await session.flush()
        match_id = match.id

    async with sessions() as session:
        loaded = await session.get(Match, match_id)

    assert loaded is not None
    assert loaded.guild_id == SNOWFLAKE
    assert loaded.seed == 2**62 + 7
    assert loaded.state == state
    assert loaded.options == {"hints": "auto"}
    assert loaded.deadline == deadline
    assert loaded.deadline is not None and loaded.deadline.utcoffset() == timedelta(0)
    assert loaded.created_at.tzinfo is not None


async def test_naive_datetimes_are_refused(sessions: async_sessionmaker[AsyncSession]) -> None:
    async with sessions() as session:
        session.add(new_match(deadline=datetime(2026, 1, 1, 12, 0)))
        with pytest.raises(StatementError, match="naive datetime"):
            await session.flush()


async def test_objects_stay_readable_after_commit(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    async with sessions.begin() as session:
        match = new_match()
        session.add(match)

    # With expire_on_commit, reading would need a lazy load, which async sessions cannot do.
    assert match.status == "challenged"
    assert match.id > 0


async def test_deleting_a_match_deletes_its_players_and_events(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    async with sessions.begin() as session:
        match = new_match()
        session.add(match)
        await session.flush()
        session.add_all(
            [
                MatchPlayer(match_id=match.id, seat=0, user_id=1),
                MatchPlayer(match_id=match.id, seat=1, user_id=2),
                MatchEvent(match_id=match.id, seq=1, kind="challenge", payload={}),
            ]
        )

    async with sessions.begin() as session:
        await session.execute(delete(Match).where(Match.id == match.id))

    async with sessions() as session:
        players = await session.scalar(select(func.count()).select_from(MatchPlayer))
        events = await session.scalar(select(func.count()).select_from(MatchEvent))
    assert (players, events) == (0, 0)


@pytest.mark.parametrize(
    ("model", "first", "second"),
    [
        pytest.param(
            MatchPlayer,
            {"seat": 0, "user_id": 1},
            {"seat": 1, "user_id": 1},
            id="one member in both seats",
        ),
        pytest.param(
            MatchPlayer,
            {"seat": 0, "user_id": 1},
            {"seat": 0, "user_id": 2},
            id="two members in one seat",
        ),
        pytest.param(
            MatchPlayer, {"seat": 0, "user_id": 1}, {"seat": 2, "user_id": 2}, id="a third seat"
        ),
        pytest.param(
            MatchEvent,
            {"seq": 1, "kind": "a", "payload": {}, "created_at": datetime.now(UTC)},
            {"seq": 1, "kind": "b", "payload": {}, "created_at": datetime.now(UTC)},
            id="two events with one seq",
        ),
    ],
)
async def test_constraints_refuse_inconsistent_rows(
    sessions: async_sessionmaker[AsyncSession],
    model: type[MatchPlayer | MatchEvent],
    first: dict[str, object],
    second: dict[str, object],
) -> None:
    async with sessions.begin() as session:
        match = new_match()
        session.add(match)
    async with sessions() as session:
        await session.execute(insert(model), {"match_id": match.id, **first})
        with pytest.raises(IntegrityError):
            await session.execute(insert(model), {"match_id": match.id, **second})


async def test_unknown_status_is_refused(sessions: async_sessionmaker[AsyncSession]) -> None:
    async with sessions() as session:
        session.add(new_match(status="paused"))
        with pytest.raises(IntegrityError):
            await session.flush()


async def test_players_need_an_existing_match(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    async with sessions() as session:
        session.add(MatchPlayer(match_id=999, seat=0, user_id=1))
        with pytest.raises(IntegrityError):
            await session.flush()


async def test_sqlite_connections_get_the_pragmas(engine: AsyncEngine) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite pragmas")
    async with engine.connect() as connection:
        values = {
            name: (await connection.execute(text(f"PRAGMA {name}"))).scalar_one()
            for name in ("journal_mode", "foreign_keys", "busy_timeout", "synchronous")
        }

    assert values == {
        "journal_mode": "wal",
        "foreign_keys": 1,
        "busy_timeout": 0,
        "synchronous": 1,
    }


async def test_no_url_means_parlor_db_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    engine = create_engine(None)
    try:
        async with engine.connect() as connection:
            await connection.execute(text("SELECT 1"))
    finally:
        await engine.dispose()

    assert str(engine.url) == DEFAULT_URL
    assert (tmp_path / "parlor.db").is_file()


def test_postgresql_urls_get_a_bounded_pool() -> None:
    engine = create_engine("postgresql+asyncpg://parlor@127.0.0.1:5432/parlor")

    assert engine.dialect.name == "postgresql"
    assert engine.pool.size() == 10  # type: ignore[attr-defined]


def test_timestamps_are_utc_aware_by_default() -> None:
    before = datetime.now(UTC)
    match = new_match()

    assert before <= match.created_at <= datetime.now(UTC)


@pytest.mark.parametrize(
    "value",
    [
        datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=UTC),
        datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=-5))),
        datetime(1, 1, 1, tzinfo=UTC),
    ],
)
def test_sqlite_timestamps_are_stored_as_its_datetime_type_stores_them(value: datetime) -> None:
    """Files written before keep comparing and reading right: the text is the same."""
    dialect = sqlite_dialect.dialect()
    ours = UTCDateTime().bind_processor(dialect)
    theirs = DateTime().dialect_impl(dialect).bind_processor(dialect)  # SQLite's DATETIME
    assert ours is not None and theirs is not None
    stored = ours(value)
    assert stored == theirs(value.astimezone(UTC).replace(tzinfo=None))
    read = UTCDateTime().result_processor(dialect, None)
    assert read is not None
    assert read(stored) == value and read(stored).tzinfo is UTC
    assert read("2026-01-02 03:04:05") == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
