"""The bot's own stored values by key: heartbeats, marks of what was done once, and the like."""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.connection import upsert
from db.models import BotMeta


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


async def delete_meta(session: AsyncSession, key: str) -> bool:
    """Forget ``key``; whether it was there."""
    result = await session.execute(delete(BotMeta).where(BotMeta.key == key))
    return cast(int, getattr(result, "rowcount", 0)) == 1


async def add_meta(session: AsyncSession, key: str, value: str, now: datetime) -> bool:
    """Store ``value`` under ``key`` unless a value is there: whether this call stored it.

    Of several sessions adding the same key at once, on SQLite or PostgreSQL, exactly one does.
    """
    statement = upsert(session, BotMeta).values(key=key, value=value, updated_at=now)
    result = await session.execute(statement.on_conflict_do_nothing(index_elements=[BotMeta.key]))
    return cast(int, getattr(result, "rowcount", 0)) == 1


async def swap_meta(session: AsyncSession, key: str, seen: str, value: str, now: datetime) -> bool:
    """Replace ``key``'s value with ``value`` if it is still ``seen``: whether it was.

    A compare-and-set: of several sessions that read ``seen``, exactly one replaces it.
    """
    result = await session.execute(
        update(BotMeta)
        .where(BotMeta.key == key, BotMeta.value == seen)
        .values(value=value, updated_at=now)
    )
    return cast(int, getattr(result, "rowcount", 0)) == 1
