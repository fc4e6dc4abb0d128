"""The outbox: what a use case must still show with a bot-token call, until it is shown."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy import Table, bindparam, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.connection import Db, core_connection
from db.models import UNFINISHED_STATUSES, Match, OutboxEntry

_MATCHES = cast(Table, Match.__table__)
_OUTBOX = cast(Table, OutboxEntry.__table__)


_INSERT_OUTBOX = insert(_OUTBOX)
_DELIVERY_COLUMNS = ("id", "match_id", "version", "kind", "user_id", "text", "attempts")


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
    connection = await core_connection(db)
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


async def owed_lines(db: Db, match_id: int, version: int) -> list[str]:
    """The lines kept with the match's board entries up to ``version`` (``text``), oldest
    first: what its message has not shown yet."""
    connection = await core_connection(db)
    rows = await connection.execute(
        select(_OUTBOX.c.text)
        .where(
            _OUTBOX.c.match_id == match_id,
            _OUTBOX.c.kind == "board",
            _OUTBOX.c.version <= version,
            _OUTBOX.c.text.is_not(None),
        )
        .order_by(_OUTBOX.c.version, _OUTBOX.c.id)
    )
    return [text for (text,) in rows]


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


async def forget_ended_boards(session: AsyncSession, guild_id: int, channel_id: int) -> list[int]:
    """Forget the boards the channel still owes of matches that are over; those matches' ids.

    For a channel given up (out of the bot's reach for a whole turn timeout): each try of such
    a board is refused again, and would hold the channel once more."""
    ended = select(Match.id).where(
        Match.guild_id == guild_id,
        Match.channel_id == channel_id,
        Match.status.not_in(UNFINISHED_STATUSES),
    )
    forgotten = await session.execute(
        delete(_OUTBOX)
        .where(_OUTBOX.c.kind == "board", _OUTBOX.c.match_id.in_(ended))
        .returning(_OUTBOX.c.match_id)
    )
    return sorted(set(forgotten.scalars()))


async def forget_delivery(session: AsyncSession, delivery_id: int) -> None:
    await session.execute(delete(_OUTBOX).where(_OUTBOX.c.id == delivery_id))


async def delay_delivery(
    session: AsyncSession, delivery_id: int, until: datetime, *, attempts: int | None = None
) -> None:
    """The entry is due again at ``until`` (and counts ``attempts`` tries, when given)."""
    values: dict[str, object] = {"due_at": until}
    if attempts is not None:
        values["attempts"] = attempts
    await session.execute(update(_OUTBOX).where(_OUTBOX.c.id == delivery_id).values(**values))
