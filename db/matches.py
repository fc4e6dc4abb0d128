"""A match's row and players: read with what a move needs, stored, saved under the version check.

Every function takes a caller's session or Core connection (``db.connection.Db``) and never
commits: the use case that opened the transaction owns it (``async with engine.begin() as
connection: ...``). A move runs on a bare connection: a session's begin, flush bookkeeping,
commit and close cost as much as one of its statements.

Concurrency rests on one statement, ``save_match``'s conditional UPDATE on ``version``: of two
writers who read the same version exactly one succeeds, on SQLite and PostgreSQL alike, and with
any number of bot processes sharing the database.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, Update, bindparam, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.connection import Db, core_connection
from db.models import (
    UNFINISHED_STATUSES,
    GuildSettings,
    Match,
    MatchEvent,
    MatchPlace,
    MatchPlayer,
)
from db.server_timeouts import TIMEOUT_COLUMNS, ServerTimeouts

_MATCHES = cast(Table, Match.__table__)
_SETTINGS = cast(Table, GuildSettings.__table__)
_PLAYERS = cast(Table, MatchPlayer.__table__)
_EVENTS = cast(Table, MatchEvent.__table__)


@dataclass(slots=True)
class MatchRow:
    """A match's columns as plain values, outside any session.

    What a use case reads and changes; its changes reach the database through the
    version-checked UPDATE only (``save_match``).
    """

    id: int
    guild_id: int
    channel_id: int
    game: str
    options: dict[str, Any]
    seed: int
    state: dict[str, Any] | None
    status: str
    version: int
    deadline: datetime | None
    deadline_kind: str | None
    challenger_id: int
    opponent_id: int
    vs_bot: bool
    bot_level: str | None
    message_id: int | None
    winner_seat: int | None
    end_reason: str | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    recent: list[str] | None
    acted_seats: int = 0
    """A bit per seat that acted at least once."""
    called_off_by: int | None = None
    tournament_id: int | None = None
    origin: str = "named"
    """How the players found each other (``db.models.MatchOrigin``)."""
    thread_id: int | None = None
    place: str = "server"
    """How the match's message is reached (``db.models.MatchPlace``)."""


MATCH_COLUMNS = tuple(field.name for field in fields(MatchRow))


@dataclass(frozen=True)
class MatchContext:
    """A match with what a move needs beside it, read in one statement."""

    match: MatchRow
    settings: ServerTimeouts | None
    players: list[int]
    """User ids by seat; empty before the match starts."""
    last_seq: int
    """The ``seq`` of the match's last logged event (0 for none)."""
    threads: bool = False
    """Whether its server plays each match in a thread of its own."""


_MATCH_WIDTH = len(MATCH_COLUMNS)
_INSERT_MATCH = insert(_MATCHES).returning(_MATCHES.c.id)


def _load_match_statement() -> Any:
    seat0, seat1 = _PLAYERS.alias("seat0"), _PLAYERS.alias("seat1")
    last_seq = (
        select(func.coalesce(func.max(_EVENTS.c.seq), 0))
        .where(_EVENTS.c.match_id == _MATCHES.c.id)
        .scalar_subquery()
    )
    return (
        select(
            *(_MATCHES.c[name] for name in MATCH_COLUMNS),
            _SETTINGS.c.guild_id,
            *(_SETTINGS.c[name] for name in TIMEOUT_COLUMNS),
            _SETTINGS.c.threads,
            seat0.c.user_id,
            seat1.c.user_id,
            last_seq,
        )
        .outerjoin(_SETTINGS, _SETTINGS.c.guild_id == _MATCHES.c.guild_id)
        .outerjoin(seat0, (seat0.c.match_id == _MATCHES.c.id) & (seat0.c.seat == 0))
        .outerjoin(seat1, (seat1.c.match_id == _MATCHES.c.id) & (seat1.c.seat == 1))
    )


_LOAD_MATCH = _load_match_statement()
_ONE_MATCH = _LOAD_MATCH.where(_MATCHES.c.id == bindparam("match_id"))
_ONE_MATCH_LOCKED = _ONE_MATCH.with_for_update(of=_MATCHES)
# Statements run on every move are built once: building one costs more than running it.


