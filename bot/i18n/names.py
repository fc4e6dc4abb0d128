"""Values the service hands over as data, named in the current reader's language: a duration,
a timeout's kind, a match's end reason, a review's mark. Every reader (Discord, the web pages,
a plain-text record) names them here, inside ``speaking``, like ``_``."""

from __future__ import annotations

from bot.i18n import N_, n_, name_in

__all__ = [
    "KIND_NAMES",
    "MARK_NAMES",
    "REASON_NAMES",
    "human",
    "kind_name",
    "mark_name",
    "reason_name",
]

MINUTE = 60
HOUR = 60 * MINUTE
DAY = 24 * HOUR

KIND_NAMES = {
    "challenge": N_("challenge"),
    "setup": N_("setup"),
    "turn": N_("turn"),
    "hint": N_("hint"),
}
"""Each timeout's name as ``/settings`` shows it."""

REASON_NAMES = {
    "capture": N_("capture"),
    "target": N_("target reached"),
    "score": N_("on score"),
    "resign": N_("resigned"),
    "timeout": N_("out of time"),
    "no_moves": N_("no moves left"),
    "move_limit": N_("move limit"),
}
"""How a match's end reason is shown in reviews, histories and records."""

MARK_NAMES = {
    "best": N_("best"),
    "inaccuracy": N_("inaccuracy"),
    "mistake": N_("mistake"),
    "blunder": N_("blunder"),
}
"""A review's marks, as shown."""


def human(seconds: int) -> str:
    """``seconds`` in the largest whole unit: "10 minutes", "1 day"."""
    if seconds % DAY == 0:
        return n_("{n} day", "{n} days", seconds // DAY)
    if seconds % HOUR == 0:
        return n_("{n} hour", "{n} hours", seconds // HOUR)
    if seconds % MINUTE == 0:
        return n_("{n} minute", "{n} minutes", seconds // MINUTE)
    return n_("{n} second", "{n} seconds", seconds)


def kind_name(kind: str) -> str:
    """A timeout's kind (``turn``) as the reader reads it."""
    return name_in(KIND_NAMES, kind)


def reason_name(reason: str) -> str:
    """An end reason (``Reason`` value) as the reader reads it; an unknown one as stored."""
    return name_in(REASON_NAMES, reason)


def mark_name(mark: str) -> str:
    """A review mark (``Mark`` value) as the reader reads it."""
    return name_in(MARK_NAMES, mark)
