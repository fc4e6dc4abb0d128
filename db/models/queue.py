"""The quick-pair queue: who waits in which channel for which game, and each queue's message."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, Float, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from db.models.base import Base, UTCDateTime, utcnow


class QueueEntry(Base):
    """A member waiting in a channel's quick-pair queue for one game; one queue at a time.

    ``rating`` and ``deviation`` are read when they join (the deviation grown to that moment;
    ``None`` for an entry made before deviations were kept, read as settled);
    ``last_opponent_id`` is whom the queue paired them with last (not again while others
    wait). The interaction a fallback offer is sent through is
    never stored: its token stays in the memory of the process that got it.
    """

    __tablename__ = "queue_entries"
    __table_args__ = (
        Index("ix_queue_entries_channel_game_joined", "channel_id", "game", "joined_at"),
    )

    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    game: Mapped[str] = mapped_column(String(16))
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float | None] = mapped_column(Float, default=None)
    last_opponent_id: Mapped[int | None] = mapped_column(BigInteger)
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime)
    offered: Mapped[bool] = mapped_column(Boolean, default=False)
    """The bot was offered to them (once per stay)."""


class QueueBoard(Base):
    """The one message of a channel's queue for one game, and the count it last showed."""

    __tablename__ = "queue_boards"

    channel_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    game: Mapped[str] = mapped_column(String(16), primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    shown: Mapped[int] = mapped_column(Integer, default=0)
    """How many waiting the message says: an edit is due when the queue differs."""
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)
