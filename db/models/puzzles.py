"""Puzzles found in finished matches (and the public pool), the members' answers to them, their
puzzle ratings, and each server's daily puzzle post."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from db.models.base import JSON_DOCUMENT, Base, UTCDateTime, utcnow
from db.models.records import DEFAULT_DEVIATION, DEFAULT_RATING, DEFAULT_VOLATILITY

PUBLIC_POOL = 0
"""The ``guild_id`` of the public pool's puzzles (from the bot's games against itself), shown
in every server and outside servers."""


class Puzzle(Base):
    """One position with one clearly best move, as ``games.puzzles.Puzzle.dump()`` keeps it,
    rated by who solves it. ``key`` names the position within its scope (a server, or the
    public pool), so the same position found twice is stored once."""

    __tablename__ = "puzzles"
    __table_args__ = (
        UniqueConstraint("guild_id", "key"),
        Index("ix_puzzles_guild_game_rating", "guild_id", "game", "rating"),
        Index("ix_puzzles_match", "match_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    """The server whose match it came from, or ``PUBLIC_POOL``."""
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id", ondelete="SET NULL"))
    game: Mapped[str] = mapped_column(String(16))
    key: Mapped[str] = mapped_column(String(128))
    data: Mapped[dict[str, Any]] = mapped_column(JSON_DOCUMENT)
    rating: Mapped[float] = mapped_column(Float, default=DEFAULT_RATING)
    deviation: Mapped[float] = mapped_column(Float, default=DEFAULT_DEVIATION)
    volatility: Mapped[float] = mapped_column(Float, default=DEFAULT_VOLATILITY)
    tries: Mapped[int] = mapped_column(Integer, default=0)
    solves: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class PuzzleAttempt(Base):
    """A member's one answer to a puzzle: the key makes a second press count for nothing."""

    __tablename__ = "puzzle_attempts"
    __table_args__ = (Index("ix_puzzle_attempts_user", "user_id"),)

    puzzle_id: Mapped[int] = mapped_column(
        ForeignKey("puzzles.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    action: Mapped[str] = mapped_column(String(64))
    correct: Mapped[bool] = mapped_column(Boolean)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class PuzzleRating(Base):
    """A member's puzzle rating for one game, the same in every server (docs/puzzles.md), with
    their run of right answers in a row and the longest."""

    __tablename__ = "puzzle_ratings"

    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    game: Mapped[str] = mapped_column(String(16), primary_key=True)
    rating: Mapped[float] = mapped_column(Float, default=DEFAULT_RATING)
    deviation: Mapped[float] = mapped_column(Float, default=DEFAULT_DEVIATION)
    volatility: Mapped[float] = mapped_column(Float, default=DEFAULT_VOLATILITY)
    tries: Mapped[int] = mapped_column(Integer, default=0)
    solves: Mapped[int] = mapped_column(Integer, default=0)
    streak: Mapped[int] = mapped_column(Integer, default=0)
    best_streak: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


BEHIND = "shown < version"
"""A daily post whose message does not show its latest change: the only rows the sweep reads,
so they have an index of their own that stays small however many days are stored."""


class DailyPuzzle(Base):
    """A server's puzzle of one UTC day in its puzzle channel: the post, who tried and solved
    it, and the first solvers. ``version`` counts its changes and ``shown`` the change its post
    last showed, so a sweep posts or edits what is behind, after downtime too."""

    __tablename__ = "daily_puzzles"
    __table_args__ = (
        Index(
            "ix_daily_puzzles_behind",
            "day",
            "guild_id",
            sqlite_where=text(BEHIND),
            postgresql_where=text(BEHIND),
        ),
    )

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    day: Mapped[str] = mapped_column(String(10), primary_key=True)
    """The UTC day, ``YYYY-MM-DD``."""
    puzzle_id: Mapped[int] = mapped_column(ForeignKey("puzzles.id", ondelete="CASCADE"))
    channel_id: Mapped[int] = mapped_column(BigInteger)
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    tries: Mapped[int] = mapped_column(Integer, default=0)
    solves: Mapped[int] = mapped_column(Integer, default=0)
    first_solvers: Mapped[list[int]] = mapped_column(JSON_DOCUMENT, default=list)
    version: Mapped[int] = mapped_column(Integer, default=1)
    shown: Mapped[int] = mapped_column(Integer, default=0)


class PuzzleSource(Base):
    """A finished rated match searched for puzzles, and how many were new: each match is
    searched once, whenever the search could run (after downtime too)."""

    __tablename__ = "puzzle_sources"

    match_id: Mapped[int] = mapped_column(
        ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    found: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
