"""Settings, read once from the environment and ``.env`` by ``main()``; never at import."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.service.timeouts import BOUNDS, Timeouts

DISCORD_API = "https://discord.com/api/v10"
DISCORD_GATEWAY = "wss://gateway.discord.gg/"


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
    challenge_timeout: int = BOUNDS["challenge"].default
    setup_timeout: int = BOUNDS["setup"].default
    turn_timeout: int = BOUNDS["turn"].default
    hint_timeout: int = BOUNDS["hint"].default
    sweep_interval: float = Field(default=5.0, gt=0, description="Seconds between deadline sweeps.")

    def timeouts(self) -> Timeouts:
        """Default timeouts for servers that have not set their own (checked against the bounds)."""
        return Timeouts(
            challenge=BOUNDS["challenge"].check("challenge", self.challenge_timeout),
            setup=BOUNDS["setup"].check("setup", self.setup_timeout),
            turn=BOUNDS["turn"].check("turn", self.turn_timeout),
            hint=BOUNDS["hint"].check("hint", self.hint_timeout),
        )
