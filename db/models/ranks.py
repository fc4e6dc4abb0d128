"""Rank roles: the roles a server hands out by rating, the roles Parlor gave, and the members
whose rank roles must still be brought up to date."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, Index, Integer, String, false
from sqlalchemy.orm import Mapped, mapped_column

from db.models.base import Base, UTCDateTime, utcnow

BEST = "best"
"""``rank_roles.game`` of a rank read from a member's best rating over every game."""


class RankRole(Base):
    """A role a server gives by rating: ``game``'s (or ``best``) rating at least ``rating``.

    A role is one rank at most; within one game (or ``best``) the highest rank a member's
    rating reaches is the one they hold."""

    __tablename__ = "rank_roles"
    __table_args__ = (Index("ix_rank_roles_guild_game", "guild_id", "game", "rating", unique=True),)

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    role_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    game: Mapped[str] = mapped_column(String(16))
    """A game's short name, or ``best``."""
    rating: Mapped[int] = mapped_column(Integer)
    season: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Brought up to date for every member holding it when a season ends, as after a match."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class RankGrant(Base):
    """A rank role Parlor gave a member: the only roles it ever takes away."""

    __tablename__ = "rank_grants"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    role_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    given_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class RankUpdate(Base):
    """A member whose rank roles must be brought up to date (after a rated match, a season's
    end): written in the transaction that changed their rating, removed once Discord has the
    roles, so a restart never loses one."""

    __tablename__ = "rank_updates"
    __table_args__ = (Index("ix_rank_updates_due", "due_at"),)

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    due_at: Mapped[datetime] = mapped_column(UTCDateTime)
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
