"""The queries Parlor runs, as plain async functions over a caller's session or connection.

Every function takes the ``AsyncSession`` first, or on a match's use cases either a session or a
Core ``AsyncConnection`` (``Db``), and never commits: the use case that opened the transaction
owns it (``async with engine.begin() as connection: ...``). A move runs on a bare connection:
a session's begin, flush bookkeeping, commit and close cost as much as one of its statements.

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

from sqlalchemy import (
    BigInteger,
    Table,
    Update,
    and_,
    bindparam,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from db.models import (
    DEFAULT_DEVIATION,
    DEFAULT_RATING,
    DEFAULT_VOLATILITY,
    UNFINISHED_STATUSES,
    Base,
    BotMeta,
    GuildSettings,
    Match,
    MatchEvent,
    MatchPlayer,
    MatchStatus,
    OutboxEntry,
    PlayerStats,
)

Db = AsyncSession | AsyncConnection
"""Where a query runs: a use case's Core connection (every use case of a match) or a session."""

EventRow = tuple[int | None, str, int | None, dict[str, Any]]
"""``(seat, kind, audience, payload)``: audience ``None`` is public, otherwise the one seat."""


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


MATCH_COLUMNS = tuple(field.name for field in fields(MatchRow))


@dataclass(frozen=True, slots=True)
class ServerTimeouts:
    """A server's own timeouts in seconds (``None``: the host's default)."""

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
_STATS = cast(Table, PlayerStats.__table__)
_TIMEOUTS = tuple(field.name for field in fields(ServerTimeouts) if field.name != "guild_id")
_MATCH_WIDTH = len(MATCH_COLUMNS)
_INSERT_EVENTS = insert(_EVENTS)
_INSERT_MATCH = insert(_MATCHES).returning(_MATCHES.c.id)
_OUTBOX = cast(Table, OutboxEntry.__table__)
_INSERT_OUTBOX = insert(_OUTBOX)
_DELIVERY_COLUMNS = ("id", "match_id", "version", "kind", "user_id", "text", "attempts")


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
            *(_SETTINGS.c[name] for name in _TIMEOUTS),
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
    connection = await _connection(db)
    row = (await connection.execute(statement, {"match_id": match_id})).one_or_none()
    return None if row is None else _match_context(row)


def _match_context(row: Sequence[Any]) -> MatchContext:
    match = MatchRow(*row[:_MATCH_WIDTH])
    settings_guild_id, *timeouts, user0, user1, last_seq = row[_MATCH_WIDTH:]
    settings = None
    if settings_guild_id is not None:
        settings = ServerTimeouts(settings_guild_id, *timeouts)
    players = [user0, user1] if user0 is not None and user1 is not None else []
    return MatchContext(match, settings, players, int(last_seq))


async def insert_match(db: Db, values: dict[str, Any]) -> int:
    """Store a new match; its id."""
    connection = await _connection(db)
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
    connection = await _connection(db)
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


async def append_events(
    db: Db,
    match_id: int,
    after_seq: int,
    events: Sequence[EventRow],
    now: datetime,
) -> None:
    """Append ``events`` to the match's log, numbered on from ``after_seq`` (the first is 1).

    Call it after a successful ``save_match`` in the same transaction: that UPDATE holds the
    match for writing, so no other writer can take the same numbers.
    """
    if not events:
        return
    rows = [
        {
            "match_id": match_id,
            "seq": after_seq + offset,
            "seat": seat,
            "kind": kind,
            "audience": audience,
            "payload": payload,
            "created_at": now,
        }
        for offset, (seat, kind, audience, payload) in enumerate(events, start=1)
    ]
    connection = await _connection(db)
    await connection.execute(_INSERT_EVENTS, rows)


async def get_events(session: AsyncSession, match_id: int) -> list[MatchEvent]:
    """The match's whole log, in order."""
    rows = await session.scalars(
        select(MatchEvent).where(MatchEvent.match_id == match_id).order_by(MatchEvent.seq)
    )
    return list(rows)


IN_CHUNK = 500
"""Ids per ``IN (...)`` list in one statement."""


@dataclass(frozen=True, slots=True)
class Due:
    """A match whose deadline is due, with what says which shard's downtime holds it."""

    match_id: int
    guild_id: int
    kind: str | None
    channel_id: int = 0
    deadline: datetime | None = None


