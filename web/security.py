"""What every response carries and every request passes: security headers, and a rate limit per
client address (the forwarded one only from a proxy the host trusts)."""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable, Iterable
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


def trusted_networks(text: str) -> tuple[IPNetwork, ...]:
    """The networks ``WEB_TRUSTED_PROXIES`` lists (``"127.0.0.1, 10.0.0.0/8"``)."""
    found = []
    for part in text.split(","):
        if part.strip():
            try:
                found.append(ipaddress.ip_network(part.strip(), strict=False))
            except ValueError as error:
                raise ValueError(f"WEB_TRUSTED_PROXIES: {part.strip()!r} is no address") from error
    return tuple(found)


def _address(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def client_address(
    peer: str | None, forwarded_for: str | None, trusted: Iterable[IPNetwork]
) -> str:
    """The address a request counts against: the peer's own, unless the peer is a trusted
    proxy; then the last address in ``X-Forwarded-For`` that no trusted proxy added (each proxy
    appends the address it heard from, so only the entries after the last untrusted one are
    believable)."""
    networks = tuple(trusted)

    def is_trusted(address: IPAddress | None) -> bool:
        return address is not None and any(address in network for network in networks)

    if peer is None:
        return "unknown"
    if not forwarded_for or not is_trusted(_address(peer)):
        return peer
    hops = [_address(hop) for hop in forwarded_for.split(",")]
    for hop in reversed(hops):
        if hop is None:
            return peer  # a garbled header: count the proxy itself
        if not is_trusted(hop):
            return str(hop)
    return str(hops[0]) if hops and hops[0] is not None else peer


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
        client = client_address(request.remote, request.headers.get("X-Forwarded-For"), trusted)
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
