"""The fake Discord's REST rate limits: Discord's buckets, headers and 429s, and discord.py on them.

Most tests drive the REST API with aiohttp on a clock that stands still until the test moves it,
so a window never ends by itself; the last ones let discord.py's own HTTP client meet the 429s.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.http import HTTPClient, handle_message_parameters

from .fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeMember, Limit

MESSAGES = "POST /channels/{channel_id}/messages"
RATE_HEADERS = (
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
    "X-RateLimit-Reset-After",
    "X-RateLimit-Bucket",
)


class Answer:
    """One answer of the fake: status, headers, JSON body."""

    def __init__(self, status: int, headers: dict[str, str], body: Any) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def remaining(self) -> int:
        return int(self.headers["X-RateLimit-Remaining"])


class Rest:
    """Raw requests to a fake, with the bot's token unless told otherwise."""

    def __init__(self, fake: FakeDiscord, session: aiohttp.ClientSession) -> None:
        self.fake = fake
        self.session = session

    async def __call__(
        self, method: str, path: str, body: Any = None, *, token: bool = True
    ) -> Answer:
        headers = {"Authorization": f"Bot {self.fake.token}"} if token else {}
        url = self.fake.api_base + path
        async with self.session.request(method, url, json=body, headers=headers) as response:
            data = await response.json() if response.content_type == "application/json" else None
            return Answer(response.status, dict(response.headers), data)

    async def post(self, channel: FakeChannel, text: str = "hi") -> Answer:
        return await self("POST", f"/channels/{channel.id}/messages", {"content": text})


@pytest.fixture
async def still() -> AsyncIterator[FakeDiscord]:
    """A started fake whose clock stands still until the test advances it."""
    async with FakeDiscord(clock=lambda: 0.0) as fake:
        yield fake
    assert not fake.unexpected_requests


@pytest.fixture
async def rest(still: FakeDiscord) -> AsyncIterator[Rest]:
    async with aiohttp.ClientSession() as session:
        yield Rest(still, session)


def two_channels(fake: FakeDiscord) -> tuple[FakeChannel, FakeChannel]:
    guild = fake.add_guild("limits")
    return fake.add_text_channel(guild, "one"), fake.add_text_channel(guild, "two")


async def test_posting_is_five_per_five_seconds_per_channel_with_discords_headers(
    still: FakeDiscord, rest: Rest
) -> None:
    one, two = two_channels(still)
    answers = [await rest.post(one) for _ in range(5)]
    assert [a.status for a in answers] == [200] * 5
    assert [a.remaining for a in answers] == [4, 3, 2, 1, 0]
    first = answers[0].headers
    assert all(name in first for name in RATE_HEADERS)
    assert first["X-RateLimit-Limit"] == "5"
    assert float(first["X-RateLimit-Reset-After"]) == 5.0
    assert len({a.headers["X-RateLimit-Bucket"] for a in answers}) == 1

    refused = await rest.post(one)
    assert refused.status == 429
    assert refused.body == {
        "message": "You are being rate limited.",
        "retry_after": 5.0,
        "global": False,
        "code": 0,
    }
    assert refused.headers["Retry-After"] == "5"
    assert refused.headers["X-RateLimit-Scope"] == "user"
    assert refused.headers["X-RateLimit-Remaining"] == "0"
    assert refused.headers["Via"]  # discord.py retries a 429 only with it
    assert (await rest.post(two)).remaining == 4  # another channel, another bucket

    [hit] = still.rate_limit_hits
    assert (hit.scope, hit.bucket, hit.route) == ("user", "create_message", MESSAGES.split()[1])
    assert len(still.messages(one)) == 5


async def test_the_window_refills_when_the_clock_moves_on(still: FakeDiscord, rest: Rest) -> None:
    one, _ = two_channels(still)
    for _ in range(5):
        await rest.post(one)
    still.advance_clock(4.5)
    late = await rest.post(one)
    assert late.status == 429
    assert late.body["retry_after"] == 0.5
    still.advance_clock(0.5)
    again = await rest.post(one)
    assert again.status == 200
    assert again.remaining == 4


async def test_edits_and_deletes_have_buckets_of_their_own(still: FakeDiscord, rest: Rest) -> None:
    one, _ = two_channels(still)
    created = [(await rest.post(one, f"m{i}")).body["id"] for i in range(5)]
    path = f"/channels/{one.id}/messages"
    edits = [await rest("PATCH", f"{path}/{i}", {"content": "edited"}) for i in created]
    assert [e.status for e in edits] == [200] * 5
    assert (await rest("PATCH", f"{path}/{created[0]}", {"content": "x"})).status == 429
    deletes = [await rest("DELETE", f"{path}/{i}") for i in created]
    assert [d.status for d in deletes] == [204] * 5
    assert float(deletes[0].headers["X-RateLimit-Reset-After"]) == 1.0
    buckets = {a.headers["X-RateLimit-Bucket"] for a in (edits[0], deletes[0])}
    assert len(buckets) == 2
    assert [hit.bucket for hit in still.rate_limit_hits] == ["edit_message"]


async def test_a_tightened_limit_applies_and_none_lifts_a_bucket(
    still: FakeDiscord, rest: Rest
) -> None:
    one, _ = two_channels(still)
    still.rate_limits.create_message = Limit(2, 10.0)
    assert [(await rest.post(one)).status for _ in range(3)] == [200, 200, 429]
    still.rate_limits.create_message = None
    lifted = await rest.post(one)
    assert lifted.status == 200
    assert "X-RateLimit-Bucket" not in lifted.headers


