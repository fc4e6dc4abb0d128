"""What a visitor, or someone hammering the site, meets: whose rate limit a request counts
against (behind proxies too), how long a static file is kept, and a link without its slash."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from multidict import CIMultiDict
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from tests.web.conftest import Server
from web.app import make_app
from web.security import client_address, trusted_networks

Client = TestClient[web.Request, web.Application]
MakeClient = Callable[[web.Application], Awaitable[Client]]
BURST = 10
"""Requests a client may make at once at 12 a minute."""


@pytest.fixture
async def proxied(
    aiohttp_client: MakeClient, sessions: async_sessionmaker[AsyncSession], tmp_path: object
) -> Client:
    """The site at 12 requests a minute behind proxies on this machine and in 10.0.0.0/8."""
    app = make_app(
        sessions,
        chart_folder=tmp_path,  # type: ignore[arg-type]
        requests_per_minute=12,
        trusted_proxies="127.0.0.1, ::1, 10.0.0.0/8",
    )
    return await aiohttp_client(app)


async def statuses(client: Client, path: str, *forwarded: str, times: int = 1) -> list[int]:
    """The statuses of ``times`` requests, each with one ``X-Forwarded-For`` line per entry of
    ``forwarded``."""
    headers = CIMultiDict(("X-Forwarded-For", line) for line in forwarded)
    return [(await client.get(path, headers=headers)).status for _ in range(times)]


async def test_an_ipv6_client_is_limited_by_its_64_and_ipv4_by_its_address(
    proxied: Client, server: Server, base: str
) -> None:
    page = f"{base}/g/crown"
    assert await statuses(proxied, page, "2001:db8:5:7::1", times=BURST) == [200] * BURST
    assert await statuses(proxied, page, "2001:db8:5:7:ffff:1:2:3") == [429], "the same /64"
    assert await statuses(proxied, page, "2001:db8:5:8::1") == [200], "the next /64"
    assert await statuses(proxied, page, "198.51.100.1", times=BURST) == [200] * BURST
    assert await statuses(proxied, page, "198.51.100.1") == [429]
    assert await statuses(proxied, page, "198.51.100.2") == [200], "IPv4: each address its own"
    assert await statuses(proxied, page, "::ffff:198.51.100.1") == [429], "the same IPv4 address"


async def test_a_client_cannot_escape_its_limit_with_an_x_forwarded_for_of_its_own(
    proxied: Client, server: Server, base: str
) -> None:
    page = f"{base}/g/crown"
    # The client writes a header line of its own; the proxy adds another with the address it
    # heard from. Only the proxy's is believed, whatever the client puts before it.
    for n in range(BURST):
        assert await statuses(proxied, page, f"192.0.2.{n}", "203.0.113.5") == [200]
    assert await statuses(proxied, page, "192.0.2.77", "203.0.113.5") == [429]
    assert await statuses(proxied, page, "192.0.2.78, 203.0.113.5") == [429], "one line or two"
    assert await statuses(proxied, page, "203.0.113.5", "10.0.0.8, 10.1.0.9") == [429], (
        "through a chain of trusted proxies"
    )


async def test_a_malformed_forwarded_entry_ends_the_walk_at_the_proxy_that_added_it(
    proxied: Client, server: Server, base: str
) -> None:
    page = f"{base}/g/crown"
    for n in range(BURST):
        assert await statuses(proxied, page, f"192.0.2.{n}, unknown, 10.0.0.3") == [200]
    assert await statuses(proxied, page, "192.0.2.99, junk, 10.0.0.3") == [429]
    assert await statuses(proxied, page, "192.0.2.0, junk, 10.0.0.4") == [200], (
        "neither the address past the junk nor the nearest proxy was counted"
    )


@pytest.mark.parametrize(
    ("peer", "lines", "client"),
    [
        ("203.0.113.1", ["198.51.100.1"], "203.0.113.1"),  # no trusted proxy: the peer
        ("127.0.0.1", ["198.51.100.1, 203.0.113.2"], "203.0.113.2"),
        ("127.0.0.1", ["198.51.100.1", "203.0.113.2, 10.0.0.1"], "203.0.113.2"),
        ("127.0.0.1", ["10.0.0.2, 10.0.0.1"], "10.0.0.2"),  # all trusted: the farthest
        ("127.0.0.1", ["198.51.100.1, 203.0.113.2:443"], "127.0.0.1"),  # malformed at once
        ("127.0.0.1", ["203.0.113.2,", "10.0.0.1"], "10.0.0.1"),  # an empty entry
        ("127.0.0.1", [], "127.0.0.1"),
        ("::1", [" 2001:db8::9 "], "2001:db8::9"),
    ],
)
def test_the_forwarded_client_is_the_first_untrusted_entry_from_the_right(
    peer: str, lines: list[str], client: str
) -> None:
    trusted = trusted_networks("127.0.0.1, ::1, 10.0.0.0/8")
    assert client_address(peer, lines, trusted) == client


def test_a_bad_trusted_proxy_entry_is_named_by_its_place_not_its_text() -> None:
    with pytest.raises(ValueError, match="entry 2 is not an address") as refused:
        trusted_networks("127.0.0.1, proxy.internal")
    assert "proxy.internal" not in str(refused.value)


async def test_a_static_file_of_another_version_is_not_kept_for_good(
    aiohttp_client: MakeClient, app: web.Application, server: Server, base: str
) -> None:
    client = await aiohttp_client(app)
    page = await (await client.get(f"{base}/")).text()
    (current,) = re.findall(r'href="/static/site\.css\?v=([0-9a-f]+)"', page)
    kept = await client.get(f"/static/site.css?v={current}")
    assert "immutable" in kept.headers["Cache-Control"]
    for asked in ("?v=000000000000", "", "?v="):
        response = await client.get(f"/static/site.css{asked}")
        assert response.status == 200
        assert response.headers["Cache-Control"] == "no-cache", asked


async def test_a_servers_link_without_its_last_slash_leads_to_its_pages(
    aiohttp_client: MakeClient, app: web.Application, server: Server
) -> None:
    client = await aiohttp_client(app)
    moved = await client.get(f"/s/{server.token}", allow_redirects=False)
    assert moved.status in (301, 308)
    assert moved.headers["Location"] == f"/s/{server.token}/"
    assert moved.headers["X-Content-Type-Options"] == "nosniff"
    followed = await client.get(f"/s/{server.token}")
    assert followed.status == 200 and "<h1>" in await followed.text()
    assert (await client.get("/s/not%0Aa-token")).status == 404
