"""The post of an ended season's podium: owed when the season closes, claimed by one process at
a time like an outbox entry, its message recorded the moment it exists, and marked shown."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy import Table, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.connection import Db, dialect_of, upsert
from db.models import SeasonPodium

_PODIUMS = cast(Table, SeasonPodium.__table__)


@dataclass(frozen=True)
class PodiumDue:
    """A podium to post, or to show in the message an earlier attempt made."""

    season_id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    attempts: int


async def add_podium(db: Db, season_id: int, guild_id: int, channel_id: int, due: datetime) -> None:
    await db.execute(
        upsert(db, SeasonPodium)
        .values(
            season_id=season_id,
            guild_id=guild_id,
            channel_id=channel_id,
            posted=False,
            due_at=due,
            attempts=0,
        )
        .on_conflict_do_nothing(index_elements=["season_id"])
    )


async def claim_podiums(
    session: AsyncSession, now: datetime, retry_at: datetime, limit: int, attempts: int
) -> list[PodiumDue]:
    """Podiums not yet shown and due, tried fewer than ``attempts`` times, each pushed back to
    ``retry_at`` so that no other process takes it meanwhile (rows another transaction holds
    are skipped)."""
    statement = (
        select(
            _PODIUMS.c.season_id,
            _PODIUMS.c.guild_id,
            _PODIUMS.c.channel_id,
            _PODIUMS.c.message_id,
            _PODIUMS.c.attempts,
        )
        .where(
            _PODIUMS.c.posted.is_(False),
            _PODIUMS.c.due_at <= now,
            _PODIUMS.c.attempts < attempts,
        )
        .order_by(_PODIUMS.c.due_at, _PODIUMS.c.season_id)
        .limit(limit)
    )
    if dialect_of(session) == "postgresql":
        statement = statement.with_for_update(skip_locked=True)
    found = [PodiumDue(*row) for row in (await session.execute(statement)).all()]
    if found:
        await session.execute(
            update(_PODIUMS)
            .where(_PODIUMS.c.season_id.in_([p.season_id for p in found]))
            .values(due_at=retry_at, attempts=_PODIUMS.c.attempts + 1)
        )
    return found


async def podium_message(session: AsyncSession, season_id: int, message_id: int) -> None:
    """The podium's message, recorded the moment it exists: any later attempt edits it."""
    await session.execute(
        update(_PODIUMS).where(_PODIUMS.c.season_id == season_id).values(message_id=message_id)
    )


async def podium_shown(session: AsyncSession, season_id: int) -> None:
    await session.execute(
        update(_PODIUMS).where(_PODIUMS.c.season_id == season_id).values(posted=True)
    )


async def podium_of(session: AsyncSession, season_id: int) -> PodiumDue | None:
    row = (
        await session.execute(
            select(
                _PODIUMS.c.season_id,
                _PODIUMS.c.guild_id,
                _PODIUMS.c.channel_id,
                _PODIUMS.c.message_id,
                _PODIUMS.c.attempts,
            ).where(_PODIUMS.c.season_id == season_id)
        )
    ).first()
    return None if row is None else PodiumDue(*row)
