"""A fake Discord on 127.0.0.1 (REST API and gateway) for end-to-end tests of discord.py bots.

:class:`FakeDiscord` is the driver a test holds; the records it hands out (users, guilds,
channels, messages, interactions, requests, 429s) are plain dataclasses to read and assert on.
"""

from .client import DEFAULT_TOKEN, ClientStopped, FakeDiscord
from .errors import APIError, InvalidInvocation
from .permissions import BOT_PERMISSIONS, EVERYONE_PERMISSIONS
from .ratelimits import Limit, RateLimitHit, RateLimits
from .records import (
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    RecordedRequest,
)

__all__ = [
    "BOT_PERMISSIONS",
    "DEFAULT_TOKEN",
    "EVERYONE_PERMISSIONS",
    "APIError",
    "ClientStopped",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeInteraction",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "InvalidInvocation",
    "Limit",
    "RateLimitHit",
    "RateLimits",
    "RecordedRequest",
]
