"""Members' records: wins, losses, streaks and ratings by game, the leaderboards, and the
finished matches a record lists."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import cast

from sqlalchemy import Integer, Select, Table, and_, bindparam, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased
from sqlalchemy.sql.elements import ColumnElement

from db.connection import Db, core_connection
from db.models import (
    DEFAULT_DEVIATION,
    DEFAULT_RATING,
    DEFAULT_VOLATILITY,
    PlayerStats,
    UTCDateTime,
)

_STATS = cast(Table, PlayerStats.__table__)


StatsKey = tuple[int, str, int, bool]
"""A record's primary key: ``(guild_id, game, user_id, vs_bot)``."""


@dataclass(slots=True)
class StatsRow:
    """A member's record for one game as plain values, to change and save with ``save_records``."""

    guild_id: int
    game: str
    user_id: int
    vs_bot: bool
    wins: int
    losses: int
    draws: int
    streak: int
    best_streak: int
    rating: float
    deviation: float
    volatility: float
    games_played: int
    updated_at: datetime
    rated_at: datetime | None
    """The end of the last rated match (``None``: none yet, or against the bot)."""
    deviation_at: datetime | None
    """The moment ``deviation`` holds for; it grows from there."""
    ranked_until: datetime | None
    """When the member stops being ranked unless they play again."""

    @property
    def key(self) -> StatsKey:
        return (self.guild_id, self.game, self.user_id, self.vs_bot)


_STATS_KEY_NAMES = ("guild_id", "game", "user_id", "vs_bot")
_STATS_VALUES = tuple(f.name for f in fields(StatsRow) if f.name not in _STATS_KEY_NAMES)
_NEW_RECORD = {
    "wins": 0,
    "losses": 0,
    "draws": 0,
    "streak": 0,
    "best_streak": 0,
    "rating": DEFAULT_RATING,
    "deviation": DEFAULT_DEVIATION,
    "volatility": DEFAULT_VOLATILITY,
    "games_played": 0,
    "rated_at": None,
    "deviation_at": None,
    "ranked_until": None,
}


def _lock_order(key: StatsKey) -> tuple[int, str, bool, int]:
    guild_id, game, user_id, vs_bot = key
    return (guild_id, game, vs_bot, user_id)


async def lock_records(db: Db, keys: Sequence[StatsKey], now: datetime) -> dict[StatsKey, StatsRow]:
    """Members' records, created with the starting values where missing, locked for writing.

    Two matches ending at once for one player then both count. On PostgreSQL the rows are
    created and locked in one order (server, game, opponent kind, member), so two transactions
    sharing records never wait on each other in a cycle; on SQLite the insert has already taken
    the database's write lock.
    """
    unique = sorted(set(keys), key=_lock_order)
    if not unique:
        return {}
    fresh = [
        {**dict(zip(_STATS_KEY_NAMES, key, strict=True)), **_NEW_RECORD, "updated_at": now}
        for key in unique
    ]
    connection = await core_connection(db)
    postgresql_dialect = connection.dialect.name == "postgresql"
    await connection.execute(_NEW_RECORDS_PG if postgresql_dialect else _NEW_RECORDS, fresh)
    found: dict[StatsKey, StatsRow] = {}
    for (guild_id, game, vs_bot), user_ids in _by_leaderboard(unique).items():
        parameters = {"guild_id": guild_id, "game": game, "vs_bot": vs_bot, "user_ids": user_ids}
        for row in await connection.execute(_LOCK_RECORDS, parameters):
            record = StatsRow(*row)
            found[record.key] = record
    return found


def _by_leaderboard(keys: Sequence[StatsKey]) -> dict[tuple[int, str, bool], list[int]]:
    """The keys' user ids by server, game and opponent kind: each group is read through the
    primary key (a row value ``IN`` a list would make SQLite scan every record)."""
    boards: dict[tuple[int, str, bool], list[int]] = {}
    for guild_id, game, user_id, vs_bot in keys:
        boards.setdefault((guild_id, game, vs_bot), []).append(user_id)
    return boards


async def save_records(db: Db, rows: Sequence[StatsRow]) -> None:
    """Write records read with ``lock_records`` back, in one statement."""
    if not rows:
        return
    connection = await core_connection(db)
    names = (*_STATS_KEY_NAMES, *_STATS_VALUES)
    await connection.execute(
        _SAVE_RECORD, [{f"b_{name}": getattr(row, name) for name in names} for row in rows]
    )


# A finished match runs these: built once, as the move's own statements are.
_NEW_RECORDS = sqlite.insert(_STATS).on_conflict_do_nothing()
_NEW_RECORDS_PG = postgresql.insert(_STATS).on_conflict_do_nothing()
_LOCK_RECORDS = (
    select(*(_STATS.c[field.name] for field in fields(StatsRow)))
    .where(
        _STATS.c.guild_id == bindparam("guild_id"),
        _STATS.c.game == bindparam("game"),
        _STATS.c.vs_bot == bindparam("vs_bot"),
        _STATS.c.user_id.in_(bindparam("user_ids", expanding=True)),
    )
    .order_by(_STATS.c.user_id)
    .with_for_update()
)
_SAVE_RECORD = (
    update(_STATS)
    .where(*(_STATS.c[name] == bindparam(f"b_{name}") for name in _STATS_KEY_NAMES))
    .values({name: bindparam(f"b_{name}") for name in _STATS_VALUES})
)


