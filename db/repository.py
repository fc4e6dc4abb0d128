"""The queries Parlor runs, as plain async functions over a caller's session.

Every function takes the ``AsyncSession`` first and never commits: the use case that opened the
session owns the transaction (``async with sessions.begin() as session: ...``).

Concurrency rests on one statement, ``update_statement``: every change to a match is one
conditional UPDATE on its ``version``, so of two writers who read the same version exactly one
succeeds, on SQLite and PostgreSQL alike, and with any number of bot processes sharing the
database. ``update_match`` runs it for one match; the match service writes through
``db.batch.write_matches``, which runs it for a batch.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    Select,
    Table,
    Update,
    bindparam,
    func,
    insert,
    inspect,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import (
    UNFINISHED_STATUSES,
    Base,
    BotMeta,
    GuildSettings,
    Match,
    MatchEvent,
    MatchPlayer,
    MatchStatus,
    PlayerStats,
)

EventRow = tuple[int | None, str, int | None, dict[str, Any]]
"""``(seat, kind, audience, payload)``: audience ``None`` is public, otherwise the one seat."""

_MANAGED_MATCH_COLUMNS = frozenset({"id", "version"})


async def get_match(session: AsyncSession, match_id: int) -> Match | None:
    """The match with this id, or ``None``."""
    return await session.get(Match, match_id)


@dataclass(slots=True)
class MatchRow:
    """A match's columns as plain values, outside any session.

    What a use case reads and changes; its changes reach the database through the
    version-checked UPDATE only (``update_match``, ``db.batch.write_matches``). Building one
    costs a fraction of an ORM ``Match``, which matters once per move.
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

    @classmethod
    def of(cls, match: Match) -> MatchRow:
        """The values of an ORM ``Match`` (one just inserted, say)."""
        return cls(**{name: getattr(match, name) for name in MATCH_COLUMNS})


MATCH_COLUMNS = tuple(field.name for field in fields(MatchRow))


@dataclass(frozen=True, slots=True)
class ServerTimeouts:
    """A server's own timeouts in seconds (``None``: the host's default), as plain values:
    read with every move, where an ORM ``GuildSettings`` would cost more than the rest."""

    guild_id: int
    turn_timeout: int | None
    setup_timeout: int | None
    challenge_timeout: int | None
    hint_timeout: int | None


@dataclass(frozen=True)
class MatchContext:
    """A match with what a move needs beside it, read in one statement."""

    match: MatchRow
    settings: ServerTimeouts | None
    players: list[int]
    """User ids by seat; empty before the match starts."""
    last_seq: int
    """The ``seq`` of the match's last logged event (0 for none)."""


_MATCHES = cast(Table, Match.__table__)
_SETTINGS = cast(Table, GuildSettings.__table__)
_PLAYERS = cast(Table, MatchPlayer.__table__)
_EVENTS = cast(Table, MatchEvent.__table__)
_TIMEOUTS = tuple(field.name for field in fields(ServerTimeouts) if field.name != "guild_id")


def _load_match_statement(*, many: bool) -> Select[Any]:
    seat0, seat1 = _PLAYERS.alias("seat0"), _PLAYERS.alias("seat1")
    last_seq = (
        select(func.coalesce(func.max(MatchEvent.seq), 0))
        .where(MatchEvent.match_id == _MATCHES.c.id)
        .scalar_subquery()
    )
    which = (
        _MATCHES.c.id.in_(bindparam("match_ids", expanding=True))
        if many
        else _MATCHES.c.id == bindparam("match_id")
    )
    return (
        select(
            *(_MATCHES.c[name] for name in MATCH_COLUMNS),
            _SETTINGS.c.guild_id.label("settings_guild_id"),
            *(_SETTINGS.c[name] for name in _TIMEOUTS),
            seat0.c.user_id.label("seat0_user_id"),
            seat1.c.user_id.label("seat1_user_id"),
            last_seq.label("last_seq"),
        )
        .outerjoin(_SETTINGS, _SETTINGS.c.guild_id == _MATCHES.c.guild_id)
        .outerjoin(seat0, (seat0.c.match_id == _MATCHES.c.id) & (seat0.c.seat == 0))
        .outerjoin(seat1, (seat1.c.match_id == _MATCHES.c.id) & (seat1.c.seat == 1))
        .where(which)
    )


