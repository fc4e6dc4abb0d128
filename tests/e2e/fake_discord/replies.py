"""How the REST routes are declared and answered: route records, JSON answers, path parameters.

JSON answers carry ``Content-Type: application/json`` exactly: with a charset, discord.py would
leave the body a string.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

from .errors import GENERAL_ERROR, JSON, APIError

Handler = Callable[[web.Request, JSON], Awaitable[web.StreamResponse]]
"""A route handler: the request and its JSON body (``None`` when it has none)."""


@dataclass(frozen=True)
class Route:
    """One REST route: method, path below the API base, handler and rate limit bucket.

    ``bucket`` names a :class:`~.ratelimits.RateLimits` field (``None``: no per-route limit).
    ``interaction`` marks the interaction routes: they take the interaction's token instead of
    the bot's, and Discord leaves them out of the global limit. ``public`` routes need no token.
    """

    method: str
    path: str
    handler: Handler
    bucket: str | None = None
    interaction: bool = False
    public: bool = False

    @property
    def needs_bot_token(self) -> bool:
        return not (self.interaction or self.public)


class NotModelled(Exception):
    """A request the fake does not model: answered like an unknown route, and marked unexpected."""


def json_response(data: JSON, status: int = 200) -> web.Response:
    """A JSON answer with ``Content-Type: application/json`` and no charset."""
    return web.Response(
        body=json.dumps(data).encode(), status=status, content_type="application/json"
    )


def no_content() -> web.Response:
    return web.Response(status=204)


def snowflake(request: web.Request, key: str) -> int:
    """A numeric path parameter; anything else is a 404 like Discord's router gives."""
    value = request.match_info[key]
    if not value.isdigit():
        raise APIError(404, GENERAL_ERROR, "404: Not Found")
    return int(value)


def truthy(value: str | None) -> bool:
    return (value or "").lower() in ("1", "true")


def channel_resource(channel_id: int | str) -> str:
    """The top-level resource a channel's routes are limited by."""
    return f"channel:{channel_id}"


def top_level_resource(request: web.Request) -> str:
    """What Discord keys a route's bucket by: the channel, the guild or the webhook and token."""
    info = request.match_info
    if "channel_id" in info:
        return channel_resource(info["channel_id"])
    if "guild_id" in info:
        return f"guild:{info['guild_id']}"
    if "token" in info:
        owner = info.get("application_id") or info.get("interaction_id", "")
        return f"webhook:{owner}/{info['token']}"
    return ""
