"""The tables Parlor keeps: matches, their players and event log, stats, settings and bot metadata.

Game state is stored as JSON the engines produce; nothing here knows a game's rules. Discord ids
(snowflakes) are 64-bit, so they are ``BigInteger``; ``0`` stands for "no guild".
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
    inspect,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncAttrs
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
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

# A new player's Glicko-2 rating: the values of bot.ratings.DEFAULT (db may not import bot).
DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 500.0
DEFAULT_VOLATILITY = 0.09


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


OPEN_OPPONENT = 0
"""``opponent_id`` of an open challenge until a member accepts it: no Discord id is 0."""


UNFINISHED_STATUSES: tuple[MatchStatus, ...] = (
    MatchStatus.CHALLENGED,
    MatchStatus.SETUP,
    MatchStatus.ACTIVE,
)


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


class PlayerStats(Base):
    """A member's record and Glicko-2 rating for one game in one guild, against people or the bot.

    ``streak`` is +n after n wins in a row, -n after n losses in a row, and 0 after a draw.
    """

    __tablename__ = "player_stats"
    __table_args__ = (Index("ix_player_stats_guild_user", "guild_id", "user_id"),)

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    game: Mapped[str] = mapped_column(String(16), primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    vs_bot: Mapped[bool] = mapped_column(Boolean, primary_key=True, default=False)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)
    draws: Mapped[int] = mapped_column(Integer, default=0)
    streak: Mapped[int] = mapped_column(Integer, default=0)
    best_streak: Mapped[int] = mapped_column(Integer, default=0)
    rating: Mapped[float] = mapped_column(Float, default=DEFAULT_RATING)
    deviation: Mapped[float] = mapped_column(Float, default=DEFAULT_DEVIATION)
    volatility: Mapped[float] = mapped_column(Float, default=DEFAULT_VOLATILITY)
    games_played: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    def __repr__(self) -> str:
        return (
            f"<PlayerStats guild={self.guild_id} {self.game} user={self.user_id}"
            f" vs_bot={self.vs_bot} {self.wins}-{self.losses}-{self.draws}>"
        )


Index(
    "ix_player_stats_ranking",
    PlayerStats.guild_id,
    PlayerStats.game,
    PlayerStats.vs_bot,
    PlayerStats.rating.desc(),
    PlayerStats.wins.desc(),
    PlayerStats.user_id,
)
"""A leaderboard in its own order (rating, then wins, then member): a page is read straight from
the index, and rows skipped to reach a deep page cost an index step each, with no sort."""


class RatingChange(Base):
    """A member's rating and deviation before and after one rated match, for the rating chart.

    Written with the result, in the match's own transaction. The first point of a member who
    was rated before the chart existed has no match: it is their rating when history began.
    """

    __tablename__ = "rating_history"
    __table_args__ = (
        Index("ix_rating_history_guild_user_game_at", "guild_id", "user_id", "game", "at"),
        Index("ix_rating_history_match", "match_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    guild_id: Mapped[int] = mapped_column(BigInteger)
    game: Mapped[str] = mapped_column(String(16))
    user_id: Mapped[int] = mapped_column(BigInteger)
    rating_before: Mapped[float] = mapped_column(Float)
    deviation_before: Mapped[float] = mapped_column(Float)
    rating_after: Mapped[float] = mapped_column(Float)
    deviation_after: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(UTCDateTime)


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


class GuildSettings(Base):
    """A server's timeouts in seconds (``None`` means the bot's default), and its language."""

    __tablename__ = "guild_settings"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    turn_timeout: Mapped[int | None] = mapped_column(Integer)
    setup_timeout: Mapped[int | None] = mapped_column(Integer)
    challenge_timeout: Mapped[int | None] = mapped_column(Integer)
    hint_timeout: Mapped[int | None] = mapped_column(Integer)
    queue_fallback: Mapped[int | None] = mapped_column(Integer)
    """Seconds in the quick-pair queue before a member is offered the bot (``None``: 60)."""
    threads: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Each match is played in its own thread."""
    language: Mapped[str | None] = mapped_column(String(16))
    """The language chosen with ``/settings language:`` for public posts (``None``: the
    server's preferred locale)."""
    preferred_locale: Mapped[str | None] = mapped_column(String(16))
    """The server's preferred locale as Discord last reported it (``en-US``, ``fr``, ...)."""
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class MemberLocale(Base):
    """The locale a member's client last showed the bot (a Discord locale such as ``de`` or
    ``es-419``): their DMs are written in it."""

    __tablename__ = "member_locales"

    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    locale: Mapped[str] = mapped_column(String(16))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class OutboxEntry(Base):
    """Something a use case must show with a bot-token call (a board's new state, a DM),
    written in the use case's transaction and removed once delivered: after a crash it is
    delivered from here, so a saved move is never left unseen."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_due", "due_at"),)

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


class QueueEntry(Base):
    """A member waiting in a channel's quick-pair queue for one game; one queue at a time.

    ``rating`` is read when they join, ``last_opponent_id`` is whom the queue paired them with
    last (not again while others wait). The interaction a fallback offer is sent through is
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


class BotMeta(Base):
    """A small key/value store for the bot itself (e.g. the hash of the last command sync)."""

    __tablename__ = "bot_meta"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


# ---------------------------------------------------------------------- tournaments


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


# ---------------------------------------------------------------------- the web pages


class WebSite(Base):
    """A server whose web pages are on: the hash of its link's token, and the key of its players'
    opaque ids. Turning the pages off deletes the row; on again makes a new token and key, so
    every old link, to the server or to a player, is dead."""

    __tablename__ = "web_sites"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    """SHA-256 of the link's token, in hex: the database never holds a working link."""
    player_key: Mapped[str] = mapped_column(String(64))
    """Hex key that turns a member's id into their page's opaque id and back (``web.ids``)."""
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
