"""Seasons' queries: finding and opening a server's season, its standings (written with each
rated match's result), and closing it (its podium's post: ``db.season_podiums``; the soft
reset's point in each widened member's rating history)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Table, bindparam, func, insert, literal, select, union_all, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.connection import Db, core_connection, dialect_of, upsert, upsert_in
from db.models import (
    GuildSettings,
    PlayerStats,
    RatingChange,
    Season,
    SeasonScore,
    SeasonStanding,
    SeasonState,
)

_SEASONS = cast(Table, Season.__table__)
_STANDINGS = cast(Table, SeasonStanding.__table__)
_STATS = cast(Table, PlayerStats.__table__)
_HISTORY = cast(Table, RatingChange.__table__)


@dataclass(frozen=True)
class SeasonRow:
    id: int
    guild_id: int
    number: int
    starts_at: datetime
    ends_at: datetime
    state: str
    score: str
    closed_at: datetime | None

    @property
    def open(self) -> bool:
        return self.state == SeasonState.OPEN


@dataclass(frozen=True)
class StandingRow:
    user_id: int
    points: float
    wins: int
    losses: int
    draws: int
    rating: float
    deviation: float
    ranked_until: datetime


@dataclass(frozen=True)
class SeasonResult:
    """One player's part of a rated match, as their season standing counts it."""

    user_id: int
    points: float
    wins: int
    losses: int
    draws: int
    rating: float
    """Their rating and deviation after the match."""
    deviation: float
    ranked_until: datetime
    """When that rating, its deviation growing, turns provisional."""
    provisional: bool
    """Whether it is provisional already."""


@dataclass(frozen=True)
class SeasonSettings:
    length: str | None
    """``None``: the default."""
    score: str | None
    channel_id: int | None


_SEASON_COLUMNS = tuple(_SEASONS.c[name] for name in SeasonRow.__dataclass_fields__)
_LATEST = (
    select(*_SEASON_COLUMNS)
    .where(_SEASONS.c.guild_id == bindparam("guild_id"))
    .order_by(_SEASONS.c.number.desc())
    .limit(1)
)
_LATEST_SHARED = _LATEST.with_for_update(read=True)


async def latest_season(db: Db, guild_id: int, *, shared: bool = False) -> SeasonRow | None:
    """The server's newest season; ``shared`` holds it against a close until the transaction
    ends (PostgreSQL), so a result recorded in it is never left out of its podium."""
    connection = await core_connection(db)
    row = (
        await connection.execute(_LATEST_SHARED if shared else _LATEST, {"guild_id": guild_id})
    ).first()
    return None if row is None else SeasonRow(*row)


_SETTINGS = cast(Table, GuildSettings.__table__)
_LATEST_WITH_SCORE = (
    select(*_SEASON_COLUMNS, _SETTINGS.c.season_score)
    .select_from(_SEASONS.outerjoin(_SETTINGS, _SETTINGS.c.guild_id == _SEASONS.c.guild_id))
    .where(_SEASONS.c.guild_id == bindparam("guild_id"))
    .order_by(_SEASONS.c.number.desc())
    .limit(1)
)


async def latest_with_score(
    session: AsyncSession, guild_id: int
) -> tuple[SeasonRow | None, str | None]:
    """The server's newest season, and the ranking its settings choose (``None``: the
    default), in one statement."""
    row = (await session.execute(_LATEST_WITH_SCORE, {"guild_id": guild_id})).first()
    if row is None:
        return None, None
    return SeasonRow(*row[:-1]), row[-1]


async def season_by_number(session: AsyncSession, guild_id: int, number: int) -> SeasonRow | None:
    row = (
        await session.execute(
            select(*_SEASON_COLUMNS).where(
                _SEASONS.c.guild_id == guild_id, _SEASONS.c.number == number
            )
        )
    ).first()
    return None if row is None else SeasonRow(*row)


async def season_by_id(db: Db, season_id: int, *, lock: bool = False) -> SeasonRow | None:
    statement = select(*_SEASON_COLUMNS).where(_SEASONS.c.id == season_id)
    if lock:
        statement = statement.with_for_update()
    row = (await (await core_connection(db)).execute(statement)).first()
    return None if row is None else SeasonRow(*row)


