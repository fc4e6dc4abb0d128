"""Discord's limit on invalid requests: an IP address whose requests get more than ``LIMIT``
answers of 401, 403 or 429 within ten minutes is banned for a while (a 429 of the ``shared``
scope does not count). The ban comes from Cloudflare, before the API: a 429 whose body is not
JSON and which has no ``Via`` header, which discord.py raises at once instead of waiting.

Tests may lower ``limit`` to reach it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from aiohttp import web

LIMIT = 10_000
WINDOW = 600.0
BAN = 3600.0
"""Seconds a banned address stays banned (Discord says "for a while"; an hour is typical)."""
INVALID = frozenset({401, 403, 429})


class InvalidRequests:
    """Counts the invalid answers within the window, on the fake's clock."""

    def __init__(self, clock: Callable[[], float], *, limit: int = LIMIT) -> None:
        self.clock = clock
        self.limit = limit
        self.banned_until: float | None = None
        self.refused = 0
        """Requests answered with the ban."""
        self._seen: deque[float] = deque()

    def count(self) -> int:
        start = self.clock() - WINDOW
        while self._seen and self._seen[0] <= start:
            self._seen.popleft()
        return len(self._seen)

    def answered(self, status: int, scope: str | None) -> None:
        """Count an answer; past the limit, the address is banned."""
        if status not in INVALID or (status == 429 and scope == "shared"):
            return
        self._seen.append(self.clock())
        if self.count() > self.limit and self.banned_until is None:
            self.banned_until = self.clock() + BAN

    def ban(self) -> web.Response | None:
        """Cloudflare's answer while the address is banned, else ``None``."""
        if self.banned_until is not None and self.clock() >= self.banned_until:
            self.banned_until = None
        if self.banned_until is None:
            return None
        self.refused += 1
        return web.Response(status=429, text="error code: 1015", content_type="text/plain")