_LOAD_MATCH = _load_match_statement(many=False)
"""Built once: constructing a statement costs more Python than running it on every move."""
LOAD_MATCHES = _load_match_statement(many=True).order_by(_MATCHES.c.id).with_for_update(of=_MATCHES)
"""``_LOAD_MATCH`` for a list of ids (``match_ids``), locking the matches' rows in id order."""
INSERT_EVENT = insert(_EVENTS)
EVENT_COLUMNS = ("match_id", "seq", "seat", "kind", "audience", "payload", "created_at")
"""What ``event_rows`` gives for each event (the id is the database's)."""


async def load_match(session: AsyncSession, match_id: int) -> MatchContext | None:
    """The match, its server's settings, its players and its last event number, or ``None``.

    One Core statement on the session's connection: a move's cost is mostly the Python around
    each round trip, and the ORM's share of it is the largest. The ``MatchRow`` returned is not
    in the session (changes reach the database through the version-checked UPDATE only).
    """
    connection = await session.connection()
    result = await connection.execute(_LOAD_MATCH, {"match_id": match_id})
    row = result.one_or_none()
    return None if row is None else match_context(row)


def match_context(row: Sequence[Any]) -> MatchContext:
    """A row of ``LOAD_MATCH`` or ``LOAD_MATCHES`` as a ``MatchContext``.

    Read by position (the match's columns first, in ``MATCH_COLUMNS`` order): once per match
    in every batch of moves, where reading by name costs more than the rest of it."""
    match = MatchRow(*row[:_MATCH_WIDTH])
    settings_guild_id, *timeouts, user0, user1, last_seq = row[_MATCH_WIDTH:]
    settings = None
    if settings_guild_id is not None:
        settings = ServerTimeouts(settings_guild_id, *timeouts)
    players = [user0, user1] if user0 is not None and user1 is not None else []
    return MatchContext(match, settings, players, int(last_seq))


_MATCH_WIDTH = len(MATCH_COLUMNS)


async def get_players(session: AsyncSession, match_id: int) -> list[MatchPlayer]:
    """The match's players, seat 0 first."""
    rows = await session.scalars(
        select(MatchPlayer).where(MatchPlayer.match_id == match_id).order_by(MatchPlayer.seat)
    )
    return list(rows)


async def update_match(
    session: AsyncSession, match_id: int, seen_version: int, **values: Any
) -> bool:
    """Apply ``values`` if the match is still at ``seen_version``; ``True`` if it was applied.

    This is the optimistic-concurrency core. It runs one statement::

        UPDATE matches SET <values>, version = version + 1, updated_at = <now>
        WHERE id = :match_id AND version = :seen_version

    A writer who read an older version matches no row and gets ``False``: someone else moved
    first, nothing is applied, and the caller should say so (and roll back anything else it
    wrote in this transaction). Exactly one of any number of concurrent writers holding the
    same version gets ``True``. A ``Match`` loaded in this session is not refreshed (the
    service holds it detached); load it again to read the new values.
    ``updated_at`` is the wall clock unless given in ``values``.
    """
    managed = _MANAGED_MATCH_COLUMNS.intersection(values)
    if managed:
        raise ValueError(f"update_match manages {', '.join(sorted(managed))} itself")
    statement = update_statement(tuple(sorted(values)))
    parameters = {f"new_{name}": value for name, value in values.items()}
    parameters.update(match_id=match_id, seen_version=seen_version)
    connection = await session.connection()
    result = await connection.execute(statement, parameters)
    return result.rowcount == 1


@functools.cache
def update_statement(columns: tuple[str, ...]) -> Update:
    """The version-checked UPDATE of ``columns``, built once per set of columns."""
    # Core, not ORM: a Match loaded in the session is not refreshed (the service holds its
    # Match detached), and no ORM machinery runs on the hot path.
    new_values: dict[str, Any] = {name: bindparam(f"new_{name}") for name in columns}
    return (
        update(_MATCHES)
        .where(
            _MATCHES.c.id == bindparam("match_id"),
            _MATCHES.c.version == bindparam("seen_version"),
        )
        .values({**new_values, "version": _MATCHES.c.version + 1})
    )