async def open_season(
    db: Db, guild_id: int, starts_at: datetime, ends_at: datetime, score: str
) -> SeasonRow:
    """The server's season starting at ``starts_at``, opened as its next number if it is new
    (two transactions opening it at once make one)."""
    connection = await core_connection(db)
    number = (
        select(func.coalesce(func.max(_SEASONS.c.number), 0) + 1)
        .where(_SEASONS.c.guild_id == guild_id)
        .scalar_subquery()
    )
    statement = upsert(db, Season).values(
        guild_id=guild_id,
        number=number,
        starts_at=starts_at,
        ends_at=ends_at,
        state=SeasonState.OPEN.value,
        score=score,
    )
    await connection.execute(
        statement.on_conflict_do_nothing(index_elements=["guild_id", "starts_at"])
    )
    row = (
        await connection.execute(
            select(*_SEASON_COLUMNS).where(
                _SEASONS.c.guild_id == guild_id, _SEASONS.c.starts_at == starts_at
            )
        )
    ).one()
    return SeasonRow(*row)


@functools.cache
def _add_standings(dialect: str) -> Any:
    """Built once per dialect: building and keying the upsert cost more than running it."""
    statement = upsert_in(dialect, SeasonStanding)
    excluded = statement.excluded
    return statement.on_conflict_do_update(
        index_elements=["season_id", "game", "user_id"],
        set_={
            "points": _STANDINGS.c.points + excluded.points,
            "wins": _STANDINGS.c.wins + excluded.wins,
            "losses": _STANDINGS.c.losses + excluded.losses,
            "draws": _STANDINGS.c.draws + excluded.draws,
            "rating": excluded.rating,
            "deviation": excluded.deviation,
            "ranked_until": excluded.ranked_until,
            "provisional": excluded.provisional,
            "updated_at": excluded.updated_at,
        },
    )


async def add_standings(
    db: Db, season_id: int, game: str, results: Sequence[SeasonResult], now: datetime
) -> None:
    """Count a rated match in its players' season standings: one statement for both."""
    if not results:
        return
    connection = await core_connection(db)
    await connection.execute(
        _add_standings(dialect_of(db)),
        [
            {
                "season_id": season_id,
                "game": game,
                "user_id": r.user_id,
                "points": r.points,
                "wins": r.wins,
                "losses": r.losses,
                "draws": r.draws,
                "rating": r.rating,
                "deviation": r.deviation,
                "ranked_until": r.ranked_until,
                "provisional": r.provisional,
                "updated_at": now,
            }
            for r in results
        ],
    )


async def season_settings(db: Db, guild_id: int) -> SeasonSettings:
    connection = await core_connection(db)
    settings = cast(Table, GuildSettings.__table__)
    row = (
        await connection.execute(
            select(
                settings.c.season_length, settings.c.season_score, settings.c.season_channel
            ).where(settings.c.guild_id == guild_id)
        )
    ).first()
    return SeasonSettings(None, None, None) if row is None else SeasonSettings(*row)


async def set_season_settings(db: Db, guild_id: int, now: datetime, **values: Any) -> None:
    """Set some of ``season_length``, ``season_score`` and ``season_channel``."""
    statement = upsert(db, GuildSettings).values(guild_id=guild_id, updated_at=now, **values)
    await db.execute(
        statement.on_conflict_do_update(
            index_elements=[GuildSettings.guild_id], set_={**values, "updated_at": now}
        )
    )


async def end_season_now(db: Db, season_id: int, now: datetime) -> None:
    """Bring an open season's end forward to ``now`` (the sweeper then closes it)."""
    await db.execute(
        update(_SEASONS)
        .where(
            _SEASONS.c.id == season_id,
            _SEASONS.c.state == SeasonState.OPEN.value,
            _SEASONS.c.ends_at > now,
        )
        .values(ends_at=now)
    )


