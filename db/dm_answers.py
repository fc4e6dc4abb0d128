"""The prompts the bot awaits by DM, and the typed DMs it took (``db.models.dms``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.connection import upsert
from db.models import DmAnswer, DmPrompt

KEPT = timedelta(days=30)
"""How long a taken DM's id is kept; a start reads no DM older than this."""


async def note_prompt(
    session: AsyncSession,
    match_id: int,
    user_id: int,
    channel_id: int,
    message_id: int,
    now: datetime,
) -> None:
    """The bot asked ``user_id`` by DM for ``match_id`` in ``message_id``: the newest prompt."""
    values = {"channel_id": channel_id, "message_id": message_id, "asked_at": now}
    statement = upsert(session, DmPrompt).values(match_id=match_id, user_id=user_id, **values)
    await session.execute(
        statement.on_conflict_do_update(
            index_elements=[DmPrompt.match_id, DmPrompt.user_id], set_=values
        )
    )


async def prompts(session: AsyncSession) -> Sequence[DmPrompt]:
    """Every prompt noted and not forgotten, oldest first."""
    rows = await session.scalars(select(DmPrompt).order_by(DmPrompt.asked_at))
    return rows.all()


async def forget_prompt(session: AsyncSession, match_id: int, user_id: int) -> None:
    await session.execute(
        delete(DmPrompt).where(DmPrompt.match_id == match_id, DmPrompt.user_id == user_id)
    )


async def take_answer(session: AsyncSession, message_id: int, now: datetime) -> bool:
    """Mark the typed DM ``message_id`` taken: whether it was not yet (then this caller
    answers it). Of several sessions taking it at once, exactly one does."""
    statement = upsert(session, DmAnswer).values(message_id=message_id, taken_at=now)
    result = await session.execute(statement.on_conflict_do_nothing())
    return cast(int, getattr(result, "rowcount", 0)) == 1


async def forget_answers(session: AsyncSession, before: datetime) -> None:
    """Forget the DMs taken before ``before``."""
    await session.execute(delete(DmAnswer).where(DmAnswer.taken_at < before))
