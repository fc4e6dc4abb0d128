"""How the service words what it tells that no engine event says: options, hints, refusals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.i18n import N_, _
from bot.i18n.formats import command
from bot.service.replays import REASON_NAMES, reason_name
from db.matches import MatchRow
from games.base import AnyGame, Ask
from games.worded import Worded, again

NO_MATCH = N_("There is no match #{id}.")
NOT_YOUR_MATCH = N_("This is not your match: only its two players can act in it.")
NO_LONGER_OPEN = N_("This challenge is no longer open.")

CALLED_OFF_REASONS = {
    "expired": N_("expired"),
    "declined": N_("declined"),
    "withdrawn": N_("withdrawn"),
    "called_off": N_("called off"),
    "unreachable": N_("its channel is out of reach"),
    "bot_removed": N_("I was removed from the server"),
}
"""Why a match ended without a result, besides the games' reasons (``REASON_NAMES``)."""

STATUS_NAMES = {
    "challenged": N_("not started"),
    "setup": N_("in setup"),
    "active": N_("in play"),
    "finished": N_("finished"),
    "aborted": N_("called off"),
}
"""A match's status as the reader reads it, when it has no end reason."""


def not_what_was_asked(asked: Ask, engine: AnyGame) -> str:
    """Why an answer made for another ask is refused (it never quotes the answer)."""
    if asked is Ask.ACTION:
        return _(
            "That answers something I asked you privately, and it is already answered: nothing "
            "was played. Make your move with the board's buttons or {command}.",
            command=command(f"{engine.name} {engine.move_command}"),
        )
    if asked is Ask.SECRET:
        return _(
            "That is not what I am asking you for now: I am waiting for your secret, which you "
            "choose in the DM I sent you. Nothing was played."
        )
    return _(
        "That is not what I am asking you for now: I am waiting for the hint you give, which "
        "you choose in the DM I sent you. Nothing was played."
    )


def together(names: Sequence[str]) -> str:
    """Two players named together (``@a and @b``), or the one named alone."""
    if len(names) == 2:
        return _("{first} and {second}", first=names[0], second=names[1])
    return ", ".join(names)


def choice_label(engine: AnyGame, action: Any) -> str:
    """A private choice as its button says it, worded by its game: ``Row is greater than 2``."""

    def capitalised() -> str:
        words = again(engine.word(action))
        return words[:1].upper() + words[1:]

    return Worded(capitalised)


def describe_options(engine: AnyGame, options: Mapping[str, Any]) -> str:
    """The options chosen that differ from the game's defaults: `` (size: 4, hidden: True)``.

    Option names and values are what the member types in the command, so they stay as typed."""
    defaults = engine.options(engine.new({}, 0))
    shown = [f"{k}: {v}" for k, v in options.items() if v is not None and v != defaults.get(k)]
    return f" ({', '.join(shown)})" if shown else ""


def ended(row: MatchRow) -> str:
    """How a match ended (or where it stands), as the reader reads it."""
    reason = row.end_reason
    if reason in REASON_NAMES:
        return reason_name(reason)
    if reason in CALLED_OFF_REASONS:
        return _(CALLED_OFF_REASONS[reason])
    if reason:
        return reason
    return _(STATUS_NAMES[row.status]) if row.status in STATUS_NAMES else str(row.status)
