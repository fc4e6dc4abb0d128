"""Reaching Discord at start: which failures are waited out, and how long each wait is.

The bot as a process against the fake Discord (an outage, an unreachable address, a wrong
token) is in ``tests/e2e/test_bot_process.py``.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import socket
from dataclasses import dataclass

import aiohttp
import discord
import pytest

from bot.__main__ import EXIT_UNAVAILABLE, login_problem
from bot.chat import startup
from bot.settings import EXIT_CONFIG


@dataclass(frozen=True)
class Answer:
    """What discord.py's HTTP errors read of an HTTP answer."""

    status: int
    reason: str = ""


def http_error(status: int) -> discord.HTTPException:
    return discord.HTTPException(Answer(status), {"message": "", "code": 0})


def test_the_waits_double_up_to_a_minute_with_jitter() -> None:
    waits = list(itertools.islice(startup.delays(random.Random(1)), 12))

    ceilings = [min(startup.FIRST_DELAY * 2**n, startup.MAX_DELAY) for n in range(12)]
    for wait, ceiling in zip(waits, ceilings, strict=True):
        assert ceiling / 2 <= wait <= ceiling
    assert ceilings[-1] == startup.MAX_DELAY == 60


def test_processes_started_together_wait_differently() -> None:
    first, second = (
        list(itertools.islice(startup.delays(random.Random(seed)), 5)) for seed in (1, 2)
    )
    assert all(a != b for a, b in zip(first, second, strict=True))


@pytest.mark.parametrize(
    ("error", "passing"),
    [
        (http_error(500), True),
        (http_error(502), True),
        (http_error(503), True),
        (http_error(429), True),
        (aiohttp.ServerDisconnectedError(), True),
        (TimeoutError(), True),
        (discord.LoginFailure("Improper token has been passed."), False),
        (http_error(404), False),
        (http_error(400), False),
    ],
)
def test_outages_and_network_errors_pass_a_refusal_does_not(
    error: Exception, passing: bool
) -> None:
    assert startup.transient(error) is passing


def test_a_login_that_fails_for_now_exits_for_a_restart_and_says_so() -> None:
    url = "https://discord.com/api/v10"
    said = " ".join(login_problem(http_error(503), url).split())

    assert said.startswith(f"Discord at {url} answered the login with HTTP 503: it is down")
    assert "DISCORD_API_BASE_URL" not in said
    assert EXIT_UNAVAILABLE not in (0, EXIT_CONFIG)


def test_the_address_in_a_log_line_carries_no_password() -> None:
    shown = startup.shown("https://parlor:hunter2@proxy.example:8443/api/v10")
    assert shown == "https://proxy.example:8443/api/v10"


class StopOnWait(logging.Handler):
    """Sets ``stop`` as soon as a wait is announced, and keeps what was said."""

    def __init__(self, stop: asyncio.Event) -> None:
        super().__init__()
        self.stop = stop
        self.said: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.said.append(record.getMessage())
        self.stop.set()


async def test_a_stop_while_waiting_ends_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(startup, "FIRST_DELAY", 3600.0)  # only the stop can end this wait
    with socket.socket() as unused:  # a loopback port nobody listens on
        unused.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{unused.getsockname()[1]}/api/v10"
    stop = asyncio.Event()
    handler = StopOnWait(stop)
    startup.log.addHandler(handler)
    try:
        reached = await asyncio.wait_for(startup.reach_discord(url, "abc", stop), 30)
    finally:
        startup.log.removeHandler(handler)

    assert reached is False
    [waiting] = handler.said
    assert "(Connection refused); trying again in " in waiting