async def test_the_global_limit_counts_every_bot_token_request(
    still: FakeDiscord, rest: Rest
) -> None:
    one, two = two_channels(still)
    still.rate_limits.global_limit = Limit(3, 1.0)
    assert (await rest("GET", "/users/@me")).status == 200
    assert (await rest.post(one)).status == 200
    assert (await rest.post(two)).status == 200
    refused = await rest("GET", "/users/@me")
    assert refused.status == 429
    assert refused.body["global"] is True
    assert refused.body["message"] == "You are being rate limited."
    assert refused.headers["X-RateLimit-Global"] == "true"
    assert refused.headers["X-RateLimit-Scope"] == "global"
    assert refused.headers["Retry-After"] == "1"
    assert (await rest("GET", "/gateway", token=False)).status == 200  # not the bot's limit
    still.advance_clock(1.0)
    assert (await rest("GET", "/users/@me")).status == 200

    assert still.bot_calls() == {"GET /users/@me": 3, MESSAGES: 2}
    assert [(hit.scope, hit.bucket) for hit in still.rate_limit_hits] == [("global", None)]


async def test_the_bot_may_make_fifty_requests_a_second_by_default(
    still: FakeDiscord, rest: Rest
) -> None:
    answers = [await rest("GET", "/users/@me") for _ in range(51)]
    assert [a.status for a in answers] == [200] * 50 + [429]
    assert answers[-1].body["global"] is True
    assert answers[-1].body["retry_after"] == 1.0


async def test_a_shared_limit_refuses_without_touching_the_bots_bucket(
    still: FakeDiscord, rest: Rest
) -> None:
    one, two = two_channels(still)
    still.throttle_channel(one, 2.0)
    refused = await rest.post(one)
    assert refused.status == 429
    assert refused.headers["X-RateLimit-Scope"] == "shared"
    assert refused.body["message"] == "The resource is being rate limited."
    assert refused.body["retry_after"] == 2.0
    assert refused.remaining == 5
    assert (await rest.post(two)).status == 200
    still.advance_clock(2.0)
    assert (await rest.post(one)).remaining == 4


# ---------------------------------------------------------------------- discord.py meets them


@pytest.fixture
async def http(fake_discord: FakeDiscord) -> AsyncIterator[HTTPClient]:
    """discord.py's own HTTP client, logged in to the fake."""
    client = HTTPClient(asyncio.get_running_loop())
    await client.static_login(fake_discord.token)
    try:
        yield client
    finally:
        await client.close()


async def test_discord_py_waits_for_its_bucket_instead_of_hitting_429(
    fake_discord: FakeDiscord, channel: FakeChannel, http: HTTPClient
) -> None:
    fake_discord.rate_limits.create_message = Limit(2, 0.3)
    for n in range(5):
        with handle_message_parameters(content=f"m{n}") as params:
            await http.send_message(channel.id, params=params)
    assert [m.content for m in fake_discord.messages(channel)] == [f"m{n}" for n in range(5)]
    assert fake_discord.bot_calls()[MESSAGES] == 5
    assert not fake_discord.rate_limit_hits


async def test_discord_py_retries_after_global_and_shared_429s(
    fake_discord: FakeDiscord, guild: FakeGuild, channel: FakeChannel, http: HTTPClient
) -> None:
    others = [fake_discord.add_text_channel(guild, f"c{n}") for n in range(3)]
    fake_discord.rate_limits.global_limit = Limit(2, 0.2)
    for target in others:
        with handle_message_parameters(content="to each") as params:
            await http.send_message(target.id, params=params)
    fake_discord.throttle_channel(channel, 0.2)
    with handle_message_parameters(content="after the wait") as params:
        await http.send_message(channel.id, params=params)

    assert all(len(fake_discord.messages(target)) == 1 for target in [*others, channel])
    scopes = {hit.scope for hit in fake_discord.rate_limit_hits}
    assert scopes == {"global", "shared"}
    sent = fake_discord.bot_calls()[MESSAGES]
    assert sent == 4 + len(fake_discord.rate_limit_hits)  # every refused call was made again


class PingBot(discord.Client):
    def __init__(self, guild_id: int) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.02)
        self.tree = app_commands.CommandTree(self)
        self.guild_id = guild_id

        @self.tree.command(description="Answers ok", guild=discord.Object(guild_id))
        async def ping(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.defer(thinking=True)
            await interaction.followup.send("ok")
            await interaction.edit_original_response(content="ok, edited")

    async def setup_hook(self) -> None:
        await self.tree.sync(guild=discord.Object(self.guild_id))


async def test_interaction_routes_are_outside_the_global_limit(
    fake_discord: FakeDiscord, guild: FakeGuild, channel: FakeChannel, alice: FakeMember
) -> None:
    async with fake_discord.connected(PingBot(guild.id)):
        fake_discord.rate_limits.global_limit = Limit(1, 60.0)
        interaction = await fake_discord.slash(alice, channel, "ping")
        await fake_discord.wait_until(lambda: interaction.original_edits >= 2)
        fake_discord.rate_limits.global_limit = Limit(50, 1.0)
    assert interaction.original is not None
    assert interaction.original.content == "ok, edited"
    assert not fake_discord.rate_limit_hits
    interaction_routes = ("POST /interactions", "POST /webhooks", "PATCH /webhooks")
    assert not any(route.startswith(interaction_routes) for route in fake_discord.bot_calls())
