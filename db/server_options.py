"""A server's settings beside its timeouts: the queue's wait before the bot is offered, and
whether each match is played in a thread of its own."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from db.connection import upsert
from db.models import GuildSettings


@dataclass(frozen=True, slots=True)
class ServerOptions:
    queue_fallback: int | None
    """Seconds before a member waiting in the queue is offered the bot (``None``: default)."""
    threads: bool


async def server_options(session: AsyncSession, guild_id: int) -> ServerOptions:
    row = await session.get(GuildSettings, guild_id)
    if row is None:
        return ServerOptions(None, False)
    return ServerOptions(row.queue_fallback, bool(row.threads))


async def set_server_options(
    session: AsyncSession, guild_id: int, now: datetime, **values: Any
) -> None:
    """Set some of ``queue_fallback`` and ``threads``, keeping the server's other settings."""
    statement = upsert(session, GuildSettings).values(guild_id=guild_id, updated_at=now, **values)
    await session.execute(
        statement.on_conflict_do_update(
            index_elements=[GuildSettings.guild_id], set_={**values, "updated_at": now}
        )
    )
