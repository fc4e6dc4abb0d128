"""The bot's extensions: one per game, the shared commands, and typed DM answers."""

from __future__ import annotations

EXTENSIONS: tuple[str, ...] = (
    "bot.exts.games.crown",
    "bot.exts.games.claim",
    "bot.exts.games.crystal",
    "bot.exts.games.flag",
    "bot.exts.games.safe",
    "bot.exts.common",
    "bot.exts.dms",
)
"""Loaded at start, in this order."""
