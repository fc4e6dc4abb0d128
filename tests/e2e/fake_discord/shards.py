"""Sharding as Discord does it: which shard gets a guild's events, and the IDENTIFY shard pair.

A session identifies with ``shard: [shard_id, shard_count]`` (none means ``[0, 1]``). A guild's
events and interactions go to every session whose shard is ``(guild_id >> 22) % shard_count``;
DMs and their interactions go to shard 0. Sessions on the same shard all get its events.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import JSON

TIMESTAMP_SHIFT = 22
"""A snowflake's timestamp starts at this bit; sharding uses the timestamp only."""

SESSION_START_TOTAL = 1000
"""IDENTIFYs a bot may send a day (``session_start_limit.total``)."""
SESSION_START_RESET_MS = 24 * 60 * 60 * 1000
IDENTIFY_WINDOW = 5.0
"""Seconds in which each bucket (``shard_id % max_concurrency``) may IDENTIFY once."""


@dataclass(frozen=True)
class Shard:
    """A session's shard: ``id`` of ``count``."""

    id: int = 0
    count: int = 1

    def covers(self, guild_id: int | None) -> bool:
        """True if this shard gets the events of ``guild_id`` (``None``: a DM, shard 0's)."""
        return shard_of(guild_id, self.count) == self.id

    def payload(self) -> list[int]:
        return [self.id, self.count]


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard that gets ``guild_id``'s events; DMs (``None``) belong to shard 0."""
    if guild_id is None:
        return 0
    return (guild_id >> TIMESTAMP_SHIFT) % shard_count


def parse_shard(value: JSON) -> Shard | None:
    """IDENTIFY's ``shard`` field as a :class:`Shard`; ``None`` if Discord would close 4010."""
    if value is None:
        return Shard()
    if not isinstance(value, list) or len(value) != 2:
        return None
    shard_id, count = value
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in (shard_id, count)):
        return None
    if count < 1 or not 0 <= shard_id < count:
        return None
    return Shard(shard_id, count)


def moved_to_shard(snowflake: int, shard: Shard) -> int:
    """The smallest snowflake not below ``snowflake`` whose guild would be on ``shard``."""
    step = (shard.id - shard_of(snowflake, shard.count)) % shard.count
    return snowflake + (step << TIMESTAMP_SHIFT)


@dataclass
class SessionStarts:
    """Discord's limits on starting sessions: ``max_concurrency`` IDENTIFYs per ``window``
    seconds, one per bucket (``shard_id % max_concurrency``), whichever connection (or
    process) sends them; ``total`` a day. ``window`` ``None`` lifts the first."""

    total: int = SESSION_START_TOTAL
    max_concurrency: int = 1
    window: float | None = IDENTIFY_WINDOW
    used: int = 0
    """IDENTIFYs taken today (each answered with READY)."""
    last: dict[int, float] = field(default_factory=dict)
    """Each bucket's last IDENTIFY taken, on the fake's clock."""
    refused: list[int] = field(default_factory=list)
    """The shard of every IDENTIFY refused for coming too soon in its bucket."""

    def admit(self, shard: Shard, now: float) -> bool:
        """Whether an IDENTIFY of ``shard`` at ``now`` is taken (and count it) or refused."""
        bucket = shard.id % self.max_concurrency
        last = self.last.get(bucket)
        if self.window is not None and last is not None and now - last < self.window:
            self.refused.append(shard.id)
            return False
        self.last[bucket] = now
        self.used += 1
        return True

    def limit(self) -> dict[str, JSON]:
        """``GET /gateway/bot``'s ``session_start_limit``."""
        return {
            "total": self.total,
            "remaining": max(self.total - self.used, 0),
            "reset_after": SESSION_START_RESET_MS,
            "max_concurrency": self.max_concurrency,
        }
