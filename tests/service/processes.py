"""Use cases run at the same moment by separate processes on one PostgreSQL database, as two
bot processes would run them: each worker gets ready, waits for "go" on its stdin, then acts
and prints one line of JSON."""

from __future__ import annotations

import asyncio
import json
import sys
from asyncio.subprocess import PIPE
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

WORKER = """
import asyncio, json, sys
from datetime import datetime
from db.engine import create_engine, session_factory
from bot.service.match_parts import match_parts
from bot.service.errors import MatchError
from bot.chat.refusals import say

async def main() -> None:
    url, use_case, *args = sys.argv[1:]
    engine = create_engine(url)
    service = match_parts(session_factory(engine), bot_user_id=99)
    async with engine.connect():
        pass  # connected before the start, so both start together
    print("ready", flush=True)
    sys.stdin.readline()
    try:
        if use_case == "accept":
            report = await service.challenges.accept(int(args[0]), int(args[1]))
            print(json.dumps({"started": report.match.id}), flush=True)
        elif use_case == "wave":
            from db.queue import Spot
            guild, channel, game = int(args[0]), int(args[1]), args[2]
            wave = await service.queue.wave(Spot(guild, channel, game))
            pairs = [list(report.match.players) for report in wave.reports]
            print(json.dumps({"pairs": pairs}), flush=True)
    except MatchError as error:
        print(json.dumps({"refused": say(error)}), flush=True)
    finally:
        await engine.dispose()

asyncio.run(main())
"""


def postgresql_only(database_url: str) -> str:
    if not database_url.startswith("postgresql"):
        pytest.skip("several bot processes share PostgreSQL only (PARLOR_TEST_DATABASE_URL)")
    return database_url


async def at_once(database_url: str, *calls: tuple[str, ...]) -> list[dict[str, Any]]:
    """Run each call (``("accept", match_id, user_id)``) in a process of its own, all started
    at the same moment; what each printed."""
    workers = [
        await asyncio.create_subprocess_exec(
            sys.executable, "-c", WORKER, database_url, *call, cwd=ROOT, stdin=PIPE, stdout=PIPE
        )
        for call in calls
    ]
    for worker in workers:
        assert worker.stdout is not None
        assert (await asyncio.wait_for(worker.stdout.readline(), 60)).strip() == b"ready"
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write(b"go\n")
        await worker.stdin.drain()
    answers = []
    for worker in workers:
        out, _ = await asyncio.wait_for(worker.communicate(), 60)
        assert worker.returncode == 0
        answers.append(json.loads(out.decode().strip().splitlines()[-1]))
    return answers
