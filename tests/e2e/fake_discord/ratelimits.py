"""Discord's REST rate limits: per-route buckets per top-level resource, and the global limit.

A bucket allows ``count`` requests per ``period`` seconds for each top-level resource of the path
(a channel, a guild, or an interaction's webhook token): the window opens with the first request
and refills when it ends. Every answer on a bucketed route carries Discord's ``X-RateLimit-*``
headers; a request over the limit gets Discord's 429. Requests with the bot's token also count
against the global limit (50 a second), except on the interaction routes, which Discord exempts.

discord.py retries a 429 only if the answer carries a ``Via`` header (without one it takes the
429 for a Cloudflare ban and raises); Discord's answers always do, so the fake's do too.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields

from .errors import JSON

VIA = "1.1 google"
"""The ``Via`` header of Discord's answers."""

USER = "user"
GLOBAL = "global"
SHARED = "shared"
"""``X-RateLimit-Scope`` values: the bot's own bucket, its global limit, a shared resource."""


@dataclass(frozen=True)
class Limit:
    """``count`` requests per ``period`` seconds."""

    count: int
    period: float


@dataclass
class RateLimits:
    """The limits a fake enforces, Discord's by default; ``None`` turns a bucket off.

    Each field but ``global_limit`` is a per-route bucket, named for what its routes do. Change a
    field (before or while the fake runs) to tighten a limit for a test.
    """

    global_limit: Limit | None = Limit(50, 1.0)
    """Every request with the bot's token, interaction routes excepted."""
    create_message: Limit | None = Limit(5, 5.0)
    """``POST /channels/{channel_id}/messages``, per channel."""
    edit_message: Limit | None = Limit(5, 5.0)
    """``PATCH /channels/{channel_id}/messages/{message_id}``, per channel."""
    delete_message: Limit | None = Limit(5, 1.0)
    """``DELETE /channels/{channel_id}/messages/{message_id}``, per channel."""
    followup_message: Limit | None = Limit(5, 2.0)
    """``POST /webhooks/{application_id}/{token}``, per interaction token (as webhooks)."""
    edit_followup: Limit | None = Limit(5, 2.0)
    """``PATCH /webhooks/{application_id}/{token}/messages/{message_id}``, per token."""
    delete_followup: Limit | None = Limit(5, 2.0)
    """``DELETE /webhooks/{application_id}/{token}/messages/{message_id}``, per token."""
    member_role: Limit | None = Limit(10, 10.0)
    """``PUT`` and ``DELETE /guilds/{guild_id}/members/{user_id}/roles/{role_id}``, per guild:
    one fixed window of 10 (the headers Discord sends on these routes)."""
    edit_member: Limit | None = Limit(10, 10.0)
    """``PATCH /guilds/{guild_id}/members/{user_id}``, per guild."""

    @classmethod
    def bucket_names(cls) -> list[str]:
        """The per-route buckets' names (the fields but ``global_limit``)."""
        return [f.name for f in fields(cls) if f.name != "global_limit"]


def bucket_hash(name: str) -> str:
    """The ``X-RateLimit-Bucket`` value of a bucket: opaque and stable, like Discord's."""
    return hashlib.md5(name.encode(), usedforsecurity=False).hexdigest()


@dataclass(frozen=True)
class RateLimitHit:
    """One 429 the fake sent."""

    time: float
    """On the fake's clock."""
    method: str
    route: str
    """The route template, e.g. ``/channels/{channel_id}/messages``."""
    path: str
    scope: str
    """``user`` (a route bucket), ``global`` or ``shared``."""
    bucket: str | None
    """The bucket's name (a :class:`RateLimits` field), ``None`` for the global limit."""
    retry_after: float

    def __str__(self) -> str:
        return f"429 {self.method} {self.path} ({self.scope}, retry after {self.retry_after} s)"


@dataclass
class _Window:
    limit: Limit
    remaining: int
    resets_at: float


@dataclass
class Admission:
    """What the limiter decided for one request: headers to add, and a 429 if it is refused."""

    headers: dict[str, str] = field(default_factory=dict)
    refusal: dict[str, JSON] | None = None
    """The 429 body, when the request is refused."""


