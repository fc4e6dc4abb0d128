"""A server's own timeouts: read with each match, set by its administrators."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import cast

from sqlalchemy import Table, bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.connection import Db, upsert
from db.models import GuildSettings

_SETTINGS = cast(Table, GuildSettings.__table__)


@dataclass(frozen=True, slots=True)
class ServerTimeouts:
    """A server's own timeouts in seconds (``None``: the host's default)."""

    guild_id: int
    turn_timeout: int | None
    setup_timeout: int | None
    challenge_timeout: int | None
    hint_timeout: int | None


TIMEOUT_COLUMNS = tuple(field.name for field in fields(ServerTimeouts) if field.name != "guild_id")


_SERVER_TIMEOUTS = select(*(_SETTINGS.c[name] for name in TIMEOUT_COLUMNS)).where(
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
