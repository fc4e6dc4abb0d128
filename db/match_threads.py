"""Which matches are played in a thread of their own.

``matches.thread_id`` is ``NULL`` until the match's place is settled, once it is in play: ``0``
when it stays in its channel (threads off, a tournament's match, or no thread could be started),
else the id of its thread, which is then also its ``channel_id``.
"""

from __future__ import annotations

from typing import cast

from sqlalchemy import Table, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import GuildSettings, Match

IN_CHANNEL = 0
"""``thread_id`` of a match settled in its channel."""

_MATCHES = cast(Table, Match.__table__)


async def settle(session: AsyncSession, match_id: int) -> bool:
    """Settle the match in its channel unless it is settled already; whether this call did it
    and the match may move to a thread of its own (its server plays matches in threads, and
    it is not a tournament's). Of two callers, exactly one gets ``True``. A match started in
    another match's own thread (a rematch) takes that thread as its own."""
    claimed = await session.execute(
        update(_MATCHES)
        .where(_MATCHES.c.id == match_id, _MATCHES.c.thread_id.is_(None))
        .values(thread_id=IN_CHANNEL)
    )
    if not getattr(claimed, "rowcount", 0):
        return False
    row = (
        await session.execute(
            select(Match.channel_id, Match.tournament_id, GuildSettings.threads)
            .outerjoin(GuildSettings, GuildSettings.guild_id == Match.guild_id)
            .where(Match.id == match_id)
        )
    ).one()
    earlier = select(Match.id).where(Match.thread_id == row.channel_id, Match.id != match_id)
    if await session.scalar(earlier.limit(1)) is not None:
        # A rematch offered in a match's own thread: played there, and the thread's match now.
        await session.execute(
            update(_MATCHES).where(_MATCHES.c.id == match_id).values(thread_id=row.channel_id)
        )
        return False
    return row.tournament_id is None and bool(row.threads)


async def move_to_thread(session: AsyncSession, match_id: int, thread_id: int) -> None:
    """The match is now played in ``thread_id``: its board is posted anew there."""
    await session.execute(
        update(_MATCHES)
        .where(_MATCHES.c.id == match_id)
        .values(thread_id=thread_id, channel_id=thread_id, message_id=None)
    )


async def own_thread(session: AsyncSession, match_id: int) -> int | None:
    """The match's own thread, if it is played in one."""
    found = await session.scalar(select(Match.thread_id).where(Match.id == match_id))
    return found or None
