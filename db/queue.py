"""The quick-pair queue's queries, as plain async functions over a caller's session.

A member waits in one queue at a time (``queue_entries`` is keyed by the member). A wave claims
its queue's members ``FOR UPDATE SKIP LOCKED`` on PostgreSQL, in the transaction that starts
their matches and removes them: of several processes running waves, each member is claimed by
one only, and paired once. SQLite has one writer at a time anyway. A wave passes over the members
at their match limit, and on PostgreSQL those whose member lock (the one their challenges are
counted under) another transaction holds (``passed_over``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    BigInteger,
    Table,
    and_,
    bindparam,
    delete,
    func,
    or_,
    select,
    union_all,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.asyncio import AsyncSession

from db.connection import Db, upsert
from db.models import (
    GuildSettings,
    Match,
    MatchOrigin,
    MatchStatus,
    PlayerStats,
    QueueBoard,
    QueueEntry,
)

_ENTRIES = cast(Table, QueueEntry.__table__)
_BOARDS = cast(Table, QueueBoard.__table__)


@dataclass(frozen=True, slots=True)
class Spot:
    """Which queue: a game in a channel."""

    guild_id: int
    channel_id: int
    game: str


@dataclass(frozen=True, slots=True)
class Entry:
    """A member waiting, as a wave reads them."""

    user_id: int
    spot: Spot
    rating: float
    last_opponent_id: int | None
    joined_at: datetime
    offered: bool
    deviation: float | None = None
    """As it stood when they joined; ``None`` (an entry older than the column): settled."""


def _entry(row: QueueEntry) -> Entry:
    spot = Spot(row.guild_id, row.channel_id, row.game)
    return Entry(
        row.user_id,
        spot,
        row.rating,
        row.last_opponent_id,
        row.joined_at,
        row.offered,
        row.deviation,
    )


async def record_of(
    session: AsyncSession, guild_id: int, game: str, user_id: int
) -> PlayerStats | None:
    """The member's record against people in the server's game (None: a newcomer's)."""
    found: PlayerStats | None = await session.scalar(
        select(PlayerStats).where(
            PlayerStats.guild_id == guild_id,
            PlayerStats.game == game,
            PlayerStats.user_id == user_id,
            PlayerStats.vs_bot.is_(False),
        )
    )
    return found


async def last_queue_opponent(
    session: AsyncSession, guild_id: int, game: str, user_id: int
) -> int | None:
    """Whom the server's queue for ``game`` last paired the member with, if anyone."""
    found = (
        await session.execute(
            select(Match.challenger_id, Match.opponent_id)
            .where(
                or_(Match.challenger_id == user_id, Match.opponent_id == user_id),
                Match.guild_id == guild_id,
                Match.game == game,
                Match.origin == MatchOrigin.QUEUE.value,
                Match.vs_bot.is_(False),
            )
            .order_by(Match.created_at.desc(), Match.id.desc())
            .limit(1)
        )
    ).one_or_none()
    if found is None:
        return None
    return int(found[1] if found[0] == user_id else found[0])


async def entry_of(
    session: AsyncSession, user_id: int, *, for_update: bool = False
) -> Entry | None:
    """Where the member waits, if they do (``for_update`` locks the entry)."""
    statement = select(QueueEntry).where(QueueEntry.user_id == user_id)
    if for_update:
        statement = statement.with_for_update()
    row = await session.scalar(statement)
    return None if row is None else _entry(row)


async def put(
    session: AsyncSession,
    user_id: int,
    spot: Spot,
    rating: float,
    last_opponent_id: int | None,
    now: datetime,
    deviation: float | None = None,
) -> None:
    """Queue the member at ``spot`` from ``now``, replacing any place they had."""
    values = {
        "guild_id": spot.guild_id,
        "channel_id": spot.channel_id,
        "game": spot.game,
        "rating": rating,
        "deviation": deviation,
        "last_opponent_id": last_opponent_id,
        "joined_at": now,
        "offered": False,
    }
    statement = upsert(session, QueueEntry).values(user_id=user_id, **values)
    await session.execute(
        statement.on_conflict_do_update(index_elements=[QueueEntry.user_id], set_=values)
    )


async def remove(session: Db, user_ids: Collection[int]) -> list[Spot]:
    """Take the members out of whatever queue they wait in; the queues they were in."""
    if not user_ids:
        return []
    rows = await session.execute(_REMOVE, {"user_ids": list(user_ids)})
    return [Spot(*row) for row in rows]


_REMOVE = (
    delete(_ENTRIES)
    .where(_ENTRIES.c.user_id.in_(bindparam("user_ids", expanding=True)))
    .returning(_ENTRIES.c.guild_id, _ENTRIES.c.channel_id, _ENTRIES.c.game)
)
# Built once: every match that starts takes its players out of the queues.


async def claim(session: AsyncSession, spot: Spot) -> list[Entry]:
    """The queue's members, locked until the transaction ends; on PostgreSQL those another
    transaction holds (another process's wave) are passed over."""
    statement = (
        select(QueueEntry)
        .where(QueueEntry.channel_id == spot.channel_id, QueueEntry.game == spot.game)
        .order_by(QueueEntry.joined_at, QueueEntry.user_id)
    )
    if session.get_bind().dialect.name == "postgresql":
        statement = statement.with_for_update(skip_locked=True)
    return [_entry(row) for row in await session.scalars(statement)]


async def passed_over(
    session: AsyncSession, spot: Spot, claimed: Collection[int], most: int
) -> set[int]:
    """Of the members a wave ``claimed`` in the queue, those it must pass over: playing
    ``most`` matches or more, or, on PostgreSQL, whose member lock another transaction holds.

    The lock is the one ``db.member_load.member_load`` takes to count a member's matches for a
    challenge or an accept, tried here without waiting (as ``claim`` passes over the entries
    another wave holds). A member it is taken for is counted with every match of theirs that
    started before, and a challenge or accept of theirs begun meanwhile counts their matches
    only once the wave's have started. A member whose challenge or accept is under way waits
    for the next wave.
    """
    passed: set[int] = set()
    if claimed and session.get_bind().dialect.name == "postgresql":
        locked = set(await session.scalars(_TRY_LOCKS, {"ids": sorted(claimed)}))
        passed = set(claimed) - locked
    rows = await session.execute(
        select(_PLAYING.c.user_id)
        .where(_PLAYING.c.channel_id == spot.channel_id, _PLAYING.c.game == spot.game)
        .group_by(_PLAYING.c.user_id)
        .having(func.count() >= most)
    )
    return passed | {int(user_id) for (user_id,) in rows}


def _playing_statement() -> Any:
    """Each queued member's matches in play (set up or active), once per match, with the queue
    they wait in: as ``db.member_load`` counts them, by the same two indexes."""
    matches = cast(Table, Match.__table__)
    in_play = (MatchStatus.SETUP.value, MatchStatus.ACTIVE.value)
    seats = [
        select(_ENTRIES.c.user_id, _ENTRIES.c.channel_id, _ENTRIES.c.game)
        .select_from(_ENTRIES.join(matches, seat == _ENTRIES.c.user_id))
        .where(matches.c.status.in_(in_play))
        for seat in (matches.c.challenger_id, matches.c.opponent_id)
    ]
    return union_all(*seats).subquery("playing")


_PLAYING = _playing_statement()
_IDS = (
    func.unnest(bindparam("ids", type_=ARRAY(BigInteger())))
    .table_valued("user_id")
    .render_derived(name="ids")
)
_TRY_LOCKS = select(_IDS.c.user_id).where(func.pg_try_advisory_xact_lock(_IDS.c.user_id))
"""The members of ``:ids`` whose lock this transaction holds now, tried without waiting."""


async def busy_queues(session: AsyncSession, at_least: int = 2) -> list[Spot]:
    """Every queue with at least ``at_least`` members waiting."""
    rows = await session.execute(
        select(_ENTRIES.c.guild_id, _ENTRIES.c.channel_id, _ENTRIES.c.game)
        .group_by(_ENTRIES.c.guild_id, _ENTRIES.c.channel_id, _ENTRIES.c.game)
        .having(func.count() >= at_least)
    )
    return [Spot(*row) for row in rows]


async def count(session: AsyncSession, spot: Spot) -> int:
    """How many wait in the queue."""
    found = await session.scalar(
        select(func.count())
        .select_from(_ENTRIES)
        .where(_ENTRIES.c.channel_id == spot.channel_id, _ENTRIES.c.game == spot.game)
    )
    return int(found or 0)


async def remove_joined_before(session: AsyncSession, before: datetime) -> list[Entry]:
    """Take out everyone who joined before ``before``; who they were."""
    rows = list(await session.scalars(select(QueueEntry).where(QueueEntry.joined_at < before)))
    if rows:
        await session.execute(
            delete(_ENTRIES).where(_ENTRIES.c.user_id.in_([row.user_id for row in rows]))
        )
    return [_entry(row) for row in rows]


async def offers_due(
    session: AsyncSession, user_ids: Collection[int], now: datetime, default_wait: int
) -> list[Entry]:
    """Of ``user_ids``, those who have waited their server's fallback wait and were not
    offered the bot yet; they are marked offered."""
    if not user_ids:
        return []
    rows = await session.execute(
        select(QueueEntry, GuildSettings.queue_fallback)
        .outerjoin(GuildSettings, GuildSettings.guild_id == QueueEntry.guild_id)
        .where(QueueEntry.user_id.in_(list(user_ids)), QueueEntry.offered.is_(False))
    )
    due = [
        _entry(entry)
        for entry, wait in rows
        if (now - entry.joined_at).total_seconds() >= (default_wait if wait is None else wait)
    ]
    if due:
        await session.execute(
            update(_ENTRIES)
            .where(_ENTRIES.c.user_id.in_([entry.user_id for entry in due]))
            .values(offered=True)
        )
    return due


# ---------------------------------------------------------------------- the queue's messages


@dataclass(frozen=True, slots=True)
class Board:
    """A queue's message, and how many wait now against how many it shows."""

    spot: Spot
    message_id: int | None
    shown: int
    waiting: int


async def board(session: AsyncSession, spot: Spot) -> Board:
    """The queue's message (``message_id`` None: none posted yet) and its count."""
    row = await session.get(QueueBoard, (spot.channel_id, spot.game))
    waiting = await count(session, spot)
    if row is None:
        return Board(spot, None, 0, waiting)
    return Board(spot, row.message_id, row.shown, waiting)


async def stale_boards(session: AsyncSession, guild_ids: Collection[int] | None) -> list[Board]:
    """The queue messages whose count is out of date (in ``guild_ids``, if given)."""
    waiting = (
        select(func.count())
        .select_from(_ENTRIES)
        .where(_ENTRIES.c.channel_id == _BOARDS.c.channel_id, _ENTRIES.c.game == _BOARDS.c.game)
        .scalar_subquery()
    )
    statement = select(
        _BOARDS.c.guild_id,
        _BOARDS.c.channel_id,
        _BOARDS.c.game,
        _BOARDS.c.message_id,
        _BOARDS.c.shown,
        waiting,
    ).where(and_(_BOARDS.c.message_id.is_not(None), _BOARDS.c.shown != waiting))
    if guild_ids is not None:
        statement = statement.where(_BOARDS.c.guild_id.in_(list(guild_ids)))
    rows = await session.execute(statement)
    return [Board(Spot(g, c, game), m, shown, int(w)) for g, c, game, m, shown, w in rows]


async def record_board(
    session: AsyncSession, spot: Spot, message_id: int | None, shown: int, now: datetime
) -> None:
    """The queue's message is ``message_id`` and shows ``shown`` waiting."""
    values = {
        "guild_id": spot.guild_id,
        "message_id": message_id,
        "shown": shown,
        "updated_at": now,
    }
    statement = upsert(session, QueueBoard).values(
        channel_id=spot.channel_id, game=spot.game, **values
    )
    await session.execute(
        statement.on_conflict_do_update(
            index_elements=[QueueBoard.channel_id, QueueBoard.game], set_=values
        )
    )


async def close(session: AsyncSession, spot: Spot) -> list[int]:
    """Empty the queue and forget its message; who was waiting."""
    rows = await session.execute(
        delete(_ENTRIES)
        .where(_ENTRIES.c.channel_id == spot.channel_id, _ENTRIES.c.game == spot.game)
        .returning(_ENTRIES.c.user_id)
    )
    await session.execute(
        delete(_BOARDS).where(_BOARDS.c.channel_id == spot.channel_id, _BOARDS.c.game == spot.game)
    )
    return [int(user_id) for (user_id,) in rows]