SECTIONS = ("ranked", "provisional", "inactive")
"""A leaderboard's sections, each in the leaderboard's order (rating, then wins, then member):
members ranked now (``ranked_until`` ahead), members rated since ``active_since`` but not ranked
(provisional), and members not rated since (inactive)."""


WINDOW = 1000
"""Rows of the leaderboard's own order a section is first looked for in (``leaderboard_rows``)."""


async def leaderboard_rows(
    session: AsyncSession,
    guild_id: int,
    game: str,
    section: str,
    *,
    now: datetime,
    active_since: datetime,
    offset: int = 0,
    limit: int,
) -> list[PlayerStats]:
    """Rows ``offset`` to ``offset + limit`` of one section of the game's leaderboard against
    people in this server, in the leaderboard's order (rating, then wins, then member).

    Which rows belong to a section depends on the time, so no index holds a section in its
    order. A first page is looked for among the best ``WINDOW`` rows of the whole board, read
    lazily in the order of ``ix_player_stats_ranking`` and filtered: it stops at the page's
    last row, no sort. If the page is not all there the section is rare at the top: the ranked
    are then read from their range of ``ix_player_stats_ranked`` and sorted. Deeper pages (the
    web's), and the other sections rare at the top, walk ``ix_player_stats_ranking`` in order,
    filtered on the times it carries, so the rows skipped cost an index step each and no table
    read; only the page's own rows are then read by primary key."""
    if section not in SECTIONS:
        raise ValueError(f"a leaderboard section is one of {SECTIONS}, not {section!r}")
    values = {
        "guild_id": guild_id,
        "game": game,
        "now": now,
        "active_since": active_since,
        "offset": offset,
        "limit": limit,
        "window": WINDOW,
    }
    if offset + limit <= WINDOW // 10:
        rows = list(await session.scalars(_IN_WINDOW[section], values))
        if len(rows) == limit:
            return sorted(rows, key=lambda r: (-r.rating, -r.wins, r.user_id))
        if section == "ranked":
            return list(await session.scalars(_RANKED_RANGE, values))
    return list(await session.scalars(_WALKED[section], values))


def _on(rows: type[PlayerStats], section: str) -> tuple[ColumnElement[bool], ...]:
    """What puts a row in ``section``, at ``:now`` and with ``:active_since``."""
    now = bindparam("now", type_=UTCDateTime())
    active_since = bindparam("active_since", type_=UTCDateTime())
    if section == "ranked":
        return (rows.ranked_until > now,)
    if section == "provisional":
        return (
            rows.rated_at > active_since,
            or_(rows.ranked_until <= now, rows.ranked_until.is_(None)),
        )
    return (rows.rated_at <= active_since,)


Sections = dict[str, Select[PlayerStats]]


def _sections() -> tuple[Sections, Sections, Select[PlayerStats]]:
    """Each section's statements, built once: looked for in the window, walked in the board's
    order, and the ranked read from their range (see ``leaderboard_rows``)."""
    board = (
        PlayerStats.guild_id == bindparam("guild_id"),
        PlayerStats.game == bindparam("game"),
        PlayerStats.vs_bot.is_(False),
    )
    order = (PlayerStats.rating.desc(), PlayerStats.wins.desc(), PlayerStats.user_id)
    window = bindparam("window", type_=Integer())
    top = select(PlayerStats).where(*board).order_by(*order).limit(window).subquery("best")
    best = aliased(PlayerStats, top)
    page = (bindparam("offset", type_=Integer()), bindparam("limit", type_=Integer()))
    in_window: Sections = {}
    walked: Sections = {}
    for section in SECTIONS:
        # No ORDER BY outside: the window is read as a co-routine in its own order and the
        # filter stops at the page's last row; ordering it again would read all of it.
        in_window[section] = select(best).where(*_on(best, section)).offset(page[0]).limit(page[1])
        # The page's keys from the ranking index alone (it carries every column named here),
        # then the page's rows by primary key, sorted again: 50 rows, not the board.
        keys = (
            select(PlayerStats.user_id, PlayerStats.rating, PlayerStats.wins)
            .where(*board, *_on(PlayerStats, section))
            .order_by(*order)
            .offset(page[0])
            .limit(page[1])
            .subquery("page")
        )
        walked[section] = (
            select(PlayerStats)
            .join(keys, and_(*board, PlayerStats.user_id == keys.c.user_id))
            .order_by(keys.c.rating.desc(), keys.c.wins.desc(), keys.c.user_id)
        )
    # ``+ 0`` sorts the ranked after their range is read, rather than walking the rating
    # index's order (which would read every unranked member rated above them).
    ranked_range = (
        select(PlayerStats)
        .where(*board, *_on(PlayerStats, "ranked"))
        .order_by((PlayerStats.rating + 0).desc(), *order[1:])
        .offset(page[0])
        .limit(page[1])
    )
    return in_window, walked, ranked_range


_IN_WINDOW, _WALKED, _RANKED_RANGE = _sections()


async def record(session: AsyncSession, guild_id: int, user_id: int) -> list[PlayerStats]:
    """The user's records in this guild, every game, against people and against the bot."""
    rows = await session.scalars(
        select(PlayerStats)
        .where(PlayerStats.guild_id == guild_id, PlayerStats.user_id == user_id)
        .order_by(PlayerStats.game, PlayerStats.vs_bot)
    )
    return list(rows)