async def due_seasons(session: AsyncSession, now: datetime, limit: int) -> list[int]:
    """Open seasons whose end has passed, oldest first."""
    rows = await session.scalars(
        select(_SEASONS.c.id)
        .where(_SEASONS.c.state == SeasonState.OPEN.value, _SEASONS.c.ends_at <= now)
        .order_by(_SEASONS.c.ends_at, _SEASONS.c.id)
        .limit(limit)
    )
    return list(rows)


async def close_season(db: Db, season_id: int, score: str, now: datetime) -> bool:
    """Close an open season, its standings ranked by ``score`` from now on; whether it was open."""
    result = await db.execute(
        update(_SEASONS)
        .where(_SEASONS.c.id == season_id, _SEASONS.c.state == SeasonState.OPEN.value)
        .values(state=SeasonState.CLOSED.value, score=score, closed_at=now)
    )
    return bool(getattr(result, "rowcount", 0))


@dataclass(frozen=True)
class Widening:
    """One stored rating as the soft reset reads it."""

    rating: float
    deviation: float
    volatility: float
    deviation_at: datetime | None
    """When the stored deviation was reached (it grows from there); ``None``: never grown."""
    rated_at: datetime | None


@dataclass(frozen=True)
class Widened:
    """One stored rating after the soft reset."""

    grown: float
    """The deviation as grown until the reset, before it is widened."""
    deviation: float
    ranked_until: datetime | None


async def widen_deviations(
    db: Db, guild_id: int, now: datetime, widen: Callable[[Widening], Widened]
) -> int:
    """Every rating of the server's members (against people) given a wider deviation by
    ``widen``, their ratings kept; each one widened gets a point in its rating history at
    ``now``, with no match (``RatingChange``). Two statements for the whole server, whatever
    its size, besides the read. How many ratings."""
    connection = await core_connection(db)
    rows = (
        await connection.execute(
            select(
                _STATS.c.game,
                _STATS.c.user_id,
                _STATS.c.rating,
                _STATS.c.deviation,
                _STATS.c.volatility,
                _STATS.c.deviation_at,
                _STATS.c.rated_at,
            )
            .where(_STATS.c.guild_id == guild_id, _STATS.c.vs_bot.is_(False))
            .order_by(_STATS.c.game, _STATS.c.user_id)
            .with_for_update()
        )
    ).all()
    if not rows:
        return 0
    values, points = [], []
    for game, user_id, *stored in rows:
        wide = widen(Widening(*stored))
        values.append(
            {
                "b_game": game,
                "b_user": user_id,
                "b_deviation": wide.deviation,
                "b_until": wide.ranked_until,
            }
        )
        if wide.deviation > wide.grown:  # at the cap it stays: nothing to mark
            rating = stored[0]
            points.append(
                {
                    "guild_id": guild_id,
                    "game": game,
                    "user_id": user_id,
                    "rating_before": rating,
                    "deviation_before": wide.grown,
                    "rating_after": rating,
                    "deviation_after": wide.deviation,
                    "at": now,
                }
            )
    await connection.execute(
        update(_STATS)
        .where(
            _STATS.c.guild_id == guild_id,
            _STATS.c.game == bindparam("b_game"),
            _STATS.c.user_id == bindparam("b_user"),
            _STATS.c.vs_bot.is_(False),
        )
        .values(
            deviation=bindparam("b_deviation"), deviation_at=now, ranked_until=bindparam("b_until")
        ),
        values,
    )
    if points:  # one INSERT executed for every row at once, as the UPDATE above
        await connection.execute(insert(_HISTORY), points)
    return len(rows)


_STANDING_COLUMNS = tuple(_STANDINGS.c[name] for name in StandingRow.__dataclass_fields__)


def standing_order(score: str) -> tuple[Any, ...]:
    """A season's standings in the order of their index for ``score``."""
    if score == SeasonScore.POINTS:
        return (_STANDINGS.c.points.desc(), _STANDINGS.c.wins.desc(), _STANDINGS.c.user_id)
    return (_STANDINGS.c.rating.desc(), _STANDINGS.c.user_id)


