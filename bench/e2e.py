"""The bot end to end against the fake Discord: interaction latency, start-up time and memory.

The bot runs as ``python -m bot`` in a process of its own, as in production; this process runs the
fake Discord and the members.

* Latency: ``--matches`` Crystal Capture matches at once, each a challenge (slash command), an
  accept (button) and three moves (buttons), every member acting as soon as they see the board.
  Each interaction is timed from INTERACTION_CREATE sent to the initial response received (what
  Discord's 3-second rule measures), and until its result is on the board. Beside it, in the same
  run and the same shape, the floor: a minimal discord.py bot that only answers "ok".
* Start-up: from spawning ``python -m bot`` to its first answered command, and its resident
  memory then, on an empty database and on one holding ``--stored`` unfinished matches.

Everything runs on 127.0.0.1. Figures are printed, never checked.

    python -m bench.e2e [--matches 100] [--stored 100000]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import discord
import psutil
from discord import app_commands
from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy import insert

from bench._common import percentile, print_table
from bot.chat.app import point_at
from bot.chat.components import Press, Verb
from db import migrate
from db.models import Match, MatchPlayer
from games import crystal
from tests.e2e.fake_discord import (
    FakeChannel,
    FakeDiscord,
    FakeInteraction,
    FakeMember,
    FakeMessage,
)

ROOT = Path(__file__).resolve().parents[1]
WAIT = 60.0
"""Seconds one step may take before its match is given up."""
ATTEMPTS = 3
"""Presses of one button before its match is given up (a member presses again on an error)."""
TAKES = (9, 1, 6)
"""The first mover takes 9, the other 1, the first 6: exactly 15."""
YOUR_MOVE = re.compile(r"<@(\d+)>, your move\.")


@dataclass
class Figures:
    """What one run measured (seconds)."""

    answered: list[float] = field(default_factory=list)
    """INTERACTION_CREATE sent to initial response received, per interaction."""
    visible: list[float] = field(default_factory=list)
    """Interaction sent to its result visible, per step."""
    failed: int = 0
    """Steps given up."""
    wall: float = 0.0


class GivenUp(Exception):
    """A step did not succeed within ``ATTEMPTS`` presses or ``WAIT`` seconds."""


# ---------------------------------------------------------------------- processes


def bot_environment(fake: FakeDiscord, database_url: str) -> dict[str, str]:
    """The environment ``python -m bot`` reads, pointed at the fake Discord."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_"))}
    env |= {
        "PYTHONPATH": str(ROOT),
        "DISCORD_TOKEN": fake.token,
        "DISCORD_API_BASE_URL": fake.api_base,
        "DISCORD_GATEWAY_URL": fake.gateway_url,
        "DATABASE_URL": database_url,
        "LOG_LEVEL": "WARNING",
    }
    return env


@contextlib.asynccontextmanager
async def spawned(
    fake: FakeDiscord, module: list[str], env: dict[str, str], log: Path
) -> AsyncIterator[asyncio.subprocess.Process]:
    """A bot process, running until the block ends; ready once its commands are registered."""
    with log.open("wb") as errors:
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            *module,
            cwd=log.parent,
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=errors,
        )
        try:
            await fake.wait_until(
                lambda: fake.gateway.session is not None and fake.commands(),
                timeout=WAIT,
                what="the bot to connect",
            )
            yield child
        finally:
            child.terminate()
            try:
                await asyncio.wait_for(child.wait(), 30)
            except TimeoutError:
                child.kill()
                await child.wait()


def errors_logged(log: Path) -> int:
    return sum(1 for line in log.read_text(errors="replace").splitlines() if "ERROR" in line)


# ---------------------------------------------------------------------- the world


def tables(fake: FakeDiscord, count: int) -> list[tuple[FakeChannel, FakeMember, FakeMember]]:
    """One channel and two members per match, in one guild."""
    guild = fake.add_guild("Bench")
    seated = []
    for n in range(count):
        channel = fake.add_text_channel(guild, f"duel-{n}")
        first = fake.add_member(guild, fake.add_user(f"a{n}"))
        second = fake.add_member(guild, fake.add_user(f"b{n}"))
        seated.append((channel, first, second))
    return seated


async def newest(
    fake: FakeDiscord,
    channel: FakeChannel,
    test: Callable[[FakeMessage], bool],
    failed: Callable[[], bool] = lambda: False,
) -> FakeMessage | None:
    """The channel's newest message once it passes ``test``; ``None`` if ``failed()`` first.

    Only the newest message is looked at, so many waiters stay cheap.
    """

    def done() -> FakeMessage | bool | None:
        message = fake.state.messages.get(channel.last_message_id or 0)
        if message is not None and test(message):
            return message
        return failed()

    found = await fake.wait_until(done, timeout=WAIT, what=f"a message in {channel.name}")
    return found if isinstance(found, FakeMessage) else None


