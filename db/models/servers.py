"""What the bot keeps about a server and its members beside their matches: a server's settings,
a member's locale, a server's web pages, and the bot's own key/values."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, Integer, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from db.models.base import Base, UTCDateTime, utcnow


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
    puzzle_channel: Mapped[int | None] = mapped_column(BigInteger)
    """The channel of the daily puzzle (``None``: no daily puzzle)."""
    season_length: Mapped[str | None] = mapped_column(String(12))
    """``month``, ``quarter``, ``half-year`` or ``off`` (``None``: quarters)."""
    season_score: Mapped[str | None] = mapped_column(String(8))
    """``rating`` or ``points`` (``None``: rating)."""
    season_channel: Mapped[int | None] = mapped_column(BigInteger)
    """Where an ended season's podium is posted (``None``: nowhere)."""
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class MemberLocale(Base):
    """The locale a member's client last showed the bot (a Discord locale such as ``de`` or
    ``es-419``): their DMs are written in it."""

    __tablename__ = "member_locales"

    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    locale: Mapped[str] = mapped_column(String(16))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class BotMeta(Base):
    """A small key/value store for the bot itself (e.g. the hash of the last command sync)."""

    __tablename__ = "bot_meta"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


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