async def load_match(db: Db, match_id: int, *, for_update: bool = False) -> MatchContext | None:
    """The match, its server's settings, its players and its last event number, or ``None``.

    ``for_update`` locks the match's row until the transaction ends (PostgreSQL; SQLite has
    one writer at a time anyway), so a second move on the match waits instead of losing the
    version check.
    """
    statement = _ONE_MATCH_LOCKED if for_update else _ONE_MATCH
    connection = await core_connection(db)
    row = (await connection.execute(statement, {"match_id": match_id})).one_or_none()
    return None if row is None else _match_context(row)


def _match_context(row: Sequence[Any]) -> MatchContext:
    match = MatchRow(*row[:_MATCH_WIDTH])
    settings_guild_id, *timeouts, threads, user0, user1, last_seq = row[_MATCH_WIDTH:]
    settings = None
    if settings_guild_id is not None:
        settings = ServerTimeouts(settings_guild_id, *timeouts)
    players = [user0, user1] if user0 is not None and user1 is not None else []
    return MatchContext(match, settings, players, int(last_seq), bool(threads))


async def insert_match(db: Db, values: dict[str, Any]) -> int:
    """Store a new match; its id."""
    connection = await core_connection(db)
    return int((await connection.execute(_INSERT_MATCH, values)).scalar_one())


async def save_match(db: Db, match_id: int, seen_version: int, values: dict[str, Any]) -> bool:
    """Apply ``values`` if the match is still at ``seen_version``; ``True`` if it was applied.

    The optimistic-concurrency core, one statement::

        UPDATE matches SET <values>, version = version + 1 WHERE id = :id AND version = :seen

    A writer who read an older version matches no row and gets ``False``: someone else moved
    first, and the caller rolls its transaction back.
    """
    if {"id", "version"} & values.keys():
        raise ValueError("save_match manages id and version itself")
    parameters = {f"new_{name}": value for name, value in values.items()}
    parameters.update(match_id=match_id, seen_version=seen_version)
    connection = await core_connection(db)
    result = await connection.execute(_save_statement(tuple(sorted(values))), parameters)
    return result.rowcount == 1


@functools.cache
def _save_statement(columns: tuple[str, ...]) -> Update:
    """The version-checked UPDATE of ``columns``, built once for each set of columns."""
    return (
        update(_MATCHES)
        .where(
            _MATCHES.c.id == bindparam("match_id"),
            _MATCHES.c.version == bindparam("seen_version"),
        )
        .values(
            {
                **{name: bindparam(f"new_{name}") for name in columns},
                "version": _MATCHES.c.version + 1,
            }
        )
    )


async def set_message_id(session: AsyncSession, match_id: int, message_id: int | None) -> None:
    """Remember the message that shows the match's board (not a move: no version change)."""
    await session.execute(
        update(_MATCHES).where(_MATCHES.c.id == match_id).values(message_id=message_id)
    )


async def seat_players(db: Db, match_id: int, players: Sequence[int]) -> None:
    """Seat the players of a match that just started (user ids by seat)."""
    rows = [
        {"match_id": match_id, "seat": seat, "user_id": user} for seat, user in enumerate(players)
    ]
    await db.execute(insert(_PLAYERS), rows)


async def unfinished_matches(
    session: AsyncSession, user_id: int, guild_id: int | None = None
) -> list[MatchContext]:
    """The user's matches not yet over (as challenger or opponent), newest first, with what
    a snapshot needs. ``guild_id`` narrows them to one server."""
    statement = _LOAD_MATCH.where(
        or_(_MATCHES.c.challenger_id == user_id, _MATCHES.c.opponent_id == user_id),
        _MATCHES.c.status.in_(UNFINISHED_STATUSES),
    )
    if guild_id is not None:
        statement = statement.where(_MATCHES.c.guild_id == guild_id)
    statement = statement.order_by(_MATCHES.c.created_at.desc(), _MATCHES.c.id.desc())
    return [_match_context(row) for row in await session.execute(statement)]


