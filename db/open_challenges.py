"""The query behind a channel's limit on open challenges."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select

from db.connection import Db, dialect_of
from db.models import Match, MatchOrigin


async def posted_since(session: Db, channel_id: int, since: datetime) -> int:
    """Open challenges posted in the channel since ``since``, taken or not.

    The channel's open challenges are locked until the transaction ends (PostgreSQL: an
    advisory lock on the channel's id), so that two posted at once cannot both pass the limit.
    """
    if dialect_of(session) == "postgresql":
        await session.execute(select(func.pg_advisory_xact_lock(channel_id)))
    found = await session.scalar(
        select(func.count())
        .select_from(Match)
        .where(
            Match.channel_id == channel_id,
            Match.origin == MatchOrigin.OPEN.value,
            Match.created_at >= since,
        )
    )
    return int(found or 0)