async def append_events(
    session: AsyncSession,
    match_id: int,
    events: Sequence[EventRow],
    now: datetime,
    after_seq: int | None = None,
) -> None:
    """Append ``events`` to the match's log, numbered on from its last ``seq`` (the first is 1).

    Call it in the same transaction as a successful ``update_match``: that UPDATE holds the
    match's row (or, on SQLite, the database) for writing, so no other writer can take the
    same sequence numbers. ``after_seq`` is the last ``seq`` when the caller already read it
    (``load_match``): one statement fewer.
    """
    if not events:
        return
    if after_seq is None:
        after_seq = await session.scalar(
            select(func.coalesce(func.max(MatchEvent.seq), 0)).where(
                MatchEvent.match_id == match_id
            )
        )
    connection = await session.connection()
    await connection.execute(INSERT_EVENT, event_rows([(match_id, after_seq or 0, events)], now))


def event_rows(
    logs: Sequence[tuple[int, int, Sequence[EventRow]]], now: datetime
) -> list[dict[str, Any]]:
    """Rows for ``match_events``, from ``(match_id, after_seq, events)`` for each match."""
    return [
        {
            "match_id": match_id,
            "seq": after_seq + offset,
            "seat": seat,
            "kind": kind,
            "audience": audience,
            "payload": payload,
            "created_at": now,
        }
        for match_id, after_seq, events in logs
        for offset, (seat, kind, audience, payload) in enumerate(events, start=1)
    ]


async def get_events(session: AsyncSession, match_id: int) -> list[MatchEvent]:
    """The match's whole log, in order."""
    rows = await session.scalars(
        select(MatchEvent).where(MatchEvent.match_id == match_id).order_by(MatchEvent.seq)
    )
    return list(rows)


async def due_matches(session: AsyncSession, now: datetime, limit: int = 100) -> list[Match]:
    """Unfinished matches whose deadline is ``now`` or earlier, the longest overdue first.

    The sweeper claims each with the version-checked UPDATE, so two sweepers never act on one
    twice.
    """
    rows = await session.scalars(
        select(Match)
        .where(
            Match.status.in_(UNFINISHED_STATUSES),
            Match.deadline.is_not(None),
            Match.deadline <= now,
        )
        .order_by(Match.deadline, Match.id)
        .limit(limit)
    )
    return list(rows)


OPEN_CHALLENGES = (
    select(func.count())
    .select_from(_MATCHES)
    .where(
        _MATCHES.c.challenger_id == bindparam("user_id"),
        _MATCHES.c.status == MatchStatus.CHALLENGED.value,
    )
)
"""How many challenges ``user_id`` has sent that are still waiting for an answer."""


async def open_challenges(session: AsyncSession, user_id: int) -> int:
    """How many challenges ``user_id`` has sent that are still waiting for an answer."""
    return await session.scalar(OPEN_CHALLENGES, {"user_id": user_id}) or 0


async def unfinished_matches(
    session: AsyncSession, user_id: int, guild_id: int | None = None
) -> list[Match]:
    """The user's matches not yet over (as challenger or opponent), newest first.

    ``guild_id`` narrows them to one server.
    """
    statement = select(Match).where(
        or_(Match.challenger_id == user_id, Match.opponent_id == user_id),
        Match.status.in_(UNFINISHED_STATUSES),
    )
    if guild_id is not None:
        statement = statement.where(Match.guild_id == guild_id)
    rows = await session.scalars(statement.order_by(Match.created_at.desc(), Match.id.desc()))
    return list(rows)


async def channel_matches(
    session: AsyncSession, guild_id: int, channel_id: int, game: str, user_id: int
) -> list[Match]:
    """The user's unfinished matches of ``game`` in this channel, newest first.

    A slash command acts on the first of these.
    """
    rows = await session.scalars(
        select(Match)
        .where(
            Match.guild_id == guild_id,
            Match.channel_id == channel_id,
            Match.game == game,
            Match.status.in_(UNFINISHED_STATUSES),
            or_(Match.challenger_id == user_id, Match.opponent_id == user_id),
        )
        .order_by(Match.created_at.desc(), Match.id.desc())
    )
    return list(rows)


