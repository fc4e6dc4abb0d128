"""How the service words what it tells that no engine event says: options, hints, refusals."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from db import repository as repo
from games.base import AnyGame, Ask
from games.worded import Worded, again


def not_what_was_asked(asked: Ask, engine: AnyGame) -> str:
    """Why an answer made for another ask is refused (it never quotes the answer)."""
    if asked is Ask.ACTION:
        return (
            "That answers something I asked you privately, and it is already answered: nothing "
            f"was played. Make your move with the board's buttons or the /{engine.name} commands."
        )
    wanted = "your secret" if asked is Ask.SECRET else "the hint you give"
    return (
        f"That is not what I am asking you for now: I am waiting for {wanted}, which you "
        "choose in the DM I sent you. Nothing was played."
    )


def choice_label(engine: AnyGame, action: Any) -> str:
    """A private choice as its button says it, worded by its game: ``Row is greater than 2``."""

    def capitalised() -> str:
        words = again(engine.word(action))
        return words[:1].upper() + words[1:]

    return Worded(capitalised)


def describe_options(engine: AnyGame, options: Mapping[str, Any]) -> str:
    """The options chosen that differ from the game's defaults: `` (size: 4, hidden: True)``."""
    defaults = engine.options(engine.new({}, 0))
    shown = [f"{k}: {v}" for k, v in options.items() if v is not None and v != defaults.get(k)]
    return f" ({', '.join(shown)})" if shown else ""


def ended(row: repo.MatchRow) -> str:
    return str(row.end_reason or row.status)
