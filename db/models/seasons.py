"""Seasons: a server's stretch of time with standings of its own per game, and the podium posted
when it ends."""

from __future__ import annotations

import enum
from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from db.models.base import Base, UTCDateTime, utcnow


class SeasonLength(enum.StrEnum):
    """How long a server's seasons last: calendar months, quarters or half-years (UTC), or none."""

    MONTH = "month"
    QUARTER = "quarter"
    HALF_YEAR = "half-year"
    OFF = "off"


class SeasonScore(enum.StrEnum):
    """What ranks a season's standings: the members' ratings, or the points of their results."""

    RATING = "rating"
    POINTS = "points"


class SeasonState(enum.StrEnum):
    OPEN = "open"
    CLOSED = "closed"
    """Ended: its standings are kept as they stood, its podium owed or posted."""


class Season(Base):
    """One season of a server: ``[starts_at, ends_at)``, numbered from 1 in each server."""

    __tablename__ = "seasons"
    __table_args__ = (
        UniqueConstraint("guild_id", "number"),
        UniqueConstraint("guild_id", "starts_at"),
        Index("ix_seasons_state_ends_at", "state", "ends_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    number: Mapped[int] = mapped_column(Integer)
    starts_at: Mapped[datetime] = mapped_column(UTCDateTime)
    ends_at: Mapped[datetime] = mapped_column(UTCDateTime)
    state: Mapped[str] = mapped_column(String(8), default=SeasonState.OPEN.value)
    score: Mapped[str] = mapped_column(String(8), default=SeasonScore.RATING.value)
    """What ranks its standings, as the server chose when the season ended (or now, while open)."""
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class SeasonStanding(Base):
    """A member's season in one game: their results in the season's rated matches, and their
    rating after the last of them. Written with the result, in the match's own transaction."""

    __tablename__ = "season_standings"

    season_id: Mapped[int] = mapped_column(
        ForeignKey("seasons.id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(16), primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    points: Mapped[float] = mapped_column(Float, default=0.0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)
    draws: Mapped[int] = mapped_column(Integer, default=0)
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    ranked_until: Mapped[datetime] = mapped_column(UTCDateTime)
    """When the rating after their last match, its deviation growing with time, turns
    provisional: the member is ranked in the season at a moment before it, listed apart after."""
    provisional: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Whether ``ranked_until`` has passed, as last written: at the match, by the sweeper for
    a running season, and at the season's end. A season's lists are read by it, from their
    indexes; the few rows whose moment passed since are found by ``ranked_until``."""
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


Index(
    "ix_season_standings_points",
    SeasonStanding.season_id,
    SeasonStanding.game,
    SeasonStanding.provisional,
    SeasonStanding.points.desc(),
    SeasonStanding.wins.desc(),
    SeasonStanding.user_id,
)
Index(
    "ix_season_standings_rating",
    SeasonStanding.season_id,
    SeasonStanding.game,
    SeasonStanding.provisional,
    SeasonStanding.rating.desc(),
    SeasonStanding.user_id,
)
"""Each order a season's lists (ranked, provisional) are read in, straight from its index."""
Index(
    "ix_season_standings_turning",
    SeasonStanding.season_id,
    SeasonStanding.game,
    SeasonStanding.provisional,
    SeasonStanding.ranked_until,
)
"""A season's rows still marked ranked whose rating has turned provisional since."""
Index("ix_season_standings_turned", SeasonStanding.provisional, SeasonStanding.ranked_until)
"""Those of every season, for the sweeper to mark."""


class SeasonPodium(Base):
    """The post of an ended season's podium: where it goes, the message it became, and whether
    it shows the podium. Claimed like an outbox entry, so that one process posts it at a time."""

    __tablename__ = "season_podiums"
    __table_args__ = (Index("ix_season_podiums_due", "posted", "due_at"),)

    season_id: Mapped[int] = mapped_column(
        ForeignKey("seasons.id", ondelete="CASCADE"), primary_key=True
    )
    guild_id: Mapped[int] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    posted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    due_at: Mapped[datetime] = mapped_column(UTCDateTime)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
