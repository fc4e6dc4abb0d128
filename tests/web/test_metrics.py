"""``parlor web`` with ``WEB_METRICS_PORT`` set, as a host runs and scrapes it: the site's requests
counted by route and status on a port of its own, and a health check of its database."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from db.migrate import upgrade

ROOT = Path(__file__).resolve().parents[2]
WAIT = 30.0


def free_port() -> int:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port: int = unused.getsockname()[1]
    return port


async def test_the_site_counts_its_requests_on_its_metrics_port(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'parlor.db'}"
    await upgrade(url)
    site, metrics = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "WEB_"))}
    env.update(
        PYTHONPATH=str(ROOT),
        DATABASE_URL=url,
        WEB_PORT=str(site),
        WEB_METRICS_PORT=str(metrics),
        WEB_CHART_DIR=str(tmp_path / "charts"),
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.cli",
        "web",
        cwd=tmp_path,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        line = await asyncio.wait_for(process.stdout.readline(), WAIT)
        assert b"Parlor's web pages on" in line, line
        async with aiohttp.ClientSession() as session:
            for path in ("/", "/", "/no/such/page"):
                async with session.get(f"http://127.0.0.1:{site}{path}") as answer:
                    await answer.read()
            async with session.get(f"http://127.0.0.1:{site}/metrics") as answer:
                assert answer.status == 404, "the site itself shows no metrics"
            async with session.get(f"http://127.0.0.1:{metrics}/metrics") as answer:
                assert answer.status == 200
                text = await answer.text()
            async with session.get(f"http://127.0.0.1:{metrics}/healthz") as answer:
                assert answer.status == 200
                assert await answer.json() == {"status": "ok", "database": "ok"}
    finally:
        process.send_signal(signal.SIGTERM)
        status = await asyncio.wait_for(process.wait(), WAIT)
    samples = {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    requests = "parlor_web_requests_total"
    assert samples[(requests, frozenset({("route", "/"), ("status", "200")}))] == 2
    assert samples[(requests, frozenset({("route", "unmatched"), ("status", "404")}))] == 2
    assert samples[("parlor_web_request_seconds_count", frozenset({("route", "/")}))] == 2
    assert status == 0