_CHANNEL_MATCHES = _LOAD_MATCH.where(
    _MATCHES.c.guild_id == bindparam("guild_id"),
    _MATCHES.c.channel_id == bindparam("channel_id"),
    _MATCHES.c.game == bindparam("game"),
    _MATCHES.c.status.in_(UNFINISHED_STATUSES),
    or_(
        _MATCHES.c.challenger_id == bindparam("user_id"),
        _MATCHES.c.opponent_id == bindparam("user_id"),
    ),
).order_by(_MATCHES.c.created_at.desc(), _MATCHES.c.id.desc())
_CHANNEL_MATCHES_LOCKED = _CHANNEL_MATCHES.with_for_update(of=_MATCHES)


async def channel_matches(
    db: Db,
    guild_id: int,
    channel_id: int,
    game: str,
    user_id: int,
    *,
    for_update: bool = False,
) -> list[MatchContext]:
    """The user's unfinished matches of ``game`` in this channel, newest first (``for_update``
    locks them, as ``load_match`` does: a slash command's move finds its match this way)."""
    statement = _CHANNEL_MATCHES_LOCKED if for_update else _CHANNEL_MATCHES
    parameters = {"guild_id": guild_id, "channel_id": channel_id, "game": game, "user_id": user_id}
    connection = await core_connection(db)
    return [_match_context(row) for row in await connection.execute(statement, parameters)]


IN_CHUNK = 500
"""Ids per ``IN (...)`` list in one statement."""


async def in_play(
    session: AsyncSession, match_ids: Collection[int], channel_ids: Collection[int]
) -> tuple[set[int], set[int]]:
    """Of ``match_ids``, those unfinished; of ``channel_ids``, those holding an unfinished match
    (read in chunks, so that no statement carries too many parameters)."""
    live: set[int] = set()
    busy: set[int] = set()
    matches, channels = sorted(match_ids), sorted(channel_ids)
    for start in range(0, len(matches), IN_CHUNK):
        chunk = matches[start : start + IN_CHUNK]
        live |= set(
            await session.scalars(
                select(Match.id).where(Match.id.in_(chunk), Match.status.in_(UNFINISHED_STATUSES))
            )
        )
    for start in range(0, len(channels), IN_CHUNK):
        chunk = channels[start : start + IN_CHUNK]
        busy |= set(
            await session.scalars(
                select(Match.channel_id)
                .where(Match.channel_id.in_(chunk), Match.status.in_(UNFINISHED_STATUSES))
                .distinct()
            )
        )
    return live, busy


async def channel_unfinished(session: AsyncSession, guild_id: int, channel_id: int) -> list[int]:
    """Ids of the channel's unfinished matches, oldest first."""
    rows = await session.execute(
        select(Match.id)
        .where(
            Match.guild_id == guild_id,
            Match.channel_id == channel_id,
            Match.status.in_(UNFINISHED_STATUSES),
        )
        .order_by(Match.id)
    )
    return [match_id for (match_id,) in rows]


async def guild_unfinished(session: AsyncSession, guild_id: int) -> list[int]:
    """Ids of the guild's unfinished matches in its channels (not those played there through
    a member's own install, which the bot's presence does not concern), oldest first."""
    rows = await session.execute(
        select(Match.id)
        .where(
            Match.guild_id == guild_id,
            Match.status.in_(UNFINISHED_STATUSES),
            Match.place == MatchPlace.SERVER.value,
        )
        .order_by(Match.id)
    )
    return [match_id for (match_id,) in rows]


async def guilds_in_play(session: AsyncSession) -> list[int]:
    """Ids of the guilds that have unfinished matches in their channels: a match reached only
    through interactions (``guild_id`` 0 outside servers) does not need the bot in a server."""
    rows = await session.execute(
        select(Match.guild_id)
        .where(Match.status.in_(UNFINISHED_STATUSES), Match.place == MatchPlace.SERVER.value)
        .distinct()
    )
    return sorted(guild_id for (guild_id,) in rows)