class RateLimiter:
    """The fake's buckets and global counter, on the fake's clock; every 429 sent is in ``hits``."""

    def __init__(self, limits: RateLimits, clock: Callable[[], float]) -> None:
        self.limits = limits
        self._clock = clock
        self._windows: dict[tuple[str, str], _Window] = {}
        self._throttled: dict[str, float] = {}
        self.hits: list[RateLimitHit] = []

    def throttle(self, resource: str, seconds: float) -> None:
        """Make every bucketed request on ``resource`` get a shared 429 for ``seconds``.

        This is how Discord answers when a resource (a busy channel) is limited for everyone,
        whatever the bot's own buckets hold.
        """
        self._throttled[resource] = self._clock() + seconds

    def admit(
        self,
        *,
        method: str,
        route: str,
        path: str,
        bucket: str | None,
        resource: str,
        counts_globally: bool,
    ) -> Admission:
        """Take one request from the global limit and from its route's bucket, or refuse it.

        ``bucket`` names the route's :class:`RateLimits` field (``None``: no route limit) and
        ``resource`` its top-level resource; ``counts_globally`` is true for requests with the
        bot's token outside the interaction routes.
        """
        now = self._clock()
        admission = Admission()
        line = (method, route, path, now)
        global_limit = self.limits.global_limit
        if counts_globally and global_limit is not None:
            window = self._window(("", ""), global_limit, now)
            if window.remaining <= 0:
                admission.headers["X-RateLimit-Global"] = "true"
                self._refuse(admission, GLOBAL, None, window.resets_at - now, line)
                return admission
            window.remaining -= 1
        limit = None if bucket is None else getattr(self.limits, bucket)
        if bucket is None or limit is None:
            return admission
        window = self._window((bucket, resource), limit, now)
        throttled_until = self._throttled.get(resource, now)
        if now < throttled_until:
            # A shared limit leaves the bot's own bucket as it is.
            wait = throttled_until - now
            admission.headers.update(self._headers(bucket, limit, window.remaining, wait))
            self._refuse(admission, SHARED, bucket, wait, line)
            return admission
        if window.remaining > 0:
            window.remaining -= 1
        else:
            self._refuse(admission, USER, bucket, window.resets_at - now, line)
        wait = window.resets_at - now
        admission.headers.update(self._headers(bucket, limit, window.remaining, wait))
        return admission

    def _window(self, key: tuple[str, str], limit: Limit, now: float) -> _Window:
        """The bucket's current window; a full one if the last has ended or the limit changed."""
        window = self._windows.get(key)
        if window is None or now >= window.resets_at or window.limit != limit:
            window = _Window(limit, limit.count, now + limit.period)
            self._windows[key] = window
        return window

    @staticmethod
    def _headers(name: str, limit: Limit, remaining: int, reset_after: float) -> dict[str, str]:
        reset_after = _whole_milliseconds(reset_after)
        return {
            "X-RateLimit-Limit": str(limit.count),
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": bucket_hash(name),
        }

    def _refuse(
        self,
        admission: Admission,
        scope: str,
        bucket: str | None,
        retry_after: float,
        line: tuple[str, str, str, float],
    ) -> None:
        method, route, path, now = line
        retry = max(_whole_milliseconds(retry_after), 0.001)
        admission.headers["Retry-After"] = str(math.ceil(retry))
        admission.headers["X-RateLimit-Scope"] = scope
        admission.refusal = {
            "message": RESOURCE_LIMITED if scope == SHARED else RATE_LIMITED,
            "retry_after": retry,
            "global": scope == GLOBAL,
            "code": 0,
        }
        self.hits.append(RateLimitHit(now, method, route, path, scope, bucket, retry))


def _whole_milliseconds(seconds: float) -> float:
    """``seconds`` rounded up to the millisecond: a client waiting that long finds room again."""
    return max(math.ceil(round(seconds * 1000, 6)) / 1000, 0.0)


RATE_LIMITED = "You are being rate limited."
RESOURCE_LIMITED = "The resource is being rate limited."
