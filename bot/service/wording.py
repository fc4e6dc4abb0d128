"""How the service words what it tells that no engine event says: options and hints."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.i18n import _
from games.base import AnyGame


def together(names: Sequence[str]) -> str:
    """Two players named together (``@a and @b``), or the one named alone."""
    if len(names) == 2:
        return _("{first} and {second}", first=names[0], second=names[1])
    return ", ".join(names)


def describe_options(engine: AnyGame, options: Mapping[str, Any]) -> str:
    """The options chosen that differ from the game's defaults: `` (size: 4, hidden: True)``.

    Option names and values are what the member types in the command, so they stay as typed."""
    defaults = engine.options(engine.new({}, 0))
    shown = [f"{k}: {v}" for k, v in options.items() if v is not None and v != defaults.get(k)]
    return f" ({', '.join(shown)})" if shown else ""
