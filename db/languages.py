"""Who reads what language: a server's chosen language and preferred locale, and the locale
each member last used with the bot. Every value is a Discord locale as Discord spells it
(``de``, ``es-419``); which catalog it reads is decided above the database."""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import select

from db.connection import Db, dialect_of, upsert, upsert_in
from db.models import GuildSettings, MemberLocale


async def server_language(db: Db, guild_id: int) -> tuple[str | None, str | None]:
    """The server's chosen language and its preferred locale (either may be ``None``)."""
    query = select(GuildSettings.language, GuildSettings.preferred_locale).where(
        GuildSettings.guild_id == guild_id
    )
    row = (await db.execute(query)).first()
    return (None, None) if row is None else (row.language, row.preferred_locale)


async def choose_language(db: Db, guild_id: int, language: str | None, now: datetime) -> None:
    """Set the server's chosen language (``None``: back to its preferred locale)."""
    statement = upsert(db, GuildSettings).values(
        guild_id=guild_id, language=language, updated_at=now
    )
    await db.execute(
        statement.on_conflict_do_update(
            index_elements=[GuildSettings.guild_id],
            set_={"language": language, "updated_at": now},
        )
    )


async def preferred_locales(db: Db, guild_ids: Collection[int]) -> dict[int, str | None]:
    """The preferred locale stored for each of ``guild_ids`` that has settings."""
    if not guild_ids:
        return {}
    query = select(GuildSettings.guild_id, GuildSettings.preferred_locale).where(
        GuildSettings.guild_id.in_(list(guild_ids))
    )
    return {row.guild_id: row.preferred_locale for row in await db.execute(query)}


async def set_preferred_locales(db: Db, locales: Mapping[int, str], now: datetime) -> None:
    """Store each server's preferred locale, keeping its other settings (one statement, however
    many servers: a bot in thousands of servers starts with all of them)."""
    if not locales:
        return
    statement = upsert(db, GuildSettings)
    statement = statement.on_conflict_do_update(
        index_elements=[GuildSettings.guild_id],
        set_={
            "preferred_locale": statement.excluded.preferred_locale,
            "updated_at": statement.excluded.updated_at,
        },
    )
    rows = [
        {"guild_id": guild_id, "preferred_locale": locale, "updated_at": now}
        for guild_id, locale in locales.items()
    ]
    await db.execute(statement, rows)


async def member_locale(db: Db, user_id: int) -> str | None:
    """The locale the member last used with the bot, if they ever did."""
    query = select(MemberLocale.locale).where(MemberLocale.user_id == user_id)
    found: str | None = (await db.execute(query)).scalar()
    return found


async def set_member_locale(db: Db, user_id: int, locale: str, now: datetime) -> None:
    """Store the locale the member uses now (a use case's first interaction with them)."""
    values = {"user_id": user_id, "locale": locale, "updated_at": now}
    await db.execute(_member_locale_upsert(dialect_of(db)), values)


@functools.cache
def _member_locale_upsert(dialect: str) -> Any:
    """Built once per dialect: building and keying the upsert cost more than running it."""
    statement = upsert_in(dialect, MemberLocale)
    return statement.on_conflict_do_update(
        index_elements=[MemberLocale.user_id],
        set_={"locale": statement.excluded.locale, "updated_at": statement.excluded.updated_at},
    )
