"""A tournament's tables: the event, its entrants, rounds and games, and a server's organizers."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from db.models.base import JSON_DOCUMENT, Base, UTCDateTime, utcnow


class TournamentStatus(StrEnum):
    """Where a tournament is: taking entrants, playing its rounds, or over."""

    SIGNUP = "signup"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class Tournament(Base):
    """A server's event of one game: its entrants are paired round by round into matches.

    ``rounds`` is the number of rounds asked for at creation (Swiss only) and, once the event
    starts, the number it will have. ``version`` grows with every change: of two writers who read
    the same version, one succeeds (``UPDATE ... WHERE version = :seen``).
    """

    __tablename__ = "tournaments"
    __table_args__ = (
        CheckConstraint(
            f"status IN ({', '.join(repr(status.value) for status in TournamentStatus)})",
            name="status",
        ),
        CheckConstraint("format IN ('swiss', 'round_robin', 'knockout')", name="format"),
        Index("ix_tournaments_guild_status", "guild_id", "status"),
        Index("ix_tournaments_status_announced", "status", "announced"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    creator_id: Mapped[int] = mapped_column(BigInteger)
    game: Mapped[str] = mapped_column(String(16))
    options: Mapped[dict[str, Any]] = mapped_column(JSON_DOCUMENT, default=dict)
    format: Mapped[str] = mapped_column(String(16))
    rounds: Mapped[int | None] = mapped_column(Integer)
    max_players: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default=TournamentStatus.SIGNUP.value)
    round: Mapped[int] = mapped_column(Integer, default=0)
    """The round being played (0 during sign-up)."""
    version: Mapped[int] = mapped_column(Integer, default=0)
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    """The sign-up message."""
    winner_id: Mapped[int | None] = mapped_column(BigInteger)
    announced: Mapped[bool] = mapped_column(Boolean, default=False)
    """The end (result or cancellation) has been posted."""
    claimed_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    """A process posting the end holds it until then."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    def __repr__(self) -> str:
        return f"<Tournament {self.id} {self.game} {self.format} {self.status} v{self.version}>"


class TournamentEntrant(Base):
    """A member entered in a tournament; ``rating`` is their seeding rating, read at the start."""

    __tablename__ = "tournament_entrants"
    __table_args__ = (Index("ix_tournament_entrants_user", "user_id"),)

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    rating: Mapped[float | None] = mapped_column(Float)
    withdrawn: Mapped[str | None] = mapped_column(String(16))
    """Why the entrant is paired no more (``left``, ``timeouts``), or ``None``."""
    provisional: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Whether the seeding rating was provisional when read: seeded after the settled ones."""


class TournamentRound(Base):
    """One round of a tournament, and where it was announced and is played.

    ``entrants`` is a knockout round's bracket (user ids in bracket order, ``None`` for a bye).
    ``channel_id`` is set when the round is posted: its thread, or the tournament's channel.
    """

    __tablename__ = "tournament_rounds"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    entrants: Mapped[list[int | None] | None] = mapped_column(JSON_DOCUMENT)
    channel_id: Mapped[int | None] = mapped_column(BigInteger)
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    claimed_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    """A process posting the round holds it until then."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class TournamentGame(Base):
    """One game of a tournament round: a pairing played as a match, or a bye (``seat1`` None).

    A knockout pairing drawn is played again: ``replay`` counts the games before this one.
    ``ended`` once the result is recorded: ``score0`` is seat 0's points (1, 0.5, 0), ``None``
    for no result; ``lapsed0``/``lapsed1`` say that seat ran out of time.
    """

    __tablename__ = "tournament_games"
    __table_args__ = (
        UniqueConstraint("tournament_id", "round", "board", "replay"),
        UniqueConstraint("match_id"),
        Index("ix_tournament_games_ended_match", "ended", "match_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    round: Mapped[int] = mapped_column(Integer)
    board: Mapped[int] = mapped_column(Integer)
    replay: Mapped[int] = mapped_column(Integer, default=0)
    seat0: Mapped[int] = mapped_column(BigInteger)
    seat1: Mapped[int | None] = mapped_column(BigInteger)
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id", ondelete="SET NULL"))
    ended: Mapped[bool] = mapped_column(Boolean, default=False)
    score0: Mapped[float | None] = mapped_column(Float)
    lapsed0: Mapped[bool] = mapped_column(Boolean, default=False)
    lapsed1: Mapped[bool] = mapped_column(Boolean, default=False)


class GuildOrganizers(Base):
    """The role whose members may run tournaments in a server, besides Manage Server."""

    __tablename__ = "guild_organizers"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    role_id: Mapped[int] = mapped_column(BigInteger)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)