async def missed_deadlines(
    session: AsyncSession, after: datetime, until: datetime, limit: int = 1000
) -> list[Due]:
    """Unfinished matches whose deadline fell in ``(after, until]``, oldest first."""
    rows = await session.execute(
        select(Match.id, Match.guild_id, Match.deadline_kind, Match.channel_id, Match.deadline)
        .where(
            Match.status.in_(UNFINISHED_STATUSES),
            Match.deadline > after,
            Match.deadline <= until,
        )
        .order_by(Match.deadline, Match.id)
        .limit(limit)
    )
    return [Due(*row) for row in rows]


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


async def move_deadline(
    session: AsyncSession, match_id: int, seen: datetime, deadline: datetime, now: datetime
) -> bool:
    """Set the deadline of an unfinished match still due at ``seen``; ``True`` if it was set.

    Not a move: the version stays, so the buttons already sent keep working. Only a deadline
    that nobody changed meanwhile is moved, so two processes never move it twice.
    """
    statement = (
        update(_MATCHES)
        .where(
            _MATCHES.c.id == match_id,
            _MATCHES.c.deadline == seen,
            _MATCHES.c.status.in_(UNFINISHED_STATUSES),
        )
        .values(deadline=deadline, updated_at=now)
    )
    result = await session.execute(statement)
    return cast(int, getattr(result, "rowcount", 0)) == 1


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


async def delete_meta(session: AsyncSession, key: str) -> bool:
    """Forget ``key``; whether it was there."""
    result = await session.execute(delete(BotMeta).where(BotMeta.key == key))
    return cast(int, getattr(result, "rowcount", 0)) == 1


async def guild_unfinished(session: AsyncSession, guild_id: int) -> list[int]:
    """Ids of the guild's unfinished matches, oldest first."""
    rows = await session.execute(
        select(Match.id)
        .where(Match.guild_id == guild_id, Match.status.in_(UNFINISHED_STATUSES))
        .order_by(Match.id)
    )
    return [match_id for (match_id,) in rows]


async def guilds_in_play(session: AsyncSession) -> list[int]:
    """Ids of the guilds that have unfinished matches."""
    rows = await session.execute(
        select(Match.guild_id).where(Match.status.in_(UNFINISHED_STATUSES)).distinct()
    )
    return sorted(guild_id for (guild_id,) in rows)


async def claim_due_match(
    session: AsyncSession, now: datetime, passed: Collection[int] = ()
) -> Due | None:
    """The longest overdue unfinished match, locked until the transaction ends, or ``None``
    when none is due; ``passed`` are ids to leave out (tried already).

    On PostgreSQL the row is read ``FOR UPDATE SKIP LOCKED``: a match another transaction holds
    (another process's sweep, or a move in progress) is passed over, so concurrent sweepers each
    claim different matches and none waits for another. The caller acts on the match in the same
    transaction, still with the version check. SQLite has one writer at a time anyway.
    """
    statement = (
        select(
            _MATCHES.c.id,
            _MATCHES.c.guild_id,
            _MATCHES.c.deadline_kind,
            _MATCHES.c.channel_id,
            _MATCHES.c.deadline,
        )
        .where(
            _MATCHES.c.status.in_(UNFINISHED_STATUSES),
            _MATCHES.c.deadline.is_not(None),
            _MATCHES.c.deadline <= now,
        )
        .order_by(_MATCHES.c.deadline, _MATCHES.c.id)
        .limit(1)
    )
    if passed:
        statement = statement.where(_MATCHES.c.id.not_in(sorted(passed)))
    if session.get_bind().dialect.name == "postgresql":
        statement = statement.with_for_update(skip_locked=True)
    found = (await session.execute(statement)).one_or_none()
    return None if found is None else Due(*found)


@dataclass(frozen=True, slots=True)
class MemberLoad:
    """What a member has going on, for the limits on challenges and matches."""

    open_challenges: int
    """Challenges they sent that wait for an answer."""
    playing: int
    """Matches they play that have started and are not over (against the bot too)."""
    sent_to_opponent: int
    """Challenges they sent to one member since a given time that did not become a match
    (waiting, withdrawn, declined or expired): a rematch played is never held back."""


_PLAYING = (MatchStatus.SETUP.value, MatchStatus.ACTIVE.value)
_UNANSWERED = ("withdrawn", "declined", "expired")
"""How a challenge that never became a match ended: what pings a member for nothing."""


