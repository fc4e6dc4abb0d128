"""The site's own metrics: every request counted by route and status, and timed by route.

The route is the pattern the request matched (``/s/{token}/g/{game}``), never its address, so
no server's token reaches the metrics and their number stays small.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.typedefs import Middleware
from prometheus_client import CollectorRegistry, Counter, Histogram

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
UNMATCHED = "unmatched"
"""The route of a request no route matched (a 404)."""
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


def counting(registry: CollectorRegistry) -> Middleware:
    """A middleware counting each request in ``registry``; put it first, so that it sees the
    answers of the others (a rate limit's 429) too."""
    requests = Counter(
        "parlor_web_requests",
        "Requests to the web pages, by route and status.",
        ["route", "status"],
        registry=registry,
    )
    seconds = Histogram(
        "parlor_web_request_seconds",
        "Seconds to answer a request to the web pages, by route.",
        ["route"],
        buckets=BUCKETS,
        registry=registry,
    )

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        resource = request.match_info.route.resource
        route = resource.canonical if resource is not None else UNMATCHED
        began = time.perf_counter()
        status = 500
        try:
            response = await handler(request)
            status = response.status
            return response
        except web.HTTPException as answer:
            status = answer.status
            raise
        finally:
            requests.labels(route, str(status)).inc()
            seconds.labels(route).observe(time.perf_counter() - began)

    return middleware
