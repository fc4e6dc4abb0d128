"""Settings, read once from the environment and ``.env`` by each entry point through
``read_settings``; never at import."""

from __future__ import annotations

import ipaddress
import os
import re
import sys
from typing import Literal, Self
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from bot.service.timeouts import BOUNDS, Timeouts

DISCORD_API = "https://discord.com/api/v10"
DISCORD_GATEWAY = "wss://gateway.discord.gg/"
EXIT_CONFIG = 2
"""The exit status of a process refused its settings: a restart alone will not mend it."""
SWEEP_LOW, SWEEP_HIGH = 0.1, 300.0
"""Seconds between two deadline sweeps: more often only loads the database, and rarer lets a
deadline pass unnoticed for minutes."""


class Settings(BaseSettings):
    """Everything the host of the bot may set. Names match the environment variables."""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", env_ignore_empty=True, extra="ignore"
    )

    discord_token: SecretStr | None = None
    database_url: str | None = Field(
        default=None, description="SQLAlchemy URL; unset means SQLite file parlor.db here."
    )
    dev_guild_id: int | None = Field(
        default=None, description="Sync commands to this server only, instantly (development)."
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    discord_debug_logging: bool = Field(
        default=False,
        description="Let discord.py log at DEBUG too: raw gateway and REST payloads, secrets "
        "included. Off: its loggers stay at INFO even when LOG_LEVEL is DEBUG.",
    )
    discord_api_base_url: str = DISCORD_API
    discord_gateway_url: str = DISCORD_GATEWAY
    challenge_timeout: int = Field(
        default=BOUNDS["challenge"].default, ge=BOUNDS["challenge"].low, le=BOUNDS["challenge"].high
    )
    setup_timeout: int = Field(
        default=BOUNDS["setup"].default, ge=BOUNDS["setup"].low, le=BOUNDS["setup"].high
    )
    turn_timeout: int = Field(
        default=BOUNDS["turn"].default, ge=BOUNDS["turn"].low, le=BOUNDS["turn"].high
    )
    hint_timeout: int = Field(
        default=BOUNDS["hint"].default, ge=BOUNDS["hint"].low, le=BOUNDS["hint"].high
    )
    sweep_interval: float = Field(
        default=5.0,
        ge=SWEEP_LOW,
        le=SWEEP_HIGH,
        allow_inf_nan=False,
        description="Seconds between deadline sweeps.",
    )
    shard_count: int | None = Field(
        default=None, ge=1, description="Shards in all; unset: as many as Discord recommends."
    )
    shard_ids: str | None = Field(
        default=None, description="The shards this process runs ('0,1', '0-3'); unset: all."
    )
    review_workers: int | None = Field(
        default=None,
        ge=1,
        le=64,
        description="Processes that compute match reviews; unset: one per CPU.",
    )
    reviews_per_minute: int = Field(
        default=6, ge=1, le=1000, description="New reviews one member may have computed a minute."
    )
    web_host: str = Field(default="127.0.0.1", description="`parlor web` listens here.")
    web_port: int = Field(default=8080, ge=1, le=65535, description="`parlor web`'s port.")
    web_base_url: str | None = Field(
        default=None,
        description="The site's public address, in the links /settings web:on gives; unset: "
        "http://WEB_HOST:WEB_PORT.",
    )
    web_trusted_proxies: str = Field(
        default="",
        description="Addresses or networks of reverse proxies whose X-Forwarded-For the site "
        "believes ('127.0.0.1', '10.0.0.0/8,::1'); unset: none, the peer's own address counts.",
    )
    web_requests_per_minute: int = Field(
        default=120,
        ge=1,
        description="Pages and charts one client (an IPv4 address, an IPv6 /64) may fetch a "
        "minute.",
    )
    metrics_host: str = Field(
        default="127.0.0.1", description="The metrics and health listener's address."
    )
    metrics_port: int | None = Field(
        default=None,
        ge=1,
        le=65535,
        description="The bot's /metrics and /healthz port; unset: no metrics, no port opened.",
    )
    web_metrics_port: int | None = Field(
        default=None,
        ge=1,
        le=65535,
        description="`parlor web`'s /metrics and /healthz port; unset: none.",
    )
    web_chart_dir: str | None = Field(
        default=None,
        description="A private folder (mode 700, this user's) where `parlor web` keeps drawn "
        "charts; unset: parlor-web-charts beside the SQLite file (for another database, in the "
        "working directory).",
    )

    @field_validator("database_url")
    @classmethod
    def _check_database_url(cls, url: str | None) -> str | None:
        return None if url is None else checked_database_url(url)

    @field_validator("discord_api_base_url")
    @classmethod
    def _check_api_url(cls, url: str) -> str:
        return _checked_url(url, secure="https", plain="http")

    @field_validator("discord_gateway_url")
    @classmethod
    def _check_gateway_url(cls, url: str) -> str:
        return _checked_url(url, secure="wss", plain="ws")

    @model_validator(mode="after")
    def _check_shards(self) -> Self:
        self.shards()
        return self

    def shards(self) -> tuple[int, ...] | None:
        """The shard ids this process runs, in order; ``None``: every shard of the count."""
        if self.shard_ids is None:
            return None
        if self.shard_count is None:
            raise ValueError(
                "SHARD_IDS needs SHARD_COUNT: the number of shards in all, the same in every "
                "process (e.g. SHARD_COUNT=4 and SHARD_IDS=0,1 here, SHARD_IDS=2,3 in another)"
            )
        return parse_shard_ids(self.shard_ids, self.shard_count)

    def web_link_base(self) -> str:
        """The site's public address without a trailing slash."""
        return (self.web_base_url or f"http://{self.web_host}:{self.web_port}").rstrip("/")

    def timeouts(self) -> Timeouts:
        """Default timeouts for servers that have not set their own (checked against the bounds)."""
        return Timeouts(
            challenge=BOUNDS["challenge"].check("challenge", self.challenge_timeout),
            setup=BOUNDS["setup"].check("setup", self.setup_timeout),
            turn=BOUNDS["turn"].check("turn", self.turn_timeout),
            hint=BOUNDS["hint"].check("hint", self.hint_timeout),
        )


DRIVERS = {"sqlite": "aiosqlite", "postgresql": "asyncpg"}
"""The databases Parlor runs on, each with the async driver it talks to it through."""
_SHAPES = {"sqlite": "sqlite+aiosqlite:///...", "postgresql": "postgresql+asyncpg://..."}
_ALIASES = {"postgres": "postgresql"}


def checked_database_url(url: str) -> str:
    """``url`` if it names SQLite through aiosqlite or PostgreSQL through asyncpg.

    Another driver of the two is refused with the URL to write instead (``postgresql://`` names
    a blocking driver, which the bot cannot run), anything else with what is valid. The errors
    never carry the URL: it may hold a password.
    """
    try:
        drivername = make_url(url).drivername
    except ArgumentError:
        raise ValueError("not an SQLAlchemy URL") from None
    backend, _, driver = drivername.partition("+")
    backend = _ALIASES.get(backend, backend)
    wanted = DRIVERS.get(backend)
    if wanted is None:
        raise ValueError("not a database Parlor runs on")
    if driver != wanted or drivername != f"{backend}+{driver}":
        raise PydanticCustomError(
            "setting",
            f"Parlor talks to {'SQLite' if backend == 'sqlite' else 'PostgreSQL'} through "
            f"{wanted}: use {_SHAPES[backend]} (the same URL with +{wanted} after {backend}).",
        )
    return url


def _checked_url(url: str, *, secure: str, plain: str) -> str:
    """``url`` if it is ``secure://``, or ``plain://`` to this machine; else ``ValueError``.

    The token travels with every request: unencrypted, it may only go to a local emulator or
    proxy.
    """
    parts = urlsplit(url)
    if parts.hostname and (
        parts.scheme == secure or (parts.scheme == plain and is_loopback(parts.hostname))
    ):
        return url
    raise ValueError(f"not a {secure}:// URL, nor {plain}:// to this machine")


def is_loopback(host: str) -> bool:
    """``localhost``, or an address in 127.0.0.0/8 or ``::1``."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


_BOUNDED = {f"{kind}_timeout": bounds for kind, bounds in BOUNDS.items()}

VALID: dict[str, str] = {
    "discord_token": "the bot token from the Discord Developer Portal",
    "database_url": (
        "sqlite+aiosqlite:///FILE (default sqlite+aiosqlite:///parlor.db) or "
        "postgresql+asyncpg://user:password@host:5432/database"
    ),
    "dev_guild_id": "a server id (a whole number), or unset",
    "log_level": "DEBUG, INFO, WARNING or ERROR",
    "discord_debug_logging": "true or false",
    "discord_api_base_url": (
        f"an https:// URL (default {DISCORD_API}); http:// only to this machine "
        "(127.0.0.1, ::1 or localhost)"
    ),
    "discord_gateway_url": (
        f"a wss:// URL (default {DISCORD_GATEWAY}); ws:// only to this machine "
        "(127.0.0.1, ::1 or localhost)"
    ),
    **{
        name: f"whole seconds from {bounds.low} to {bounds.high} (default {bounds.default})"
        for name, bounds in _BOUNDED.items()
    },
    "sweep_interval": f"seconds from {SWEEP_LOW:g} to {SWEEP_HIGH:g} (default 5)",
    "shard_count": "a whole number, 1 or more, or unset",
    "shard_ids": "shard numbers and ranges, e.g. 0,1 or 0-3, with SHARD_COUNT",
    "review_workers": "a whole number from 1 to 64, or unset",
    "reviews_per_minute": "a whole number from 1 to 1000 (default 6)",
    "web_host": "the address parlor web listens on, e.g. 127.0.0.1",
    "web_port": "a port from 1 to 65535 (default 8080)",
    "web_base_url": "the site's public address, e.g. https://parlor.example.org, or unset",
    "web_trusted_proxies": "addresses or networks of reverse proxies, e.g. 127.0.0.1,10.0.0.0/8",
    "web_requests_per_minute": "a whole number, 1 or more (default 120)",
    "web_chart_dir": "a private folder of this user's for drawn charts, or unset",
    "metrics_host": "the address the metrics listen on, e.g. 127.0.0.1",
    "metrics_port": "a port from 1 to 65535, or unset (no metrics)",
    "web_metrics_port": "a port from 1 to 65535, or unset (no metrics)",
}
"""What each setting accepts, as a settings error says it."""


def read_settings() -> Settings:
    """The settings from the environment and ``.env``, as every entry point reads them.

    A setting that cannot be taken ends the process with ``EXIT_CONFIG``: one line per problem
    on stderr, naming the setting and what it accepts, never the value, and no traceback.
    """
    try:
        return Settings()
    except ValidationError as error:
        print("\n".join(problems(error)), file=sys.stderr)
    except UnicodeDecodeError:  # its text would show the bytes around the bad one
        print("Cannot read the settings file .env: it is not UTF-8 text.", file=sys.stderr)
    except OSError as error:
        reason = os.strerror(error.errno) if error.errno else type(error).__name__
        print(f"Cannot read the settings file .env: {reason}.", file=sys.stderr)
    raise SystemExit(EXIT_CONFIG)


def problems(error: ValidationError) -> list[str]:
    """One line per problem of ``error``, naming the setting and what it accepts.

    Never the value given: pydantic's own text shows the inputs, the token among them (and a
    token pasted into the wrong setting would be shown too). The checks written here word their
    messages without the value, and those of type ``setting`` say what to write instead.
    """
    lines = []
    for problem in error.errors(include_url=False, include_input=False, include_context=False):
        location = problem["loc"]
        name = str(location[0]) if location else None
        if name in VALID and problem["type"] == "setting":
            lines.append(f"Invalid setting {name.upper()}: {problem['msg']}")
        elif name in VALID:
            lines.append(f"Invalid setting {name.upper()}: it must be {VALID[name]}.")
        elif name is None and problem["type"] == "value_error":  # a check across settings
            lines.append(f"Invalid settings: {problem['msg'].removeprefix('Value error, ')}")
        else:
            lines.append(f"Invalid setting {str(name).upper()}: see .env.example.")
    return lines


_SHARD_RANGE = re.compile(r"(\d+)(?:-(\d+))?")


def parse_shard_ids(text: str, count: int) -> tuple[int, ...]:
    """The shard ids ``text`` lists (``"0,1"``, ``"0-3"``, ``"0-1,4"``), each below ``count``."""
    found: list[int] = []
    for part in text.split(","):
        matched = _SHARD_RANGE.fullmatch(part.strip())
        if matched is None:
            raise ValueError("SHARD_IDS lists shard numbers and ranges, e.g. '0,1' or '0-3'")
        first = int(matched[1])
        last = int(matched[2]) if matched[2] is not None else first
        if last < first:
            raise ValueError("SHARD_IDS has a range that runs backwards, e.g. '3-1' for '1-3'")
        if last >= count:
            raise ValueError(
                "SHARD_IDS names a shard past SHARD_COUNT: shards are numbered from 0 to one "
                "less than SHARD_COUNT"
            )
        found += range(first, last + 1)
    if len(set(found)) != len(found):
        raise ValueError("SHARD_IDS names a shard twice")
    return tuple(sorted(found))