async def member_load(db: Db, user_id: int, opponent_id: int | None, since: datetime) -> MemberLoad:
    """What ``user_id`` has going on (and has sent ``opponent_id`` since ``since``).

    The member's challenges are locked until the transaction ends, so that two sent at once
    cannot both pass a limit (on PostgreSQL through an advisory lock on the member's id;
    SQLite has one writer at a time). Each count reads one index.
    """
    connection = await _connection(db)
    if connection.dialect.name == "postgresql":
        await connection.execute(_MEMBER_LOCK, {"user_id": user_id})
    parameters = {"user_id": user_id, "opponent_id": opponent_id or 0, "since": since}
    row = (await connection.execute(_MEMBER_LOAD, parameters)).one()
    return MemberLoad(row[0], row[1] + row[2], row[3])


def _member_load_statement() -> Any:
    def counted(*where: Any) -> Any:
        return select(func.count()).select_from(_MATCHES).where(*where).scalar_subquery()

    user_id = bindparam("user_id", type_=BigInteger())
    sent = counted(
        _MATCHES.c.challenger_id == user_id,
        _MATCHES.c.opponent_id == bindparam("opponent_id"),
        _MATCHES.c.created_at >= bindparam("since", type_=_MATCHES.c.created_at.type),
        or_(
            _MATCHES.c.status == MatchStatus.CHALLENGED.value,
            _MATCHES.c.end_reason.in_(_UNANSWERED),
        ),
    )
    return select(
        counted(
            _MATCHES.c.challenger_id == user_id,
            _MATCHES.c.status == MatchStatus.CHALLENGED.value,
        ),
        counted(_MATCHES.c.challenger_id == user_id, _MATCHES.c.status.in_(_PLAYING)),
        counted(_MATCHES.c.opponent_id == user_id, _MATCHES.c.status.in_(_PLAYING)),
        sent,
    )


_MEMBER_LOAD = _member_load_statement()
_MEMBER_LOCK = select(func.pg_advisory_xact_lock(bindparam("user_id", type_=BigInteger())))
# Built once, as the move's statements are: every challenge and accept runs them.


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
    connection = await _connection(db)
    return [_match_context(row) for row in await connection.execute(statement, parameters)]


# ---------------------------------------------------------------------- the outbox


@dataclass(frozen=True)
class OutboxItem:
    """An outbox entry: what a use case must still show with a bot-token call."""

    id: int
    match_id: int
    version: int
    kind: str
    user_id: int | None
    text: str | None
    attempts: int


async def add_deliveries(
    db: Db,
    rows: Sequence[tuple[int, int, str, int | None, str | None]],
    due: datetime,
) -> None:
    """Add ``(match_id, version, kind, user_id, text)`` entries to the outbox, due at ``due``."""
    if not rows:
        return
    connection = await _connection(db)
    await connection.execute(
        _INSERT_OUTBOX,
        [
            {
                "match_id": match_id,
                "version": version,
                "kind": kind,
                "user_id": user_id,
                "text": text,
                "attempts": 0,
                "due_at": due,
            }
            for match_id, version, kind, user_id, text in rows
        ],
    )


_FORGET_BOARDS = delete(_OUTBOX).where(
    _OUTBOX.c.match_id == bindparam("m"),
    _OUTBOX.c.kind == "board",
    _OUTBOX.c.version <= bindparam("v"),
)
_FORGET_SENT = delete(_OUTBOX).where(
    _OUTBOX.c.match_id == bindparam("m"),
    _OUTBOX.c.version == bindparam("v"),
    _OUTBOX.c.kind == bindparam("k"),
    _OUTBOX.c.user_id == bindparam("u"),
)
_MOVE_BOARD = (
    update(_MATCHES).where(_MATCHES.c.id == bindparam("m")).values(message_id=bindparam("msg"))
)


