"""How long each step of a match may wait, per server, within the bounds docs/rules.md sets."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from bot.i18n import N_, _, n_, name_in
from db.server_timeouts import ServerTimeouts

MINUTE = 60
DAY = 24 * 60 * MINUTE


@dataclass(frozen=True)
class Bounds:
    default: int
    low: int
    high: int

    def check(self, name: str, seconds: int) -> int:
        """``seconds`` if within bounds, else ``ValueError`` naming the valid range."""
        if not self.low <= seconds <= self.high:
            raise ValueError(
                _(
                    "The {kind} timeout must be between {low} and {high} (got {got}).",
                    kind=kind_name(name),
                    low=_human(self.low),
                    high=_human(self.high),
                    got=_human(seconds),
                )
            )
        return seconds


BOUNDS: dict[str, Bounds] = {
    "challenge": Bounds(5 * MINUTE, MINUTE, DAY),
    "setup": Bounds(5 * MINUTE, MINUTE, DAY),
    "turn": Bounds(10 * MINUTE, MINUTE, 7 * DAY),
    "hint": Bounds(2 * MINUTE, 30, DAY),
}


@dataclass(frozen=True)
class Timeouts:
    """Seconds allowed for each kind of deadline."""

    challenge: int = BOUNDS["challenge"].default
    setup: int = BOUNDS["setup"].default
    turn: int = BOUNDS["turn"].default
    hint: int = BOUNDS["hint"].default

    def delta(self, kind: str) -> timedelta:
        return timedelta(seconds=getattr(self, kind))


def _human(seconds: int) -> str:
    if seconds % DAY == 0:
        return n_("{n} day", "{n} days", seconds // DAY)
    if seconds % 3600 == 0:
        return n_("{n} hour", "{n} hours", seconds // 3600)
    if seconds % MINUTE == 0:
        return n_("{n} minute", "{n} minutes", seconds // MINUTE)
    return n_("{n} second", "{n} seconds", seconds)


KIND_NAMES = {
    "challenge": N_("challenge"),
    "setup": N_("setup"),
    "turn": N_("turn"),
    "hint": N_("hint"),
}
"""Each timeout's name as ``/settings`` shows it."""


def kind_name(kind: str) -> str:
    return name_in(KIND_NAMES, kind)


def human(seconds: int) -> str:
    """``seconds`` in the largest whole unit: "10 minutes", "1 day"."""
    return _human(seconds)


def merge_timeouts(defaults: Timeouts, settings: ServerTimeouts | None) -> Timeouts:
    """The server's own timeouts where set, the host's ``defaults`` elsewhere."""
    if settings is None:
        return defaults
    return Timeouts(
        challenge=settings.challenge_timeout or defaults.challenge,
        setup=settings.setup_timeout or defaults.setup,
        turn=settings.turn_timeout or defaults.turn,
        hint=settings.hint_timeout or defaults.hint,
    )
