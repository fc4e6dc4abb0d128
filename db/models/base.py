"""What every table builds on: the declarative base, its naming convention, and the column
types (timezone-aware timestamps, JSON documents).

Discord ids (snowflakes) are 64-bit, so they are ``BigInteger``; ``0`` stands for "no guild".
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Dialect, MetaData, inspect
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncAttrs
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.schema import ColumnDefault
from sqlalchemy.types import TypeDecorator, TypeEngine

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
"""Deterministic constraint names, so migrations (and SQLite batch rebuilds) can refer to them."""


def utcnow() -> datetime:
    """The current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware timestamp that reads back aware on every database.

    SQLite keeps no offset, so values are stored as UTC and given ``UTC`` again when read;
    PostgreSQL's ``timestamptz`` round-trips them as they are. Naive datetimes are refused,
    since their meaning would depend on the machine's clock settings.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: pass a timezone-aware value")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None or value.tzinfo is not None:
            return value
        return value.replace(tzinfo=UTC)

    # SQLite: the same text as its DATETIME type stores ("2026-01-02 03:04:05.000006"), in one
    # C call each way. Every move writes and reads several timestamps.

    def bind_processor(self, dialect: Dialect) -> Callable[[Any], Any] | None:
        if dialect.name == "sqlite":
            return _sqlite_timestamp
        return super().bind_processor(dialect)

    def result_processor(self, dialect: Dialect, coltype: object) -> Callable[[Any], Any] | None:
        if dialect.name == "sqlite":
            return _read_sqlite_timestamp
        return super().result_processor(dialect, coltype)


def _sqlite_timestamp(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        raise ValueError("naive datetime: pass a timezone-aware value")
    return _utc_text(value)


@functools.lru_cache(maxsize=4096)
def _utc_text(value: datetime) -> str:
    """Remembered: a batch of moves writes the same few instants many times (its clock's
    ``now`` and the deadlines counted from it)."""
    return value.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


@functools.lru_cache(maxsize=4096)
def _read_sqlite_timestamp(value: str | None) -> datetime | None:
    """Remembered, as ``_utc_text``: the matches a batch of moves reads share the instants the
    last batches wrote, and a datetime is immutable."""
    if value is None:
        return None
    parsed = datetime.fromisoformat(value)
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


JSON_DOCUMENT: TypeEngine[Any] = JSON().with_variant(JSONB(), "postgresql")
"""JSON everywhere, JSONB on PostgreSQL."""


class Base(AsyncAttrs, DeclarativeBase):
    """The declarative base of every Parlor table."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)

    def __init__(self, **values: Any) -> None:
        """Build a row with its columns' Python-side defaults already filled in.

        SQLAlchemy applies ``default=`` only at INSERT; filling them here makes a new object
        usable at once (``stats.wins += 1`` works before the first flush).
        """
        for column in inspect(type(self)).columns:
            default = column.default
            if column.key in values or not isinstance(default, ColumnDefault):
                continue
            if default.is_scalar:
                values[column.key] = default.arg
            elif default.is_callable:
                values[column.key] = default.arg(None)
        self.registry.constructor(self, **values)
