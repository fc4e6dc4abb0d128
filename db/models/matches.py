"""A match's tables: the match itself, its players, its event log, its review, and the outbox
of what it must still show.

Game state is stored as JSON the engines produce; nothing here knows a game's rules.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from db.models.base import JSON_DOCUMENT, Base, UTCDateTime, utcnow


class MatchStatus(StrEnum):
    """Where a match is in its lifecycle (docs/rules.md, "Lifecycle")."""

    CHALLENGED = "challenged"
    SETUP = "setup"
    ACTIVE = "active"
    FINISHED = "finished"
    ABORTED = "aborted"


class MatchOrigin(StrEnum):
    """How a match's two players found each other."""

    NAMED = "named"
    """A challenge to a member (or to the bot) by name."""
    OPEN = "open"
    """An open challenge: any member could accept it."""
    QUEUE = "queue"
    """A pairing of the quick-pair queue, or its fallback to the bot."""
    PAIRED = "paired"
    """A pairing made by an organizer (a tournament's)."""


class MatchPlace(StrEnum):
    """How a match's message is reached (docs/architecture.md, "Where a match lives")."""

    SERVER = "server"
    """A channel of a server that installed the bot: bot-token calls reach it."""
    INTERACTION = "interaction"
    """Anywhere else (a DM or group DM, a server without the app): the match lives on one
    message, reached only through interactions, never with the bot's token."""


OPEN_OPPONENT = 0
"""``opponent_id`` of an open challenge until a member accepts it: no Discord id is 0."""


UNFINISHED_STATUSES: tuple[MatchStatus, ...] = (
    MatchStatus.CHALLENGED,
    MatchStatus.SETUP,
    MatchStatus.ACTIVE,
)


class Match(Base):
    """One duel, from challenge to result; ``state`` is the engine's dump once the match starts."""

    __tablename__ = "matches"
    __table_args__ = (
        CheckConstraint(
            f"status IN ({', '.join(repr(status.value) for status in MatchStatus)})",
            name="status",
        ),
        Index("ix_matches_status_deadline", "status", "deadline"),
        Index("ix_matches_guild_channel_game_status", "guild_id", "channel_id", "game", "status"),
        Index("ix_matches_challenger_status", "challenger_id", "status"),
        Index("ix_matches_opponent_status", "opponent_id", "status"),
        Index("ix_matches_guild_status_finished", "guild_id", "status", "finished_at"),
        Index(
            "ix_matches_challenger_opponent_created", "challenger_id", "opponent_id", "created_at"
        ),
        Index("ix_matches_channel_origin_created", "channel_id", "origin", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    guild_id: Mapped[int] = mapped_column(BigInteger, default=0)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    game: Mapped[str] = mapped_column(String(16))
    options: Mapped[dict[str, Any]] = mapped_column(JSON_DOCUMENT, default=dict)
    seed: Mapped[int] = mapped_column(BigInteger)
    state: Mapped[dict[str, Any] | None] = mapped_column(JSON_DOCUMENT)
    status: Mapped[str] = mapped_column(String(16), default=MatchStatus.CHALLENGED.value)
    version: Mapped[int] = mapped_column(Integer, default=0)
    deadline: Mapped[datetime | None] = mapped_column(UTCDateTime)
    deadline_kind: Mapped[str | None] = mapped_column(String(16))
    challenger_id: Mapped[int] = mapped_column(BigInteger)
    opponent_id: Mapped[int] = mapped_column(BigInteger)
    vs_bot: Mapped[bool] = mapped_column(Boolean, default=False)
    bot_level: Mapped[str | None] = mapped_column(String(8))
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    winner_seat: Mapped[int | None] = mapped_column(Integer)
    end_reason: Mapped[str | None] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    recent: Mapped[list[str] | None] = mapped_column(JSON_DOCUMENT)
    """The texts of the match's last public events, oldest first, for its board's log."""
    acted_seats: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """A bit per seat that acted at least once (seat 0 is 1, seat 1 is 2)."""
    called_off_by: Mapped[int | None] = mapped_column(BigInteger)
    """The member who called the match off before it started, if one did."""
    tournament_id: Mapped[int | None] = mapped_column(Integer)
    """The tournament whose pairing this match plays, if any."""
    origin: Mapped[str] = mapped_column(
        String(8), default=MatchOrigin.NAMED.value, server_default=MatchOrigin.NAMED.value
    )
    """How the players found each other (``MatchOrigin``); an open challenge keeps
    ``opponent_id`` at ``OPEN_OPPONENT`` until it is accepted."""
    thread_id: Mapped[int | None] = mapped_column(BigInteger)
    """The match's own thread, when its server plays each match in one."""
    place: Mapped[str] = mapped_column(
        String(12), default=MatchPlace.SERVER.value, server_default=MatchPlace.SERVER.value
    )
    """How the match's message is reached (``MatchPlace``), decided at the challenge."""

    def __repr__(self) -> str:
        return f"<Match {self.id} {self.game} {self.status} v{self.version}>"


NAME_LENGTH = 64
"""The longest display name kept (Discord's are at most 32 characters)."""


class MatchPlayer(Base):
    """Who sits in which seat of a match (seat 0 moves first)."""

    __tablename__ = "match_players"
    __table_args__ = (
        CheckConstraint("seat IN (0, 1)", name="seat"),
        UniqueConstraint("match_id", "user_id"),
        Index("ix_match_players_user_match", "user_id", "match_id"),
    )

    match_id: Mapped[int] = mapped_column(
        ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger)
    display_name: Mapped[str | None] = mapped_column(String(NAME_LENGTH))
    """The member's name in the server when the match ended, if the bot knew it; ``None`` for
    matches that ended before names were kept."""

    def __repr__(self) -> str:
        return f"<MatchPlayer match={self.match_id} seat={self.seat} user={self.user_id}>"


class MatchEvent(Base):
    """One entry of a match's append-only log; ``audience`` is ``None`` (public) or a seat."""

    __tablename__ = "match_events"
    __table_args__ = (UniqueConstraint("match_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int | None] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(32))
    audience: Mapped[int | None] = mapped_column(Integer)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON_DOCUMENT, default=dict)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    def __repr__(self) -> str:
        return f"<MatchEvent match={self.match_id} #{self.seq} {self.kind}>"


class MatchReview(Base):
    """A finished match's review (``games.review``), computed once when first asked for."""

    __tablename__ = "match_reviews"

    match_id: Mapped[int] = mapped_column(
        ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer)
    """The review's format version: a review of another version is computed again."""
    review: Mapped[dict[str, Any]] = mapped_column(JSON_DOCUMENT)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class OutboxEntry(Base):
    """Something a use case must show with a bot-token call (a board's new state, a DM),
    written in the use case's transaction and removed once delivered: after a crash it is
    delivered from here, so a saved move is never left unseen."""

    __tablename__ = "outbox"
    __table_args__ = (
        Index("ix_outbox_due", "due_at"),
        Index("ix_outbox_match", "match_id", "kind", "version"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    """``board``, ``prompt`` (a DM asking ``user_id``) or ``private`` (``text`` for them)."""
    user_id: Mapped[int | None] = mapped_column(BigInteger)
    text: Mapped[str | None] = mapped_column(Text)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    due_at: Mapped[datetime] = mapped_column(UTCDateTime)
    """When the outbox's deliverer may take it: a little after the use case, whose own
    process delivers it at once; later after each failed attempt."""
