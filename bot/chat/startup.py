"""Reaching Discord at start: an outage or a network blip is waited out, a refusal is not.

Before discord.py logs in, ``reach_discord`` asks Discord who the token belongs to, as its login
does, until Discord answers. A connection error, a timeout, a 5xx or a 429 is tried again after
a growing, jittered delay (one log line each, without the token); a 401 (the token) or any other
answer (not Discord's API at that address) is raised at once, as discord.py's login would, for
``main`` to explain and exit with the status that tells a service manager not to restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import socket
from collections.abc import Iterator

import aiohttp
import discord
import yarl

log = logging.getLogger(__name__)

FIRST_DELAY = 1.0
"""Seconds before the second attempt; each later delay doubles, up to ``MAX_DELAY``."""
MAX_DELAY = 60.0
ATTEMPT_TIMEOUT = aiohttp.ClientTimeout(total=15)
"""How long one attempt may take before it counts as failed."""
USER_AGENT = f"DiscordBot (https://github.com/Rapptz/discord.py, {discord.__version__})"


def delays(rng: random.Random | None = None) -> Iterator[float]:
    """Seconds to wait after each failed attempt: doubling from ``FIRST_DELAY`` up to
    ``MAX_DELAY``, each drawn between half and all of that, so that processes started together
    do not all come back at once."""
    rng = rng or random.Random()
    ceiling = FIRST_DELAY
    while True:
        yield rng.uniform(ceiling / 2, ceiling)
        ceiling = min(ceiling * 2, MAX_DELAY)


def passing(status: int) -> bool:
    """Whether an HTTP status is worth trying again: Discord down or busy, or a rate limit."""
    return status == 429 or status >= 500


def transient(error: BaseException) -> bool:
    """Whether a failed login may succeed if tried again later (a restart may help)."""
    if isinstance(error, discord.LoginFailure):
        return False
    if isinstance(error, discord.HTTPException):
        return passing(error.status)
    return isinstance(error, aiohttp.ClientConnectionError | TimeoutError | discord.RateLimited)


def shown(url: str) -> str:
    """``url`` without a user name or password, for a log line."""
    return str(yarl.URL(url).with_user(None))


def reason(error: BaseException) -> str:
    """What went wrong with a connection, in a few words."""
    if isinstance(error, aiohttp.ClientConnectorError):
        if isinstance(error.os_error, socket.gaierror):  # its errno is no errno's
            missing = error.os_error.errno == socket.EAI_NONAME
            return f"the host name {error.host} was not {'found' if missing else 'looked up'} (DNS)"
        if error.os_error.errno:  # "Connection refused", not the address again
            return os.strerror(error.os_error.errno)
        if error.os_error.strerror:
            return error.os_error.strerror
    if isinstance(error, TimeoutError):
        return f"no answer within {ATTEMPT_TIMEOUT.total:g} s"
    return type(error).__name__


async def reach_discord(
    api_url: str, token: str, stop: asyncio.Event, *, rng: random.Random | None = None
) -> bool:
    """Wait until Discord at ``api_url`` accepts ``token``: ``True``; ``False`` if ``stop`` is set
    first (even in the middle of an attempt). A refused token raises ``discord.LoginFailure``,
    any other answer that is neither a success nor passing ``discord.HTTPException``."""
    waits = delays(rng)
    stopping = asyncio.ensure_future(stop.wait())
    try:
        async with aiohttp.ClientSession(timeout=ATTEMPT_TIMEOUT) as session:
            attempt = 0
            while True:
                attempt += 1
                trying = asyncio.ensure_future(_attempt(session, api_url, token))
                await asyncio.wait({trying, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if stopping.done():
                    trying.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await trying
                    return False
                failure = trying.result()
                if failure is None:
                    return True
                wait = next(waits)
                log.warning(
                    "Could not log in to Discord at %s (%s); trying again in %.1f s (attempt %d)",
                    shown(api_url),
                    failure,
                    wait,
                    attempt,
                )
                if (await asyncio.wait({stopping}, timeout=wait))[0]:
                    return False
    finally:
        stopping.cancel()


async def _attempt(session: aiohttp.ClientSession, api_url: str, token: str) -> str | None:
    """Ask Discord who the token is: ``None`` once it answers, else why it did not (a failure
    worth trying again); a refusal is raised."""
    me = f"{api_url.rstrip('/')}/users/@me"
    headers = {"Authorization": f"Bot {token}", "User-Agent": USER_AGENT}
    try:
        async with session.get(me, headers=headers) as answer:
            if answer.status < 300:
                return None
            if answer.status == 401:
                raise discord.LoginFailure("Improper token has been passed.")
            if not passing(answer.status):
                raise discord.HTTPException(answer, await answer.text())
            return f"HTTP {answer.status}"
    except (aiohttp.ClientConnectionError, TimeoutError) as error:
        return reason(error)
