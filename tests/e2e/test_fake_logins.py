"""Session starts in the fake Discord: one IDENTIFY per bucket in 5 seconds, whichever
connection sends it, and ``session_start_limit`` counting down as sessions start.

Discord answers an IDENTIFY that comes too soon in its bucket (``shard_id % max_concurrency``)
with op 9, Invalid Session (``d: false``); the client identifies again later.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from .fake_discord import FakeDiscord

INVALID_SESSION = 9


@pytest.fixture
async def web() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def identify(
    web: aiohttp.ClientSession, fake: FakeDiscord, shard: int, count: int
) -> dict[str, Any]:
    """Connect as a separate client would, IDENTIFY as ``shard`` of ``count``: the answer."""
    async with web.ws_connect(fake.gateway_url) as ws:
        hello = json.loads((await ws.receive()).data)
        assert hello["op"] == 10
        payload = {"token": fake.token, "intents": 1, "shard": [shard, count], "properties": {}}
        await ws.send_str(json.dumps({"op": 2, "d": payload}))
        answer: dict[str, Any] = json.loads((await ws.receive()).data)
        await ws.close()
        return answer


async def start_limit(web: aiohttp.ClientSession, fake: FakeDiscord) -> dict[str, Any]:
    headers = {"Authorization": f"Bot {fake.token}"}
    async with web.get(f"{fake.api_base}/gateway/bot", headers=headers) as answer:
        limit: dict[str, Any] = (await answer.json())["session_start_limit"]
        return limit


async def test_a_second_identify_in_the_same_bucket_within_5_seconds_is_invalid(
    fake_discord: FakeDiscord, web: aiohttp.ClientSession
) -> None:
    first = await identify(web, fake_discord, 0, 2)
    second = await identify(web, fake_discord, 1, 2)  # another connection, as another process
    assert first["t"] == "READY"
    assert second == {"op": INVALID_SESSION, "d": False, "s": None, "t": None}
    assert fake_discord.gateway.starts.refused == [1]

    fake_discord.advance_clock(5)
    again = await identify(web, fake_discord, 1, 2)
    assert again["t"] == "READY"


async def test_buckets_of_a_larger_concurrency_identify_together(
    fake_discord: FakeDiscord, web: aiohttp.ClientSession
) -> None:
    fake_discord.gateway.starts.max_concurrency = 2
    answers = [await identify(web, fake_discord, shard, 4) for shard in (0, 1, 2)]
    assert [answer["t"] for answer in answers] == ["READY", "READY", None]
    assert fake_discord.gateway.starts.refused == [2]  # bucket 0 again
    assert (await start_limit(web, fake_discord))["max_concurrency"] == 2


async def test_the_session_start_limit_counts_each_session_started(
    fake_discord: FakeDiscord, web: aiohttp.ClientSession
) -> None:
    before = await start_limit(web, fake_discord)
    await identify(web, fake_discord, 0, 1)
    await identify(web, fake_discord, 0, 1)  # refused: not a session started
    fake_discord.advance_clock(5)
    await identify(web, fake_discord, 0, 1)
    after = await start_limit(web, fake_discord)
    assert before["total"] == after["total"] == 1000
    assert before["remaining"] - after["remaining"] == 2