async def get_stats(
    session: AsyncSession, guild_id: int, game: str, user_id: int, vs_bot: bool = False
) -> PlayerStats | None:
    """The user's record for ``game`` in this guild, or ``None`` before their first result."""
    return await session.get(PlayerStats, (guild_id, game, user_id, vs_bot))


async def save_stats(session: AsyncSession, stats: PlayerStats) -> None:
    """Insert or update ``stats`` (new, loaded in this session, or loaded in another)."""
    await _save(session, stats)


async def leaderboard(
    session: AsyncSession, guild_id: int, game: str, limit: int = 10
) -> list[PlayerStats]:
    """The guild's best players of ``game`` against people: by rating, then wins, then user id."""
    rows = await session.scalars(
        select(PlayerStats)
        .where(
            PlayerStats.guild_id == guild_id,
            PlayerStats.game == game,
            PlayerStats.vs_bot.is_(False),
        )
        .order_by(PlayerStats.rating.desc(), PlayerStats.wins.desc(), PlayerStats.user_id)
        .limit(limit)
    )
    return list(rows)


async def record(session: AsyncSession, guild_id: int, user_id: int) -> list[PlayerStats]:
    """The user's records in this guild, every game, against people and against the bot."""
    rows = await session.scalars(
        select(PlayerStats)
        .where(PlayerStats.guild_id == guild_id, PlayerStats.user_id == user_id)
        .order_by(PlayerStats.game, PlayerStats.vs_bot)
    )
    return list(rows)


async def recent_matches(
    session: AsyncSession, guild_id: int, user_id: int, limit: int = 10
) -> list[Match]:
    """The user's last finished matches in this guild, the most recently finished first.

    The search starts from the user's own rows in ``match_players`` (index on user, match),
    so its cost follows the user's history, not the size of the server's.
    """
    rows = await session.scalars(
        select(Match)
        .join(MatchPlayer, MatchPlayer.match_id == Match.id)
        .where(
            MatchPlayer.user_id == user_id,
            Match.guild_id == guild_id,
            Match.status == MatchStatus.FINISHED,
        )
        .order_by(Match.finished_at.desc(), Match.id.desc())
        .limit(limit)
    )
    return list(rows)


async def get_settings(session: AsyncSession, guild_id: int) -> GuildSettings | None:
    """The guild's settings, or ``None`` if it never changed any."""
    return await session.get(GuildSettings, guild_id)


async def save_settings(session: AsyncSession, settings: GuildSettings) -> None:
    """Insert or update the guild's settings (from a new object: the timeouts set on it)."""
    await _save(session, settings)


async def get_meta(session: AsyncSession, key: str) -> str | None:
    """The bot's stored value for ``key``, or ``None``."""
    row = await session.get(BotMeta, key)
    return None if row is None else row.value


async def set_meta(session: AsyncSession, key: str, value: str) -> None:
    """Store ``value`` under ``key``, replacing any earlier value."""
    row = BotMeta(key=key, value=value)
    await session.execute(
        _insert(session, BotMeta)
        .values(_column_values(row))
        .on_conflict_do_update(
            index_elements=[BotMeta.key], set_={"value": value, "updated_at": row.updated_at}
        )
    )


async def _save(session: AsyncSession, row: Base) -> None:
    """Flush a row this session tracks, else merge it by primary key (insert or update).

    Merging a new object writes the attributes set on it (defaults included) and leaves the
    stored row's other columns as they are.
    """
    if row not in session:
        await session.merge(row)
    await session.flush()


def _insert(session: AsyncSession, model: type[Base]) -> sqlite.Insert | postgresql.Insert:
    """An INSERT that can take an ON CONFLICT clause, in the session's SQL dialect."""
    return upsert(session.get_bind().dialect.name, model)


def upsert(dialect: str, model: type[Base]) -> sqlite.Insert | postgresql.Insert:
    """An INSERT that can take an ON CONFLICT clause, in ``dialect``."""
    if dialect == "postgresql":
        return postgresql.insert(model)
    return sqlite.insert(model)


def _column_values(row: Base) -> dict[str, Any]:
    return {column.key: getattr(row, column.key) for column in inspect(type(row)).columns}