async def record_shown(
    session: AsyncSession,
    boards: Sequence[tuple[int, int]],
    sent: Sequence[tuple[int, int, str, int]],
    moved: Sequence[tuple[int, int]],
) -> None:
    """What was shown, in one go: ``boards`` as ``(match_id, version)`` (a board shows every
    version up to its own), DMs ``sent`` as ``(match_id, version, kind, user_id)`` (each is
    forgotten alone: a DM of one version never stands for another's), and boards ``moved``
    to a new message as ``(match_id, message_id)``."""
    connection = await session.connection()
    if boards:
        await connection.execute(_FORGET_BOARDS, [{"m": m, "v": v} for m, v in boards])
    if sent:
        rows = [{"m": m, "v": v, "k": k, "u": u} for m, v, k, u in sent]
        await connection.execute(_FORGET_SENT, rows)
    if moved:
        await connection.execute(_MOVE_BOARD, [{"m": m, "msg": msg} for m, msg in moved])


async def claim_deliveries(
    session: AsyncSession, now: datetime, retry_at: datetime, limit: int
) -> list[OutboxItem]:
    """The entries due by ``now``, oldest first, each pushed back to ``retry_at`` so that no
    other deliverer takes it meanwhile (rows another transaction holds are skipped)."""
    rows = (
        await session.execute(
            select(*(_OUTBOX.c[name] for name in _DELIVERY_COLUMNS))
            .where(_OUTBOX.c.due_at <= now)
            .order_by(_OUTBOX.c.due_at, _OUTBOX.c.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    ).all()
    found = [OutboxItem(*row) for row in rows]
    if found:
        await session.execute(
            update(_OUTBOX)
            .where(_OUTBOX.c.id.in_([entry.id for entry in found]))
            .values(due_at=retry_at, attempts=_OUTBOX.c.attempts + 1)
        )
    return found


async def hurry_boards(
    session: AsyncSession, guild_id: int, channel_id: int, now: datetime
) -> None:
    """The channel's boards still owed are due ``now``, their backoff reset: it is back."""
    in_channel = select(Match.id).where(Match.guild_id == guild_id, Match.channel_id == channel_id)
    await session.execute(
        update(_OUTBOX)
        .where(_OUTBOX.c.kind == "board", _OUTBOX.c.match_id.in_(in_channel))
        .values(due_at=now, attempts=0)
    )


async def forget_delivery(session: AsyncSession, delivery_id: int) -> None:
    await session.execute(delete(_OUTBOX).where(_OUTBOX.c.id == delivery_id))


async def delay_delivery(session: AsyncSession, delivery_id: int, until: datetime) -> None:
    await session.execute(update(_OUTBOX).where(_OUTBOX.c.id == delivery_id).values(due_at=until))


# ---------------------------------------------------------------------- records


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
    connection = await _connection(db)
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
    connection = await _connection(db)
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


async def leaderboards(
    session: AsyncSession, guild_id: int, games: Sequence[str], limit: int
) -> dict[str, list[PlayerStats]]:
    """Each game's best players against people in this server, by rating, then wins, then user
    id, at most ``limit`` a game: one indexed statement a game."""
    tables: dict[str, list[PlayerStats]] = {}
    for game in games:
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
        tables[game] = list(rows)
    return tables


async def record(session: AsyncSession, guild_id: int, user_id: int) -> list[PlayerStats]:
    """The user's records in this guild, every game, against people and against the bot."""
    rows = await session.scalars(
        select(PlayerStats)
        .where(PlayerStats.guild_id == guild_id, PlayerStats.user_id == user_id)
        .order_by(PlayerStats.game, PlayerStats.vs_bot)
    )
    return list(rows)


@dataclass(frozen=True)
class FinishedMatch:
    """A finished match as a member's record lists it."""

    id: int
    game: str
    opponent_id: int
    winner_id: int | None
    vs_bot: bool
    end_reason: str | None
    finished_at: datetime | None


async def recent_matches(
    session: AsyncSession, guild_id: int, user_id: int, limit: int = 10, game: str | None = None
) -> list[FinishedMatch]:
    """The user's last finished matches in this guild (of ``game``, if given), most recent
    first, each with its winner. One statement: it starts from the user's own rows in
    ``match_players``, so its cost follows the user's history, not the server's."""
    mine, winner = MatchPlayer.__table__.alias("mine"), MatchPlayer.__table__.alias("winner")
    statement = (
        select(
            Match.id,
            Match.game,
            Match.challenger_id,
            Match.opponent_id,
            winner.c.user_id,
            Match.vs_bot,
            Match.end_reason,
            Match.finished_at,
        )
        .join(mine, mine.c.match_id == Match.id)
        .outerjoin(winner, and_(winner.c.match_id == Match.id, winner.c.seat == Match.winner_seat))
        .where(
            mine.c.user_id == user_id,
            Match.guild_id == guild_id,
            Match.status == MatchStatus.FINISHED,
        )
        .order_by(Match.finished_at.desc(), Match.id.desc())
        .limit(limit)
    )
    if game is not None:
        statement = statement.where(Match.game == game)
    return [
        FinishedMatch(
            id=match_id,
            game=name,
            opponent_id=opponent if challenger == user_id else challenger,
            winner_id=winner_id,
            vs_bot=bool(vs_bot),
            end_reason=end_reason,
            finished_at=finished_at,
        )
        for match_id, name, challenger, opponent, winner_id, vs_bot, end_reason, finished_at in (
            await session.execute(statement)
        )
    ]


# ---------------------------------------------------------------------- settings


_SERVER_TIMEOUTS = select(*(_SETTINGS.c[name] for name in _TIMEOUTS)).where(
    _SETTINGS.c.guild_id == bindparam("guild_id")
)


async def server_timeouts(db: Db, guild_id: int) -> ServerTimeouts | None:
    """The guild's own timeouts, or ``None`` if it never changed any."""
    row = (await db.execute(_SERVER_TIMEOUTS, {"guild_id": guild_id})).one_or_none()
    return None if row is None else ServerTimeouts(guild_id, *row)


async def set_server_timeouts(
    session: AsyncSession, guild_id: int, seconds: dict[str, int], now: datetime
) -> None:
    """Set some of the guild's timeouts (``{"turn": 600}``), keeping the others."""
    values = {f"{kind}_timeout": value for kind, value in seconds.items()}
    statement = upsert(session, GuildSettings).values(guild_id=guild_id, updated_at=now, **values)
    await session.execute(
        statement.on_conflict_do_update(
            index_elements=[GuildSettings.guild_id], set_={**values, "updated_at": now}
        )
    )


async def get_meta(session: AsyncSession, key: str) -> str | None:
    """The bot's stored value for ``key``, or ``None``."""
    row = await session.get(BotMeta, key)
    return None if row is None else row.value


async def set_meta(session: AsyncSession, key: str, value: str, now: datetime) -> None:
    """Store ``value`` under ``key``, replacing any earlier value."""
    statement = upsert(session, BotMeta).values(key=key, value=value, updated_at=now)
    await session.execute(
        statement.on_conflict_do_update(
            index_elements=[BotMeta.key], set_={"value": value, "updated_at": now}
        )
    )


async def meta_like(session: AsyncSession, prefix: str) -> dict[str, str]:
    """Every stored value whose key starts with ``prefix``."""
    rows = await session.execute(
        select(BotMeta.key, BotMeta.value).where(BotMeta.key.startswith(prefix, autoescape=True))
    )
    return {key: value for key, value in rows}


async def played_since(
    session: AsyncSession, match_ids: Sequence[int], since: datetime
) -> set[int]:
    """Which of the matches a player acted in after ``since`` (an event with a seat)."""
    if not match_ids:
        return set()
    rows = await session.execute(
        select(_EVENTS.c.match_id)
        .where(
            _EVENTS.c.match_id.in_(match_ids),
            _EVENTS.c.seat.is_not(None),
            _EVENTS.c.created_at > since,
        )
        .distinct()
    )
    return {match_id for (match_id,) in rows}


async def last_event_at(session: AsyncSession) -> datetime | None:
    """When the newest event of any match was logged: the last moment a bot was seen working
    on this database (every use case logs one; read through the primary key)."""
    return await session.scalar(select(_EVENTS.c.created_at).order_by(_EVENTS.c.id.desc()).limit(1))


def upsert(db: Db, model: type[Base]) -> sqlite.Insert | postgresql.Insert:
    """An INSERT that can take an ON CONFLICT clause, in the session's SQL dialect."""
    if dialect_of(db) == "postgresql":
        return postgresql.insert(model)
    return sqlite.insert(model)


def dialect_of(db: Db) -> str:
    """The name of the SQL dialect ``db`` speaks."""
    return db.dialect.name if isinstance(db, AsyncConnection) else db.get_bind().dialect.name


async def _connection(db: Db) -> AsyncConnection:
    """The Core connection under ``db``: statements built once run on it without the ORM's
    compile step."""
    return db if isinstance(db, AsyncConnection) else await db.connection()
