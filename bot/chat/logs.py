"""Keep Parlor's buttons and forms out of discord.py's log lines, and its voice warnings out of
the log altogether.

When a button's or a form's callback fails (most often because the interaction could not be
acknowledged: too late, already answered by another process, or a network error), discord.py
logs the item with its ``repr``: a button's label, which may be a Crown cell, a trap cell or a
hint sentence. discord.py 2.7 has no error hook for dynamic items (``ViewStore`` logs them
itself), so a filter on its UI loggers replaces every button, view or form in a record's
arguments with its class, match and verb. The traceback is kept: what escapes a callback is a
Discord or network error, whose text holds no secret.

Every start of a discord.py client also warns that PyNaCl and davey are missing, "voice will
NOT be supported": Parlor uses no voice, and the lines read as if something were broken.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.chat.components import Press

UI_LOGGERS = (
    "discord.ui.view",
    "discord.ui.modal",
    "discord.client",
    "discord.app_commands.tree",
    "discord.ext.commands.bot",
)
"""discord.py's loggers whose records may carry a button, a view or a form."""

_UI_TYPES = (discord.ui.Item, discord.ui.View, discord.ui.Modal)


def describe(component: object) -> str:
    """A button, view or form as a log may name it: its class, and its match and verb if any."""
    name = type(component).__name__
    custom_id = getattr(component, "custom_id", None)
    press = Press.parse(custom_id) if isinstance(custom_id, str) else None
    if press is None:
        return name
    return f"{name} (match {press.match_id}, {press.verb})"


class HideComponents(logging.Filter):
    """Replaces the buttons, views and forms in a record's arguments by ``describe``."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and any(isinstance(a, _UI_TYPES) for a in args):
            record.args = tuple(_safe(a) for a in args)
        elif isinstance(args, dict) and any(isinstance(a, _UI_TYPES) for a in args.values()):
            record.args = {key: _safe(value) for key, value in args.items()}
        return True


def _safe(value: Any) -> Any:
    return _Named(describe(value)) if isinstance(value, _UI_TYPES) else value


class _Named(str):
    """A description that a ``%r`` in a log message shows without quotes."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


def hide_components() -> None:
    """Install ``HideComponents`` on discord.py's UI loggers (once per process)."""
    for name in UI_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, HideComponents) for f in logger.filters):
            logger.addFilter(HideComponents())


VOICE_WARNING = "voice will NOT be supported"
"""The end of discord.py's warnings about its optional voice libraries."""


class DropVoiceWarnings(logging.Filter):
    """Drops discord.py's warnings that its voice libraries are not installed."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (isinstance(record.msg, str) and record.msg.endswith(VOICE_WARNING))


def drop_voice_warnings() -> None:
    """Install ``DropVoiceWarnings`` on the logger of discord.py's client (once per process)."""
    logger = logging.getLogger("discord.client")
    if not any(isinstance(f, DropVoiceWarnings) for f in logger.filters):
        logger.addFilter(DropVoiceWarnings())