async def standings(
    session: AsyncSession,
    season_id: int,
    games: Sequence[str],
    score: str,
    *,
    moment: datetime,
    limit: int,
    offset: int = 0,
) -> dict[tuple[str, bool], list[StandingRow]]:
    """A season's standings in each of ``games``, ranked by ``score``: ``(game, False)`` the
    players ranked at ``moment`` from ``offset``, ``(game, True)`` the first of the others, at
    most ``limit`` of each. One statement: each list from its index (the rows still marked
    ranked whose moment passed are read apart, by when it passed, and merged in)."""
    if not games:
        return {}
    until, provisional = _STANDINGS.c.ranked_until, _STANDINGS.c.provisional
    lists: list[tuple[str, str]] = []
    parts = []
    for game in games:
        in_game = (_STANDINGS.c.season_id == season_id, _STANDINGS.c.game == game)
        ordered = {
            # coalesce: the ranked list is read in its order's index, never by ranked_until
            "ranked": (provisional.is_(False), func.coalesce(until, until) > moment),
            "provisional": (provisional.is_(True),),
        }
        for kind, where in ordered.items():
            parts.append(
                select(literal(len(lists)).label("list"), *_STANDING_COLUMNS)
                .where(*in_game, *where)
                .order_by(*standing_order(score))
                .limit(limit)
                .offset(offset if kind == "ranked" else 0)
                .subquery()
                .select()
            )
            lists.append((game, kind))
        parts.append(
            select(literal(len(lists)).label("list"), *_STANDING_COLUMNS)
            .where(*in_game, provisional.is_(False), until <= moment)
            .subquery()
            .select()
        )
        lists.append((game, "turned"))
    rows: dict[tuple[str, str], list[StandingRow]] = {key: [] for key in lists}
    for row in (await session.execute(union_all(*parts))).all():
        rows[lists[row[0]]].append(StandingRow(*row[1:]))
    key = _sort_key(score)
    found: dict[tuple[str, bool], list[StandingRow]] = {}
    for game in games:
        found[(game, False)] = rows[(game, "ranked")]
        apart = sorted(rows[(game, "provisional")] + rows[(game, "turned")], key=key)
        found[(game, True)] = apart[:limit]
    return found


def _sort_key(score: str) -> Callable[[StandingRow], tuple[float, ...]]:
    """``standing_order`` in Python, for rows merged from two reads."""
    if score == SeasonScore.POINTS:
        return lambda r: (-r.points, -r.wins, r.user_id)
    return lambda r: (-r.rating, r.user_id)


RANKED_FOR_GOOD = datetime(9999, 12, 31, tzinfo=UTC)
"""``ranked_until`` of a member ranked at their season's end: out of the sweeper's way for good."""
_STILL_RANKED = select(_SEASONS.c.id).where(_SEASONS.c.state == SeasonState.OPEN.value)


async def mark_turned(db: Db, now: datetime, *, season_id: int | None = None) -> None:
    """Mark provisional the rows still marked ranked whose rating has turned provisional: by
    ``now`` in every running season, or in ``season_id`` alone (at its end, ``now``), whose
    ranked rows are then ranked for good."""
    until = _STANDINGS.c.ranked_until
    where = [_STANDINGS.c.provisional.is_(False), until <= now]
    if season_id is None:
        ends = (
            select(_SEASONS.c.ends_at)
            .where(_SEASONS.c.id == _STANDINGS.c.season_id)
            .scalar_subquery()
        )
        where += [_STANDINGS.c.season_id.in_(_STILL_RANKED), until <= ends]
    else:
        where.append(_STANDINGS.c.season_id == season_id)
    await db.execute(update(_STANDINGS).where(*where).values(provisional=True))
    if season_id is not None:  # ended: those ranked at its end stay so, and need no marking
        await db.execute(
            update(_STANDINGS)
            .where(_STANDINGS.c.season_id == season_id, _STANDINGS.c.provisional.is_(False))
            .values(ranked_until=RANKED_FOR_GOOD)
        )


async def seasons_of(session: AsyncSession, guild_id: int) -> list[SeasonRow]:
    """The server's seasons, newest first."""
    rows = await session.execute(
        select(*_SEASON_COLUMNS)
        .where(_SEASONS.c.guild_id == guild_id)
        .order_by(_SEASONS.c.number.desc())
    )
    return [SeasonRow(*row) for row in rows.all()]