async def step(
    fake: FakeDiscord,
    figures: Figures,
    act: Callable[[], Awaitable[FakeInteraction]],
    channel: FakeChannel,
    seen: Callable[[FakeMessage], bool],
) -> FakeMessage:
    """Act until the result is on the board (pressing again after an error, as people do)."""
    for _ in range(ATTEMPTS):
        started = time.perf_counter()
        interaction = await act()
        acknowledged = partial(_acknowledged, interaction)
        await fake.wait_until(acknowledged, timeout=WAIT, what="a response")
        if interaction.latency is not None:
            figures.answered.append(interaction.latency)
        message = await newest(fake, channel, seen, partial(_refused, interaction))
        if message is not None:
            figures.visible.append(time.perf_counter() - started)
            return message
    raise GivenUp


def _acknowledged(interaction: FakeInteraction) -> bool:
    return interaction.acknowledged


def _refused(interaction: FakeInteraction) -> bool:
    """The bot answered privately with anything but a success: it refused, or failed."""
    answers = [m.content for m in interaction.messages if m.ephemeral and not m.loading]
    return any(not text.startswith(("Challenge posted", "Done")) for text in answers)


# ---------------------------------------------------------------------- Parlor


async def parlor_match(
    fake: FakeDiscord, channel: FakeChannel, one: FakeMember, other: FakeMember, figures: Figures
) -> None:
    """One whole match, from the challenge to exactly 15."""
    members = {one.id: one, other.id: other}
    try:
        challenge = await step(
            fake,
            figures,
            lambda: fake.slash(one, channel, "crystal challenge", opponent=other),
            channel,
            lambda m: "challenges you" in m.content,
        )
        accept = next(c for c in challenge.custom_ids if c.endswith(f":{Verb.ACCEPT}"))
        board = await step(
            fake,
            figures,
            lambda: fake.click(other, challenge, accept),
            channel,
            lambda m: "Coin toss" in m.content,
        )
        for take in TAKES:
            mover = members[int(YOUR_MOVE.findall(board.content)[-1])]
            button = next(
                c for c in board.custom_ids if (p := Press.parse(c)) and p.arg == str(take)
            )
            current = board
            board = await step(
                fake,
                figures,
                lambda m=mover, b=button, c=current: fake.click(m, c, b),  # type: ignore[misc]
                channel,
                lambda m, t=take: f"captures crystal {t}:" in m.content,  # type: ignore[misc]
            )
    except (GivenUp, TimeoutError):
        figures.failed += 1


# ---------------------------------------------------------------------- the floor


