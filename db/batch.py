"""Statements on a synchronous connection: what the SQLite writer's thread runs.

Moves are written in batches (group commit): each function for them runs a fixed number of
statements however many matches or records it is given. Beside them are the other writes a
match makes on its way (its challenge, the message that shows its board), so that on SQLite all
of them go through the one writer and never wait on each other's locks.

They run as they are on the writer's thread (``db.writer``), and from an ``AsyncSession`` (on
PostgreSQL) through ``await session.run_sync(on_connection, f, ...)``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

from sqlalchemy import Connection, Table, bindparam, insert, select, update
from sqlalchemy.orm import Session
from sqlalchemy.sql.schema import ColumnDefault

from db.driver import DriverQuery, DriverStatement
from db.models import GuildSettings, Match, MatchPlayer, PlayerStats
from db.repository import (
    EVENT_COLUMNS,
    INSERT_EVENT,
    LOAD_MATCHES,
    OPEN_CHALLENGES,
    EventRow,
    MatchContext,
    ServerTimeouts,
    event_rows,
    match_context,
    update_statement,
    upsert,
)

P = ParamSpec("P")
T = TypeVar("T")

MatchChange = tuple[int, int, dict[str, Any]]
"""``(match_id, seen_version, values)``: one match's version-checked update."""
Log = tuple[int, int, Sequence[EventRow]]
"""``(match_id, after_seq, events)``: one match's new events, numbered on from ``after_seq``."""
StatsKey = tuple[int, str, int, bool]
"""A record's primary key: ``(guild_id, game, user_id, vs_bot)``."""


def on_connection(
    session: Session,
    work: Callable[Concatenate[Connection, P], T],
    /,
    *args: P.args,
    **kwargs: P.kwargs,
) -> T:
    """``work`` on the session's connection, in its transaction: for ``AsyncSession.run_sync``."""
    return work(session.connection(), *args, **kwargs)


def select_matches(connection: Connection, match_ids: Sequence[int]) -> dict[int, MatchContext]:
    """``repository.load_match`` for many matches, by id (missing ids are left out).

    The matches' rows stay locked until the transaction ends, taken in id order (PostgreSQL;
    SQLite locks the whole database for a writer)."""
    contexts = (match_context(row) for row in _LOAD_MATCHES.rows(connection, match_ids))
    return {context.match.id: context for context in contexts}


def write_matches(
    connection: Connection, changes: Sequence[MatchChange], now: datetime
) -> int | None:
    """``repository.update_match`` for many matches: how many of the changes were applied.

    One executemany for each set of columns changed, each match's ``updated_at`` set to ``now``.
    Fewer applied than given means someone else moved one of the matches first; which one is
    not known, so the caller must roll back.
    ``None`` where the driver does not count an executemany's rows (asyncpg): read the matches
    with ``select_matches`` in the same transaction first, which locks them there.
    """
    by_columns: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for match_id, seen, values in changes:
        parameters = {f"new_{name}": value for name, value in values.items()}
        parameters.update(new_updated_at=now, match_id=match_id, seen_version=seen)
        by_columns.setdefault(tuple(sorted(values)), []).append(parameters)
    applied = [
        _update_matches(columns).execute(connection, rows) for columns, rows in by_columns.items()
    ]
    return sum(applied) if connection.dialect.supports_sane_multi_rowcount else None


@functools.cache
def _update_matches(columns: tuple[str, ...]) -> DriverStatement:
    return DriverStatement(update_statement((*columns, "updated_at")))


def write_logs(connection: Connection, logs: Sequence[Log], now: datetime) -> None:
    """Append each match's events to its log (after its version-checked update)."""
    _INSERT_EVENTS.execute(connection, event_rows(logs, now))


def count_open_challenges(connection: Connection, user_id: int) -> int:
    """How many challenges ``user_id`` has sent that are still waiting for an answer."""
    return connection.scalar(OPEN_CHALLENGES, {"user_id": user_id}) or 0


def read_settings(connection: Connection, guild_id: int) -> ServerTimeouts | None:
    """The guild's timeouts, or ``None`` if it never changed any."""
    row = connection.execute(_READ_SETTINGS, {"guild_id": guild_id}).one_or_none()
    return None if row is None else ServerTimeouts(*row)


def insert_match(connection: Connection, values: dict[str, Any]) -> int:
    """Store a new match; its id."""
    return int(connection.execute(_INSERT_MATCH, values).scalar_one())


def write_message_id(connection: Connection, match_id: int, message_id: int) -> None:
    """Remember the message that shows the match's board (not a move: no version change)."""
    connection.execute(_WRITE_MESSAGE_ID, {"match_id": match_id, "message_id": message_id})


