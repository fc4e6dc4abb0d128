"""The role whose members may run a server's tournaments."""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import GuildOrganizers

# ---------------------------------------------------------------------- organizers


async def organizer_role(session: AsyncSession, guild_id: int) -> int | None:
    """The role whose members may run the server's tournaments, if one is set."""
    row = await session.get(GuildOrganizers, guild_id)
    return None if row is None else row.role_id


async def set_organizer_role(
    session: AsyncSession, guild_id: int, role_id: int, now: datetime
) -> None:
    upsert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    statement = upsert(GuildOrganizers).values(guild_id=guild_id, role_id=role_id, updated_at=now)
    await session.execute(
        statement.on_conflict_do_update(
            index_elements=[GuildOrganizers.guild_id],
            set_={"role_id": role_id, "updated_at": now},
        )
    )


async def clear_organizer_role(session: AsyncSession, guild_id: int) -> bool:
    """Unset the server's organizer role; ``True`` if one was set."""
    result = await session.execute(
        delete(GuildOrganizers).where(GuildOrganizers.guild_id == guild_id)
    )
    return cast(int, getattr(result, "rowcount", 0)) == 1