class OkBot(discord.Client):
    """The least a discord.py bot can do: answer ``/ping`` with "ok"."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default())
        self.tree = app_commands.CommandTree(self)

        @self.tree.command(name="ping", description="Answers ok.")
        async def ping(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("ok")

    async def setup_hook(self) -> None:
        await self.tree.sync()


def serve_floor() -> None:
    """Run ``OkBot`` with the token and URLs ``python -m bot`` would read."""
    point_at(os.environ["DISCORD_API_BASE_URL"], os.environ["DISCORD_GATEWAY_URL"])
    OkBot().run(os.environ["DISCORD_TOKEN"], log_handler=None)


async def floor_session(
    fake: FakeDiscord, channel: FakeChannel, member: FakeMember, figures: Figures, pace: float
) -> None:
    """As many interactions as a match has, ``pace`` seconds apart (Parlor's time per step)."""
    await asyncio.sleep(random.uniform(0, pace))
    try:
        for _ in range(2 + len(TAKES)):
            next_one = asyncio.create_task(asyncio.sleep(pace))
            started = time.perf_counter()
            interaction = await fake.slash(member, channel, "ping")
            await fake.wait_for_response(interaction, timeout=WAIT)
            figures.visible.append(time.perf_counter() - started)
            if interaction.latency is not None:
                figures.answered.append(interaction.latency)
            await next_one
    except TimeoutError:
        figures.failed += 1


# ---------------------------------------------------------------------- runs


async def measure_latency(
    matches: int, directory: Path, *, floor: bool, pace: float = 0.0
) -> tuple[Figures, int]:
    """One run with ``matches`` at once; the figures and the errors the bot logged.

    The floor's sessions send an interaction every ``pace`` seconds, so that it gets the load
    Parlor got.
    """
    fake = FakeDiscord()
    await fake.start()
    figures = Figures()
    log = directory / ("floor.log" if floor else "parlor.log")
    try:
        seated = tables(fake, matches)
        env = bot_environment(fake, f"sqlite+aiosqlite:///{directory / 'latency.db'}")
        module = ["bench.e2e", "--serve-floor"] if floor else ["bot"]
        async with spawned(fake, module, env, log):
            started = time.perf_counter()
            if floor:
                runs = [floor_session(fake, c, a, figures, pace) for c, a, _ in seated]
            else:
                runs = [parlor_match(fake, *table, figures) for table in seated]
            await asyncio.gather(*runs)
            figures.wall = time.perf_counter() - started
    finally:
        await fake.close()
    return figures, errors_logged(log)


async def stored_database(path: Path, unfinished: int) -> str:
    """A migrated SQLite database holding ``unfinished`` Crystal Capture matches in play."""
    url = f"sqlite+aiosqlite:///{path}"
    await migrate.upgrade(url)
    now = datetime.now(UTC)
    state = crystal.GAME.dump(crystal.GAME.new({}, 1))
    engine = create_sync_engine(f"sqlite:///{path}")
    rng = random.Random(1)
    with engine.begin() as connection:
        for start in range(0, unfinished, 10_000):
            ids = range(start + 1, min(start + 10_000, unfinished) + 1)
            users = {i: (rng.randrange(1, 10**17), rng.randrange(1, 10**17)) for i in ids}
            connection.execute(
                insert(Match),
                [
                    {
                        "id": i,
                        "guild_id": 1 + i % 50,
                        "channel_id": 1000 + i % 500,
                        "game": "crystal",
                        "options": {},
                        "seed": 1,
                        "state": state,
                        "status": "active",
                        "version": 1,
                        "deadline": now + timedelta(days=1),
                        "deadline_kind": "turn",
                        "challenger_id": users[i][0],
                        "opponent_id": users[i][1],
                        "vs_bot": False,
                        "created_at": now,
                        "updated_at": now,
                    }
                    for i in ids
                ],
            )
            connection.execute(
                insert(MatchPlayer),
                [{"match_id": i, "seat": s, "user_id": users[i][s]} for i in ids for s in (0, 1)],
            )
    engine.dispose()
    return url


async def measure_startup(database_url: str, directory: Path) -> tuple[float, float]:
    """Seconds from spawning ``python -m bot`` to its first answered command, and its RSS (MB)."""
    fake = FakeDiscord()
    await fake.start()
    try:
        guild = fake.add_guild("Bench")
        channel = fake.add_text_channel(guild, "duels")
        member = fake.add_member(guild, fake.add_user("someone"))
        started = time.perf_counter()
        env = bot_environment(fake, database_url)
        async with spawned(fake, ["bot"], env, directory / "startup.log") as child:
            interaction = await fake.slash(member, channel, "rules", game="crystal")
            await fake.wait_for_response(interaction, timeout=WAIT)
            seconds = time.perf_counter() - started
            rss = psutil.Process(child.pid).memory_info().rss / 2**20
    finally:
        await fake.close()
    return seconds, rss


# ---------------------------------------------------------------------- report


def latency_row(name: str, figures: Figures, errors: int) -> list[object]:
    ms = 1000
    return [
        name,
        len(figures.answered),
        ms * percentile(figures.answered, 0.50),
        ms * percentile(figures.answered, 0.99),
        ms * percentile(figures.visible, 0.50),
        ms * percentile(figures.visible, 0.99),
        len(figures.visible) / figures.wall if figures.wall else 0.0,
        figures.failed,
        errors,
    ]


async def main(arguments: argparse.Namespace) -> None:
    print(
        f"Python {sys.version.split()[0]}, discord.py {discord.__version__}, "
        f"{os.cpu_count()} CPUs; the bot in its own process; everything on 127.0.0.1\n"
    )
    with temporary_directory() as directory:
        parlor = await measure_latency(arguments.matches, directory, floor=False)
        steps = 2 + len(TAKES)
        pace = parlor[0].wall / steps
        floor = await measure_latency(arguments.matches, directory, floor=True, pace=pace)
        print(
            f"Interaction latency (ms), {arguments.matches} at once, {steps} interactions each: "
            "INTERACTION_CREATE sent to initial response received, and sent to result visible. "
            f"The floor's sessions are paced like Parlor's matches (one every {pace:.2f} s)."
        )
        print_table(
            [
                "bot",
                "interactions",
                "p50",
                "p99",
                "visible p50",
                "visible p99",
                "steps/s",
                "given up",
                "errors logged",
            ],
            [
                latency_row('minimal "ok" bot (floor)', *floor),
                latency_row(f"Parlor, {arguments.matches} Crystal Capture matches", *parlor),
            ],
        )
        print()
        rows = []
        for stored in (0, arguments.stored):
            url = await stored_database(directory / f"stored-{stored}.db", stored)
            seconds, rss = await measure_startup(url, directory)
            rows.append([f"{stored:,} unfinished matches", seconds, rss])
        print("Start-up of python -m bot: spawn to its first answered command, and RSS then")
        print_table(["database", "seconds", "RSS MB"], rows)


@contextlib.contextmanager
def temporary_directory() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="parlor_bench_e2e_") as name:
        yield Path(name)


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.e2e", description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=100, help="matches played at once")
    parser.add_argument(
        "--stored", type=int, default=100_000, help="unfinished matches for the start-up figure"
    )
    parser.add_argument("--serve-floor", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = parse_arguments()
    if arguments.serve_floor:
        serve_floor()
    else:
        asyncio.run(main(arguments))
