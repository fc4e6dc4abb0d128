"""Bring a database to the newest schema, from the bot's start or ``parlor db upgrade``."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from db.engine import create_engine

ALEMBIC_INI = Path(__file__).with_name("migrations") / "alembic.ini"

MIGRATION_LOCK = 0x5041524C4F52
"""The PostgreSQL advisory lock every upgrader takes ("PARLOR" in ASCII)."""


def alembic_config() -> Config:
    """Alembic's configuration for Parlor's migrations, wherever the package is installed."""
    return Config(str(ALEMBIC_INI))


async def upgrade(target: AsyncEngine | str | None = None, revision: str = "head") -> None:
    """Apply every migration up to ``revision`` (default: the newest).

    ``target`` is an engine to use, or a URL (``None``: the default SQLite file). Safe to call
    on every start: an up-to-date database is left as it is, and processes upgrading one database
    at once take turns. Within one process, do not run two at once: Alembic keeps global state.
    """
    engine = target if isinstance(target, AsyncEngine) else create_engine(target)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_upgrade, revision)
    finally:
        if engine is not target:
            await engine.dispose()


def _upgrade(connection: Connection, revision: str) -> None:
    config = alembic_config()
    heads = set(ScriptDirectory.from_config(config).get_heads())
    if revision == "head" and _current_heads(connection) == heads:
        return  # nothing to do, and nothing of Alembic's global state touched
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


async def is_current(target: AsyncEngine) -> bool:
    """Whether the database has every migration applied: what a reader of the schema (the web
    pages) checks before it starts, since it never upgrades a database itself."""
    async with target.connect() as connection:
        current = await connection.run_sync(_current_heads)
    return current == set(ScriptDirectory.from_config(alembic_config()).get_heads())


def _current_heads(connection: Connection) -> set[str]:
    return set(MigrationContext.configure(connection).get_current_heads())
