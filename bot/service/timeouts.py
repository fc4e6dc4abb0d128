"""How long each step of a match may wait, per server, within the bounds docs/rules.md sets."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from bot.service.errors import TimeoutOutOfBounds
from db.server_timeouts import ServerTimeouts

__all__ = ["BOUNDS", "Bounds", "Timeouts", "merge_timeouts"]

MINUTE = 60
DAY = 24 * 60 * MINUTE


@dataclass(frozen=True)
class Bounds:
    default: int
    low: int
    high: int

    def check(self, name: str, seconds: int) -> int:
        """``seconds`` if within bounds, else refused with the valid range."""
        if not self.low <= seconds <= self.high:
            raise TimeoutOutOfBounds(name, self.low, self.high, seconds)
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
