"""What every response carries and every request passes: security headers, and a rate limit per
client (an IPv4 address, or an IPv6 /64; the forwarded address only through proxies the host
trusts)."""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "style-src 'self'",
        "img-src 'self'",
        "script-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)
"""Only the site's own stylesheet, script and images; no inline code, frames or forms."""

HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    # A page's address holds the server's token: never send it to another site.
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), interest-cohort=()",
    "X-Robots-Tag": "noindex, nofollow",
}


class BadProxies(ValueError):
    """``WEB_TRUSTED_PROXIES`` lists something that is no address or network."""


def trusted_networks(text: str) -> tuple[IPNetwork, ...]:
    """The networks ``WEB_TRUSTED_PROXIES`` lists (``"127.0.0.1, 10.0.0.0/8"``); ``BadProxies``
    names the entry that is none by its place, never by its text (a setting's value)."""
    found = []
    for place, part in enumerate(text.split(","), start=1):
        if part.strip():
            try:
                found.append(ipaddress.ip_network(part.strip(), strict=False))
            except ValueError:
                raise BadProxies(
                    f"entry {place} is not an address or network (e.g. 127.0.0.1 or 10.0.0.0/8)"
                ) from None
    return tuple(found)


def _address(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def client_address(
    peer: str | None, forwarded_for: Sequence[str], trusted: Iterable[IPNetwork]
) -> str:
    """The address a request counts against: the peer's own, unless the peer is a trusted
    proxy; then ``X-Forwarded-For`` is read from the right (its header lines in order, as one
    list): each proxy appends the address it heard from, so an entry is believed only while
    every entry to its right was added by a trusted proxy. The first entry that is no trusted
    proxy is the client; a malformed entry ends the walk at the trusted hop that added it."""
    networks = tuple(trusted)

    def is_trusted(address: IPAddress) -> bool:
        return any(address in network for network in networks)

    if peer is None:
        return "unknown"
    nearest = _address(peer)
    if nearest is None or not is_trusted(nearest):
        return peer
    hops = [hop for line in forwarded_for for hop in line.split(",")]
    for text in reversed(hops):
        hop = _address(text)
        if hop is None:
            break
        nearest = hop
        if not is_trusted(hop):
            break
    return str(nearest)


def rate_key(address: str) -> str:
    """Whose bucket a client address draws from: an IPv4 address its own, an IPv6 address its
    /64 (one home or host is given a whole /64, and would otherwise have 2**64 buckets)."""
    parsed = _address(address)
    if isinstance(parsed, ipaddress.IPv6Address):
        mapped = parsed.ipv4_mapped
        if mapped is not None:
            return str(mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return address if parsed is None else str(parsed)


@dataclass
class Bucket:
    tokens: float
    at: float


class RateLimit:
    """A token bucket per client address: ``per_minute`` requests a minute, in bursts of up to
    a quarter of that (at least 10). Buckets that have filled up again are forgotten."""

    MAX_CLIENTS = 10_000

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(max(10, per_minute // 4))
        self.clock = clock
        self.buckets: dict[str, Bucket] = {}

    def wait(self, client: str) -> float:
        """Seconds ``client`` must wait before this request is allowed; 0 takes it now."""
        now = self.clock()
        bucket = self.buckets.get(client)
        if bucket is None:
            if len(self.buckets) >= self.MAX_CLIENTS:
                self._forget_full(now)
            bucket = self.buckets[client] = Bucket(self.burst, now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.at) * self.rate)
        bucket.at = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        return (1.0 - bucket.tokens) / self.rate

    def _forget_full(self, now: float) -> None:
        full = [
            client
            for client, bucket in self.buckets.items()
            if bucket.tokens + (now - bucket.at) * self.rate >= self.burst
        ]
        for client in full or list(self.buckets)[: self.MAX_CLIENTS // 2]:
            del self.buckets[client]


def plain(status: int, text: str, **headers: str) -> web.Response:
    """A short plain-text answer: the same for every page that does not exist."""
    return web.Response(status=status, text=text + "\n", headers=headers)


def not_found() -> web.Response:
    return plain(404, "Not found.")


def guard(limit: RateLimit, trusted: tuple[IPNetwork, ...]) -> Middleware:
    """The middleware: rate limit first, then the headers on every answer, errors included."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        forwarded = request.headers.getall("X-Forwarded-For", [])
        client = rate_key(client_address(request.remote, forwarded, trusted))
        wait = 0.0 if request.path.startswith("/static/") else limit.wait(client)
        if wait > 0:
            response: web.StreamResponse = plain(
                429, "Too many requests.", **{"Retry-After": str(int(wait) + 1)}
            )
        else:
            try:
                response = await handler(request)
            except web.HTTPNotFound:
                response = not_found()
            except web.HTTPMethodNotAllowed:
                response = plain(405, "Method not allowed.", Allow="GET, HEAD")
        response.headers.update(HEADERS)
        return response

    return middleware
