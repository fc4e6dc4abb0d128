"""Discord's limit on invalid requests: 10,000 answers 401, 403 or 429 per 10 minutes from one
IP address, after which Discord refuses every request for a while (a Cloudflare ban).

One counter per process sees every response discord.py gets, through the client's documented
``http_trace`` (an ``aiohttp.TraceConfig``). Retries that may be refused (a channel out of
reach) stop well before the limit: at ``BUDGET`` within the window.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from types import SimpleNamespace

import aiohttp

INVALID = frozenset({401, 403, 429})
"""The statuses Discord counts as invalid requests."""
LIMIT = 10_000
WINDOW = 600.0
"""Discord's limit: ``LIMIT`` invalid requests per ``WINDOW`` seconds."""
BUDGET = LIMIT // 10
"""Invalid requests in a window beyond which this process retries nothing that may be refused:
other processes on the same address count toward the same limit."""


class InvalidRequests:
    """Counts the invalid requests of the last ``WINDOW`` seconds; ``answered``, if given, hears
    the status of every answer (the host's metrics)."""

    def __init__(
        self,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        answered: Callable[[int], None] | None = None,
    ) -> None:
        self.monotonic = monotonic
        self.answered = answered
        self._seen: deque[float] = deque()

    def count(self) -> None:
        self._seen.append(self.monotonic())
        self._prune()

    def recent(self) -> int:
        """How many were counted in the last ``WINDOW`` seconds."""
        self._prune()
        return len(self._seen)

    def exhausted(self) -> bool:
        """Whether retries must wait: ``BUDGET`` is spent."""
        return self.recent() >= BUDGET

    def _prune(self) -> None:
        oldest = self.monotonic() - WINDOW
        while self._seen and self._seen[0] < oldest:
            self._seen.popleft()

    def trace(self) -> aiohttp.TraceConfig:
        """The ``http_trace`` for the client: counts every invalid answer it gets."""
        config = aiohttp.TraceConfig()

        async def on_request_end(
            _session: aiohttp.ClientSession,
            _context: SimpleNamespace,
            params: aiohttp.TraceRequestEndParams,
        ) -> None:
            status = params.response.status
            if status in INVALID:
                self.count()
            if self.answered is not None:
                self.answered(status)

        config.on_request_end.append(on_request_end)
        return config