def write_players(connection: Connection, seats: Sequence[tuple[int, Sequence[int]]]) -> None:
    """Seat the players of matches that just started: ``(match_id, user ids by seat)``."""
    rows = [
        {"match_id": match_id, "seat": seat, "user_id": user_id}
        for match_id, players in seats
        for seat, user_id in enumerate(players)
    ]
    _INSERT_PLAYERS.execute(connection, rows)


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

    @property
    def key(self) -> StatsKey:
        return (self.guild_id, self.game, self.user_id, self.vs_bot)


def lock_records(
    connection: Connection, keys: Sequence[StatsKey], now: datetime
) -> dict[StatsKey, StatsRow]:
    """Members' records, created with the starting values where missing, locked for writing.

    Use it to add results: two matches ending at once for one player then both count, where
    read-modify-write without the lock could lose one. On PostgreSQL the rows stay locked until
    the transaction ends, created and taken in one order (``_lock_order``) so that two
    transactions sharing records never wait on each other in a cycle; on SQLite the insert has
    already taken the database's write lock.
    """
    unique = sorted(set(keys), key=_lock_order)
    if not unique:
        return {}
    fresh = [
        {**_STATS_DEFAULTS, **dict(zip(_STATS_KEY_NAMES, key, strict=True)), "updated_at": now}
        for key in unique
    ]
    _create_records(connection.dialect.name).execute(connection, fresh)
    found: dict[StatsKey, StatsRow] = {}
    for (guild_id, game, vs_bot), user_ids in _by_leaderboard(unique).items():
        values = {"guild_id": guild_id, "game": game, "vs_bot": vs_bot, "user_ids": user_ids}
        for row in connection.execute(_LOCK_RECORDS, values):
            record = StatsRow(*row)
            found[record.key] = record
    return found


def _lock_order(key: StatsKey) -> tuple[int, str, bool, int]:
    """Records are created and locked by server, game, opponent kind, then member."""
    guild_id, game, user_id, vs_bot = key
    return (guild_id, game, vs_bot, user_id)


def _by_leaderboard(keys: Sequence[StatsKey]) -> dict[tuple[int, str, bool], list[int]]:
    """The keys' user ids (in the keys' order) by server, game and opponent kind."""
    boards: dict[tuple[int, str, bool], list[int]] = {}
    for guild_id, game, user_id, vs_bot in keys:
        boards.setdefault((guild_id, game, vs_bot), []).append(user_id)
    return boards


@functools.cache
def _create_records(dialect: str) -> DriverStatement:
    """Insert records that do not exist yet (every column given), in ``dialect``."""
    create = upsert(dialect, PlayerStats).on_conflict_do_nothing()
    return DriverStatement(create, [column.key for column in _STATS.c])


def save_records(connection: Connection, rows: Sequence[StatsRow]) -> None:
    """Write records read with ``lock_records`` back."""
    parameters = [
        {
            **{f"key_{name}": getattr(row, name) for name in _STATS_KEY_NAMES},
            **{f"new_{name}": getattr(row, name) for name in _STATS_VALUES},
        }
        for row in rows
    ]
    _SAVE_RECORDS.execute(connection, parameters)


_MATCHES = cast(Table, Match.__table__)
_INSERT_MATCH = insert(_MATCHES).returning(_MATCHES.c.id)
_WRITE_MESSAGE_ID = (
    update(_MATCHES)
    .where(_MATCHES.c.id == bindparam("match_id"))
    .values(message_id=bindparam("message_id"))
)
_SETTINGS = cast(Table, GuildSettings.__table__)
_READ_SETTINGS = select(*(_SETTINGS.c[field.name] for field in fields(ServerTimeouts))).where(
    _SETTINGS.c.guild_id == bindparam("guild_id")
)
_INSERT_PLAYERS = DriverStatement(
    insert(cast(Table, MatchPlayer.__table__)), ["match_id", "seat", "user_id"]
)
_INSERT_EVENTS = DriverStatement(INSERT_EVENT, EVENT_COLUMNS)
_LOAD_MATCHES = DriverQuery(LOAD_MATCHES, "match_ids")
_STATS = cast(Table, PlayerStats.__table__)
_STATS_KEY = (_STATS.c.guild_id, _STATS.c.game, _STATS.c.user_id, _STATS.c.vs_bot)
_STATS_KEY_NAMES = tuple(column.key for column in _STATS_KEY)
_STATS_VALUES = tuple(f.name for f in fields(StatsRow) if f.name not in _STATS_KEY_NAMES)
_STATS_DEFAULTS = {
    column.key: column.default.arg
    for column in _STATS.c
    if isinstance(column.default, ColumnDefault) and column.default.is_scalar
}
"""A new record's starting values (no result yet, the starting rating)."""
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
"""One server's records of one game, by user id: each found through the primary key. (Where
the whole key is a row value ``IN`` a list, SQLite scans every record.)"""
_SAVE_RECORDS = DriverStatement(
    update(_STATS)
    .where(*(column == bindparam(f"key_{column.key}") for column in _STATS_KEY))
    .values({name: bindparam(f"new_{name}") for name in _STATS_VALUES})
)
