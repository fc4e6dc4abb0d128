"""The bot end to end against the fake Discord, as a player feels it: how soon a move shows on
the board, and how much of Discord's rate limits it spends.

The bot runs as ``python -m bot`` in a process of its own, as in production; this process runs the
fake Discord (which enforces Discord's rate limits) and the members.

* Moves: Crystal Capture matches at once in ONE channel (a busy #games channel), each a
  challenge (slash command), an accept (button) and three moves. Flat out, for each of
  ``--matches`` (20 and 100): every member acts as soon as their board shows it is their turn,
  moves by button (and, for the most matches, by ``/crystal take``); beside them a bare
  discord.py bot answering "ok", as many members each sending as many commands one after the
  other, ``--rounds`` times each, one bot's run beside the other's: a target is judged on the
  median of the rounds' ratios (the machine's speed moves within minutes, and the bare bot's CPU
  per interaction with it). Paced: both bots get interactions starting at ``--rate`` per second
  in all, over ``--paced-matches``. Each step is timed from INTERACTION_CREATE sent to its
  result visible on the match's board (the bare bot: to its answer). Counted: each bot process's
  user + system CPU during play per interaction it answered (its CPU-time clock, the process
  alone), the REST calls made with the bot's token per move (interaction responses and
  interaction-token webhooks do not count against Discord's limits), and the 429 answers
  received; every REST call whatever its token, and every SQL statement and commit the bot
  process sent (``bench._tallied_bot``). Before each run but the one by kind, the bot plays one
  match (the bare bot: one member's commands) that is not measured, so the run finds it as it
  runs after a while, not as it starts; that first match's CPU per interaction is printed apart.
* Places: ``--anywhere-matches`` matches by button, each in a channel of its own, in a server
  and then in a group DM through a member's own install, ``--rounds`` times: the bot's CPU per
  interaction, the group DM's against the server's of the same round (the median of them).
* By kind: the same matches in lockstep, every match's challenge, then every accept, then the
  moves (by button, by ``/crystal take``, then by button the one that ends the match, a kind of
  its own), the bot left to settle after each kind (its outbox written): SQL statements,
  commits and Discord calls per interaction of each kind.
* Start-up: from spawning ``python -m bot`` to its first answered command, and its resident
  memory then, on an empty database and on one holding ``--stored`` unfinished matches.
* Scale-out, with ``--database-url`` naming a PostgreSQL server: the same matches by button,
  half in a server on each of two shards, once with one bot process running both shards and
  once with two processes running one shard each (``SHARD_COUNT=2``, ``SHARD_IDS``), on a scratch
  database of that server: interactions answered per second and how soon a move is visible.

Everything runs on 127.0.0.1. Figures are printed, never checked.

    python -m bench.e2e [--matches 20 100] [--rounds 3] [--rate 50] [--paced-matches N]
                        [--stored 100000] [--kind-matches 20]
                        [--database-url postgresql+asyncpg://...]
    python -m bench.e2e --scale-only --database-url postgresql+asyncpg://postgres@127.0.0.1/postgres
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import ctypes.util
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import astuple, dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import discord
import psutil
from discord import app_commands
from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy import insert
from sqlalchemy.engine import make_url

from bench._common import percentile, print_table, scratch_database
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
    FakeUser,
)

ROOT = Path(__file__).resolve().parents[1]
WAIT = 60.0
"""Seconds one step may take before its match is given up."""
ATTEMPTS = 3
"""Presses of one button before its match is given up (a member presses again on an error)."""
TAKES = (9, 1, 6)
"""The first mover takes 9, the other 1, the first 6: exactly 15."""
YOUR_MOVE = re.compile(r"<@(\d+)>, your move\.")
SETTLE = 1.0
"""Seconds the bot is left after a kind's last step before its counts are read: its outbox
writes what was shown within half a second, and its counts are written every tenth."""
KINDS = ("challenge", "accept", "button move", "slash move", "ending move")
"""The kinds of step counted apart. The last move of a match (by button) is its own kind: it
also writes the result, the ratings and the season's standings."""


@dataclass
class Figures:
    """What one run measured (seconds)."""

    answered: list[float] = field(default_factory=list)
    """INTERACTION_CREATE sent to initial response received, per interaction."""
    visible: list[float] = field(default_factory=list)
    """Interaction sent to its result visible, per step."""
    moves_visible: list[float] = field(default_factory=list)
    """The same, for moves only (not challenges and accepts)."""
    failed: int = 0
    """Steps given up."""
    wall: float = 0.0
    interactions: int = 0
    """Interactions the members sent (a refused press sent again counts again)."""
    moves: int = 0
    bot_calls: int = 0
    """REST calls made with the bot's token during the run."""
    routes: Counter[str] = field(default_factory=Counter)
    """Those calls by route."""
    throttled: int = 0
    """429 answers the fake sent."""
    acknowledged: int = 0
    """Interactions the bot answered."""
    cpu: float = 0.0
    """User and system CPU seconds of the bot's process during the run."""
    calls: int = 0
    """REST calls the fake received during the run, whatever their token."""
    statements: int = 0
    """SQL statements the bot process sent during the run (Parlor only)."""
    commits: int = 0
    """Commits the bot process made during the run (Parlor only)."""
    kinds: dict[str, Counts] = field(default_factory=dict)
    """What each kind of interaction cost, when the run went in phases."""
    first_cpu_ms: float = 0.0
    """The bot's CPU per interaction in the match played before the run (``warm_up``)."""

    def cpu_ms(self) -> float:
        """The bot's CPU per interaction it answered (ms)."""
        return 1000 * self.cpu / self.acknowledged if self.acknowledged else 0.0

    def per_interaction(self, count: int) -> float:
        return count / self.acknowledged if self.acknowledged else 0.0


@dataclass
class Counts:
    """What the bot has cost so far: its SQL, and the REST calls the fake received."""

    statements: int = 0
    commits: int = 0
    calls: int = 0
    bot_calls: int = 0
    interactions: int = 0

    def __sub__(self, other: Counts) -> Counts:
        return self + Counts(*(-n for n in astuple(other)))

    def __add__(self, other: Counts) -> Counts:
        return Counts(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))


def counted(fake: FakeDiscord, tally: Path, figures: Figures) -> Counts:
    """The counts now: the bot's from the file ``bench._tallied_bot`` keeps, the fake's own."""
    sql = json.loads(tally.read_text()) if tally.exists() else {}
    return Counts(
        sql.get("statements", 0),
        sql.get("commits", 0),
        len(fake.requests),
        sum(fake.bot_calls().values()),
        figures.acknowledged,
    )


class Phases:
    """Every match's steps of one kind at a time: each match waits at ``enter`` until all have
    finished the kind before; then the bot is left to settle, and that kind's counts read."""

    def __init__(self, parties: int, now: Callable[[], Counts]) -> None:
        self._barrier = asyncio.Barrier(parties)
        self._now = now
        self._kind = ""
        self._since = Counts()
        self.costs: dict[str, Counts] = {}

    async def enter(self, kind: str) -> None:
        """Start ``kind`` (``""``: the end), once every match has ended the kind before."""
        if await self._barrier.wait() == 0:
            await asyncio.sleep(SETTLE)
            now = self._now()
            if self._kind:
                self.costs[self._kind] = now - self._since + self.costs.get(self._kind, Counts())
            self._kind, self._since = kind, now
        await self._barrier.wait()

    async def abort(self) -> None:
        """A match gave up: the others stop waiting for it."""
        await self._barrier.abort()


class Pace:
    """Lets interactions start at ``rate`` per second across every match (open loop), or at
    once (rate 0)."""

    def __init__(self, rate: float = 0.0) -> None:
        self.rate = rate
        self._next = time.perf_counter()

    async def turn(self) -> None:
        if not self.rate:
            return
        now = time.perf_counter()
        slot = max(self._next, now)
        self._next = slot + 1 / self.rate
        await asyncio.sleep(slot - now)


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
        "LOG_LEVEL": os.environ.get("BENCH_LOG_LEVEL", "WARNING"),
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


Seated = tuple[FakeChannel, FakeMember | FakeUser, FakeMember | FakeUser]
"""A match's channel and its two members."""


def tables(fake: FakeDiscord, count: int, place: str | None = None) -> list[Seated]:
    """Two members per match, every match in one channel of one guild; with ``place``, each
    match in a channel of its own: ``server``, a channel of that guild; ``group``, a group DM
    of two people who share no server with the bot, the first with Parlor in their own apps."""
    guild = fake.add_guild("Bench")
    channel = fake.add_text_channel(guild, "games")
    seated: list[Seated] = []
    for n in range(count):
        if place == "group":
            one, other = fake.add_user(f"a{n}"), fake.add_user(f"b{n}")
            fake.install_for_user(one)
            seated.append((fake.add_group_dm(one, other, name=f"g{n}"), one, other))
            continue
        first = fake.add_member(guild, fake.add_user(f"a{n}"))
        second = fake.add_member(guild, fake.add_user(f"b{n}"))
        here = fake.add_text_channel(guild, f"games-{n}") if place == "server" else channel
        seated.append((here, first, second))
    return seated


class Boards:
    """Finds each match's live board, cheaply enough for a hundred waiters: the board found last
    time, until it is deleted (a re-post replaces it), then the newest message of the match."""

    def __init__(self, fake: FakeDiscord, channel: FakeChannel | None) -> None:
        self.fake = fake
        self.channel = channel
        self._found: dict[int, FakeMessage] = {}

    def of(self, match_id: int) -> FakeMessage | None:
        known = self._found.get(match_id)
        if known is not None and not known.deleted:
            return known
        for message in reversed(self.fake.state.messages.values()):
            if message.deleted or self.channel not in (None, message.channel):
                continue
            if any(_match_of(custom_id) == match_id for custom_id in message.custom_ids):
                self._found[match_id] = message
                return message
        return None


def _match_of(custom_id: str) -> int | None:
    press = Press.parse(custom_id)
    return None if press is None else press.match_id


async def step(
    fake: FakeDiscord,
    figures: Figures,
    act: Callable[[], Awaitable[FakeInteraction]],
    board: Callable[[FakeInteraction], FakeMessage | None],
    seen: Callable[[FakeMessage], bool],
    pace: Pace,
) -> tuple[FakeInteraction, FakeMessage]:
    """Act until the result is on the board (acting again after a refusal, as people do)."""
    for _ in range(ATTEMPTS):
        await pace.turn()
        started = time.perf_counter()
        interaction = await act()
        figures.interactions += 1
        await fake.wait_until(partial(_acknowledged, interaction), timeout=WAIT, what="a response")
        figures.acknowledged += 1
        if interaction.latency is not None:
            figures.answered.append(interaction.latency)

        def shown(interaction: FakeInteraction = interaction) -> FakeMessage | bool:
            message = board(interaction)
            if message is not None and seen(message):
                return message
            return _refused(interaction)

        found = await fake.wait_until(shown, timeout=WAIT, what="the board")
        if isinstance(found, FakeMessage):
            figures.visible.append(time.perf_counter() - started)
            return interaction, found
    raise GivenUp


async def press_take(
    fake: FakeDiscord, boards: Boards, match_id: int, mover: FakeMember | FakeUser, take: int
) -> FakeInteraction:
    """Press crystal ``take`` on the match's board as it is now (a re-post may have moved it)."""
    board = boards.of(match_id)
    assert board is not None
    button = next(c for c in board.custom_ids if (p := Press.parse(c)) and p.arg == str(take))
    return await fake.click(mover, board, button)


def _acknowledged(interaction: FakeInteraction) -> bool:
    return interaction.acknowledged


def _refused(interaction: FakeInteraction) -> bool:
    """The bot answered privately with anything but a success: it refused, or failed."""
    answers = [m.content for m in interaction.messages if m.ephemeral and not m.loading]
    return any(not text.startswith(("Played", "Posted below")) for text in answers)


# ---------------------------------------------------------------------- Parlor


async def parlor_match(
    fake: FakeDiscord,
    channel: FakeChannel,
    one: FakeMember | FakeUser,
    other: FakeMember | FakeUser,
    figures: Figures,
    *,
    boards: Boards,
    by_command: bool | None,
    pace: Pace,
    phases: Phases | None = None,
) -> None:
    """One whole match, from the challenge to exactly 15, its moves by button or command
    (``None``: by button, command, button), each step in its kind's phase with ``phases``."""
    members = {one.id: one, other.id: other}

    async def kind(name: str) -> None:
        if phases is not None:
            await phases.enter(name)

    try:
        await kind("challenge")

        def challenge_of(interaction: FakeInteraction) -> FakeMessage | None:
            public = [m for m in interaction.messages if not m.ephemeral and m.custom_ids]
            return public[0] if public else None

        _, challenge = await step(
            fake,
            figures,
            lambda: fake.slash(one, channel, "crystal challenge", opponent=other),
            challenge_of,
            lambda m: "challenges you" in m.text,
            pace,
        )
        match_id = next(p.match_id for c in challenge.custom_ids if (p := Press.parse(c)))
        accept = next(c for c in challenge.custom_ids if c.endswith(f":{Verb.ACCEPT}"))

        def live(_: FakeInteraction) -> FakeMessage | None:
            return boards.of(match_id)

        await kind("accept")
        _, board = await step(
            fake,
            figures,
            lambda: fake.click(other, challenge, accept),
            live,
            lambda m: "Coin toss" in m.text,
            pace,
        )
        for number, take in enumerate(TAKES):
            mover = members[int(YOUR_MOVE.findall(board.content)[-1])]
            command = number % 2 == 1 if by_command is None else by_command
            ending = number == len(TAKES) - 1
            await kind("ending move" if ending else "slash move" if command else "button move")
            if command:
                act = partial(fake.slash, mover, channel, "crystal take", crystal=take)
            else:
                act = partial(press_take, fake, boards, match_id, mover, take)
            before = len(figures.visible)
            _, board = await step(
                fake,
                figures,
                act,
                live,
                lambda m, t=take: f"captures crystal {t}:" in m.text,  # type: ignore[misc]
                pace,
            )
            figures.moves_visible += figures.visible[before:]
            figures.moves += 1
        await kind("")
    except (GivenUp, TimeoutError, asyncio.BrokenBarrierError):
        figures.failed += 1
        if phases is not None:
            await phases.abort()


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
    fake: FakeDiscord,
    channel: FakeChannel,
    member: FakeMember | FakeUser,
    figures: Figures,
    pace: Pace,
) -> None:
    """As many interactions as a match has, one after the other, each started when ``pace``
    lets it (at once when flat out)."""
    try:
        for _ in range(2 + len(TAKES)):
            await pace.turn()
            started = time.perf_counter()
            interaction = await fake.slash(member, channel, "ping")
            figures.interactions += 1
            await fake.wait_for_response(interaction, timeout=WAIT)
            figures.acknowledged += 1
            figures.visible.append(time.perf_counter() - started)
            if interaction.latency is not None:
                figures.answered.append(interaction.latency)
    except TimeoutError:
        figures.failed += 1


# ---------------------------------------------------------------------- runs


async def measure_latency(
    matches: int,
    directory: Path,
    *,
    floor: bool,
    by_command: bool | None = False,
    rate: float = 0.0,
    by_kind: bool = False,
    place: str | None = None,
) -> tuple[Figures, int]:
    """One run with ``matches`` at once; the figures and the errors the bot logged; with
    ``place``, each match in a channel of its own (``tables``).

    Interactions start as soon as each match (or each of the floor's members) may send its
    next one, or at ``rate`` per second across them all; with ``by_kind``, one kind of step
    at a time (``Phases``). The bot's CPU is its process's user and system time from the
    first interaction to the last one's result.
    """
    fake = FakeDiscord()
    await fake.start()
    figures = Figures()
    name = "floor" if floor else ("parlor-commands" if by_command else "parlor-buttons")
    name += "-kinds" if by_kind else ""
    name += f"-{place}" if place else ""
    log = directory / f"{name}-{matches}-{rate:g}.log"
    pace = Pace(rate)
    try:
        warm, *seated = tables(fake, matches + 1, place)
        database = directory / f"{name}-{matches}-{rate:g}.db"
        env = bot_environment(fake, f"sqlite+aiosqlite:///{database}")
        tally = directory / f"{name}-{matches}-{rate:g}.tally"
        module = ["bench.e2e", "--serve-floor"] if floor else ["bench._tallied_bot", str(tally)]
        async with spawned(fake, module, env, log) as child:
            bot = psutil.Process(child.pid)
            if not by_kind:  # a count of statements by kind: the warm-up's would spill into it
                figures.first_cpu_ms = await warm_up(
                    fake, bot, warm, floor=floor, by_command=by_command
                )
            calls_before = fake.bot_calls()
            counts_before = counted(fake, tally, figures)
            cpu_before = _cpu(bot)
            started = time.perf_counter()
            if floor:
                runs = [floor_session(fake, c, a, figures, pace) for c, a, _ in seated]
            else:
                boards = Boards(fake, None if place else seated[0][0])
                phases = Phases(matches, partial(counted, fake, tally, figures))
                runs = [
                    parlor_match(
                        fake,
                        *table,
                        figures,
                        boards=boards,
                        by_command=None if by_kind else by_command,
                        pace=pace,
                        phases=phases if by_kind else None,
                    )
                    for table in seated
                ]
            await asyncio.gather(*runs)
            figures.wall = time.perf_counter() - started
            figures.cpu = _cpu(bot) - cpu_before
            if not floor:
                await asyncio.sleep(SETTLE)  # what the outbox writes after the last move
                spent = counted(fake, tally, figures) - counts_before
                figures.statements, figures.commits = spent.statements, spent.commits
                figures.kinds = phases.costs
            figures.calls = len(fake.requests) - counts_before.calls
            figures.routes = fake.bot_calls() - calls_before
            figures.bot_calls = sum(figures.routes.values())
            figures.throttled = len(fake.rate_limit_hits)
    finally:
        await fake.close()
    return figures, errors_logged(log)


async def warm_up(
    fake: FakeDiscord,
    bot: psutil.Process,
    table: Seated,
    *,
    floor: bool,
    by_command: bool | None,
) -> float:
    """Play one match (the bare bot: one member's commands) before the run is measured, as a
    bot running for a while has: the run then pays none of the costs a process pays once
    (SQLAlchemy compiling each statement, discord.py's first look at a command), which made
    up a third of Parlor's CPU per interaction in a run of 20 matches. The bot's CPU per
    interaction in it, printed apart."""
    channel, one, other = table
    figures = Figures()
    before = _cpu(bot)
    if floor:
        await floor_session(fake, channel, one, figures, Pace(0))
    else:
        boards = Boards(fake, channel)
        await parlor_match(
            fake, channel, one, other, figures, boards=boards, by_command=by_command, pace=Pace(0)
        )
    spent = _cpu(bot) - before
    await asyncio.sleep(SETTLE)  # what the outbox writes after the last move
    return 1000 * spent / figures.acknowledged if figures.acknowledged else 0.0


def _cpu(process: psutil.Process) -> float:
    """User and system CPU seconds of ``process`` so far (not its children's), every thread's.

    Read from the process's CPU-time clock, to the nanosecond, where the C library offers it
    (Linux): the times psutil reads are counted in ticks of 10 ms, as much as a whole run of the
    bare bot takes, which made its CPU per interaction jump by a quarter from one run to the next.
    """
    clock = _cpu_clock(process.pid)
    if clock is not None:
        return time.clock_gettime(clock)
    times = process.cpu_times()
    return float(times.user + times.system)


def _cpu_clock(pid: int) -> int | None:
    """The id of ``pid``'s CPU-time clock (``clock_getcpuclockid(3)``), or ``None``."""
    path = ctypes.util.find_library("c")
    if path is None or not hasattr(time, "clock_gettime"):
        return None
    clock = ctypes.c_int()
    if ctypes.CDLL(path).clock_getcpuclockid(pid, ctypes.byref(clock)) != 0:
        return None
    return clock.value


SCALE_SHARDS = 2


def sharded_tables(
    fake: FakeDiscord, count: int
) -> list[tuple[FakeChannel, FakeMember, FakeMember]]:
    """Two members per match, the matches spread evenly over a server on each shard."""
    channels = []
    for shard in range(SCALE_SHARDS):
        guild = fake.add_guild(f"Bench {shard}", shard=(shard, SCALE_SHARDS))
        channels.append((guild, fake.add_text_channel(guild, "games")))
    seated = []
    for n in range(count):
        guild, channel = channels[n % SCALE_SHARDS]
        first = fake.add_member(guild, fake.add_user(f"a{n}"))
        second = fake.add_member(guild, fake.add_user(f"b{n}"))
        seated.append((channel, first, second))
    return seated


@contextlib.asynccontextmanager
async def spawned_processes(
    fake: FakeDiscord, envs: list[dict[str, str]], logs: list[Path]
) -> AsyncIterator[None]:
    """Bot processes, one per environment, running until the block ends; ready once every
    shard is connected and the commands are registered."""
    children = []
    with contextlib.ExitStack() as files:
        try:
            for env, log in zip(envs, logs, strict=True):
                errors = files.enter_context(log.open("wb"))
                children.append(
                    await asyncio.create_subprocess_exec(
                        sys.executable,
                        "-m",
                        "bot",
                        cwd=log.parent,
                        env=env,
                        stdout=asyncio.subprocess.DEVNULL,
                        stderr=errors,
                    )
                )

            def connected() -> bool:
                shards = {s.shard.id for s in fake.gateway.sessions if s.connection is not None}
                return shards == set(range(SCALE_SHARDS)) and bool(fake.commands())

            await fake.wait_until(connected, timeout=WAIT, what="every shard to connect")
            yield
        finally:
            for child in children:
                child.terminate()
            for child in children:
                try:
                    await asyncio.wait_for(child.wait(), 30)
                except TimeoutError:
                    child.kill()
                    await child.wait()


async def measure_scale(
    matches: int, directory: Path, server_url: str, processes: int
) -> tuple[Figures, int]:
    """One run of ``matches`` by button over two shards, with ``processes`` bot processes (one:
    it runs both shards; two: one shard each) on a scratch PostgreSQL database."""
    fake = FakeDiscord(shards=SCALE_SHARDS)
    await fake.start()
    figures = Figures()
    logs = [directory / f"scale-{processes}-{n}.log" for n in range(processes)]
    try:
        seated = sharded_tables(fake, matches)
        async with scratch_database(server_url) as database:
            url = database.render_as_string(hide_password=False)
            envs = [bot_environment(fake, url) for _ in range(processes)]
            if processes > 1:
                for shard, env in enumerate(envs):
                    env |= {"SHARD_COUNT": str(processes), "SHARD_IDS": str(shard)}
            async with spawned_processes(fake, envs, logs):
                calls_before = fake.bot_calls()
                boards = {c.id: Boards(fake, c) for c, _, _ in seated}
                started = time.perf_counter()
                await asyncio.gather(
                    *(
                        parlor_match(
                            fake,
                            *table,
                            figures,
                            boards=boards[table[0].id],
                            by_command=False,
                            pace=Pace(),
                        )
                        for table in seated
                    )
                )
                figures.wall = time.perf_counter() - started
                figures.routes = fake.bot_calls() - calls_before
                figures.bot_calls = sum(figures.routes.values())
                figures.throttled = len(fake.rate_limit_hits)
    finally:
        await fake.close()
    return figures, sum(errors_logged(log) for log in logs if log.exists())


def scale_row(processes: int, figures: Figures, errors: int) -> list[object]:
    ms = 1000
    moves = figures.moves or 1
    return [
        "1 process, both shards" if processes == 1 else f"{processes} processes, a shard each",
        figures.interactions,
        figures.interactions / figures.wall if figures.wall else 0.0,
        ms * percentile(figures.moves_visible, 0.50),
        ms * percentile(figures.moves_visible, 0.99),
        figures.bot_calls / moves,
        figures.throttled,
        figures.failed,
        errors,
    ]


async def scale_out(matches: int, directory: Path, server_url: str) -> None:
    """The scale-out figures: one process against two, side by side."""
    rows = []
    for processes in (1, SCALE_SHARDS):
        rows.append(
            scale_row(processes, *await measure_scale(matches, directory, server_url, processes))
        )
    print(
        f"Scale-out on PostgreSQL: {matches} Crystal Capture matches at once, half in a server "
        f"on each of {SCALE_SHARDS} shards, moves by button; interactions sent per second of "
        "the run, and a move from INTERACTION_CREATE sent to the board showing it (ms)"
    )
    print_table(
        [
            "bot",
            "interactions",
            "interactions/s",
            "visible p50",
            "visible p99",
            "bot calls/move",
            "429s",
            "given up",
            "errors logged",
        ],
        rows,
    )


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


CPU_RATIO = 5.0
"""Target: Parlor's CPU per interaction at most this many times the bare bot's."""
P99_RATIO = 5.0
"""Target: paced alike, a move's visible p99 at most this many times the bare bot's."""
FLAT_P99_RATIO = {20: 8.0, 100: 30.0}
"""Targets flat out, by matches in the channel: a move's visible p99 at most this many times
the bare bot's answer's, Discord's rate limits enforced."""


def _visible(figures: Figures) -> list[float]:
    """Per move for Parlor (not challenges and accepts), per interaction for the bare bot."""
    return figures.moves_visible or figures.visible


def _pace_cells(figures: Figures) -> list[object]:
    """Interactions answered, per second, the bot's CPU per interaction, visible p50 and p99."""
    visible = _visible(figures)
    return [
        figures.acknowledged,
        figures.acknowledged / figures.wall if figures.wall else 0.0,
        figures.cpu_ms(),
        1000 * percentile(visible, 0.50),
        1000 * percentile(visible, 0.99),
    ]


def flat_row(name: str, matches: int, figures: Figures, errors: int) -> list[object]:
    moves = figures.moves or len(figures.visible)
    sql: list[object] = ["-", "-"]  # the bare bot has no database
    if figures.statements:
        sql = [
            figures.per_interaction(figures.statements),
            figures.per_interaction(figures.commits),
        ]
    return [
        name,
        matches,
        *_pace_cells(figures),
        matches * figures.cpu_ms(),
        *sql,
        figures.per_interaction(figures.calls),
        figures.bot_calls / moves if moves else 0.0,
        figures.throttled,
        figures.failed,
        errors,
    ]


def paced_row(name: str, figures: Figures, errors: int) -> list[object]:
    return [name, *_pace_cells(figures), figures.failed, errors]


def _ratio(mine: float, bare: float) -> str:
    return f"{mine / bare:.1f}x" if bare else "-"


def _met(met: bool) -> str:
    return "met" if met else "missed"


Measured = tuple[Figures, int]
"""A run's figures and the errors its bot logged."""


async def flat_out(
    counts: list[int], directory: Path, rounds: int = 1
) -> dict[int, list[tuple[Measured, Measured]]]:
    """For each count, Parlor (moves by button) and the bare bot, flat out, ``rounds`` times
    one beside the other; printed. A target is judged on the median of the rounds' ratios:
    the machine's speed moves within minutes, and a run of 20 matches is half a second."""
    runs: dict[int, list[tuple[Measured, Measured]]] = {matches: [] for matches in counts}
    for round_ in range(rounds):
        scratch = directory / f"flat-{round_}"  # each run on a database of its own
        scratch.mkdir()
        for matches in counts:
            parlor = await measure_latency(matches, scratch, floor=False)
            bare = await measure_latency(matches, scratch, floor=True)
            runs[matches].append((parlor, bare))
    most = max(counts)
    commands = await measure_latency(most, directory, floor=False, by_command=True)
    print(
        f"Flat out: N Crystal Capture matches at once in one channel, a challenge, an accept "
        f"and {len(TAKES)} moves each, every step sent as soon as the board allows; the bare "
        "bot as many members each sending 5 commands one after the other. Bot CPU: its "
        "process's user + system time during play per interaction answered; a move from "
        "INTERACTION_CREATE sent to the board showing it (ms); N x CPU: the latency queueing "
        f"for the bot's CPU alone explains. {rounds} round(s), each bot's run beside the "
        "other's."
    )
    rows = []
    for matches, measured in runs.items():
        for parlor, bare in measured:
            rows.append(flat_row('bare "ok" bot', matches, *bare))
            rows.append(flat_row("Parlor, moves by button", matches, *parlor))
    rows.append(flat_row("Parlor, moves by /crystal take", most, *commands))
    print_table(
        [
            "bot",
            "N",
            "interactions",
            "per s",
            "CPU ms/interaction",
            "visible p50",
            "visible p99",
            "N x CPU ms",
            "statements/interaction",
            "commits/interaction",
            "Discord calls/interaction",
            "bot calls/move",
            "429s",
            "given up",
            "errors logged",
        ],
        rows,
    )
    for matches, measured in runs.items():
        ours = statistics.median(parlor.cpu_ms() for (parlor, _), _bare in measured)
        theirs = statistics.median(bare.cpu_ms() for _parlor, (bare, _) in measured)
        ratios = [_cpu_ratio(parlor, bare) for (parlor, _), (bare, _) in measured]
        ratio = statistics.median(ratios)
        print(
            f"target, {matches} matches: Parlor's CPU per interaction at most {CPU_RATIO:.0f}x "
            f"the bare bot's: {ours:.2f} against {theirs:.2f} ms, {ratio:.1f}x"
            f"{_spread(ratios)}: {_met(ratio <= CPU_RATIO)}"
        )
    first = [
        (parlor.first_cpu_ms, bare.first_cpu_ms)
        for measured in runs.values()
        for (parlor, _), (bare, _) in measured
    ]
    print(
        "Not in these figures: each bot's first match after start-up, played before each run "
        "(CPU ms per interaction, Parlor against the bare bot): "
        + ", ".join(f"{ours:.2f} against {theirs:.2f}" for ours, theirs in first)
    )
    for matches, measured in runs.items():
        if (most_ratio := FLAT_P99_RATIO.get(matches)) is None:
            continue
        p99s = [
            (percentile(_visible(parlor), 0.99), percentile(_visible(bare), 0.99))
            for (parlor, _), (bare, _) in measured
        ]
        ratios = [mine / floor if floor else float("inf") for mine, floor in p99s]
        ratio = statistics.median(ratios)
        mine = statistics.median(m for m, _ in p99s)
        floor = statistics.median(f for _, f in p99s)
        cpu = statistics.median(parlor.cpu_ms() for (parlor, _), _bare in measured)
        print(
            f"target, {matches} matches flat out: Parlor's move visible p99 at most "
            f"{most_ratio:.0f}x the bare bot's: {1000 * mine:,.1f} against {1000 * floor:,.1f} "
            f"ms, {ratio:.1f}x{_spread(ratios)}: {_met(ratio <= most_ratio)}; "
            f"N x CPU {matches * cpu:,.1f} ms"
        )
    by_button = [parlor for (parlor, _), _bare in runs[most]]
    for label, played in (("buttons", by_button), ("commands", [commands[0]])):
        moves = sum(figures.moves for figures in played)
        calls = sum(figures.bot_calls for figures in played)
        throttled = sum(figures.throttled for figures in played)
        routes = sum((figures.routes for figures in played), Counter[str]())
        per_move = calls / moves if moves else 0.0
        print(
            f"targets, {label}, {most} matches: {per_move:.2f} bot-token calls per move "
            f"(at most 0.1), {throttled} 429s (none)"
        )
        if routes:
            spent = ", ".join(f"{route} {n}" for route, n in routes.most_common())
            print(f"  bot-token calls by route: {spent}")
    return runs


def _cpu_ratio(parlor: Figures, bare: Figures) -> float:
    return parlor.cpu_ms() / bare.cpu_ms() if bare.cpu_ms() else float("inf")


def _spread(ratios: list[float], digits: int = 1) -> str:
    """`` (median; 4.9x to 6.2x over 3 rounds)``, or nothing for one round."""
    if len(ratios) < 2:
        return ""
    low, high = f"{min(ratios):.{digits}f}", f"{max(ratios):.{digits}f}"
    return f" (median; {low}x to {high}x over {len(ratios)} rounds)"


async def by_kind(matches: int, directory: Path) -> None:
    """Parlor's matches in lockstep, one kind of step at a time; its cost by kind, printed."""
    figures, errors = await measure_latency(matches, directory, floor=False, by_kind=True)
    print(
        f"By kind: {matches} Crystal Capture matches in one channel in lockstep, each kind's "
        f"steps all at once, then {SETTLE:g} s to settle (the outbox's writes and the "
        "background work then count with the kind). Discord calls: every REST call, whatever "
        "its token; a move on a board buried by the others' is re-posted every other move."
    )
    rows = []
    for kind in KINDS:
        cost = figures.kinds.get(kind, Counts())
        n = cost.interactions
        rows.append(
            [
                kind,
                n,
                *(x / n if n else 0.0 for x in (cost.statements, cost.commits)),
                *(x / n if n else 0.0 for x in (cost.calls, cost.bot_calls)),
            ]
        )
    print_table(
        [
            "interaction",
            "interactions",
            "statements/interaction",
            "commits/interaction",
            "Discord calls/interaction",
            "bot-token calls/interaction",
        ],
        rows,
    )
    print(f"given up: {figures.failed}, errors logged: {errors}")


async def anywhere(matches: int, directory: Path, rounds: int = 1) -> None:
    """The same matches by button, each in a channel of its own in a server, then each in a
    group DM through a member's own install (every update through interactions), ``rounds``
    times: the bot's CPU per interaction, the server's of the same round as the baseline, the
    target judged on the median of the rounds' ratios."""
    rows = []
    ratios = []
    places = (("server", "a server channel each"), ("group", "a group DM each"))
    for round_ in range(rounds):
        scratch = directory / f"places-{round_}"  # each run on a database of its own
        scratch.mkdir()
        cpu: dict[str, float] = {}
        for place, name in places:
            figures, errors = await measure_latency(
                matches, scratch, floor=False, by_command=False, place=place
            )
            cpu[place] = figures.cpu_ms()
            rows.append(
                [
                    name,
                    figures.acknowledged,
                    figures.cpu_ms(),
                    figures.per_interaction(figures.bot_calls),
                    f"{cpu[place] / cpu['server']:.2f}x" if cpu["server"] else "-",
                    figures.failed,
                    errors,
                ]
            )
        ratios.append(cpu["group"] / cpu["server"] if cpu["server"] else float("inf"))
    print(
        f"Places: {matches} Crystal Capture matches by button, each in a channel of its own; "
        "in a group DM the bot is not a member and every update rides on an interaction."
    )
    print_table(
        [
            "place",
            "interactions",
            "CPU ms/interaction",
            "bot-token calls/interaction",
            "CPU vs server",
            "given up",
            "errors logged",
        ],
        rows,
    )
    ratio = statistics.median(ratios)
    print(
        "target: a group DM's CPU per interaction within 10% of a server's: "
        f"{ratio:.2f}x{_spread(ratios, 2)}: {_met(ratio <= 1.1)}"
    )


async def paced(matches: int, rate: float, directory: Path) -> None:
    """Parlor and the bare bot driven at the same ``rate``; printed."""
    parlor = await measure_latency(matches, directory, floor=False, rate=rate)
    bare = await measure_latency(matches, directory, floor=True, rate=rate)
    print(
        f"Paced: interactions start at {rate:g}/s in all over {matches} matches in one "
        "channel (the bare bot: as many members), the same for both bots. Visible: a move "
        "(Parlor) or an answer (bare bot) from INTERACTION_CREATE sent, in ms."
    )
    print_table(
        [
            "bot",
            "interactions",
            "per s",
            "CPU ms/interaction",
            "visible p50",
            "visible p99",
            "given up",
            "errors logged",
        ],
        [paced_row('bare "ok" bot', *bare), paced_row("Parlor, moves by button", *parlor)],
    )
    mine, floor = (percentile(_visible(f), 0.99) for f in (parlor[0], bare[0]))
    print(
        f"target: paced at {rate:g}/s, Parlor's move visible p99 at most {P99_RATIO:.0f}x the "
        f"bare bot's: {1000 * mine:,.1f} against {1000 * floor:,.1f} ms, "
        f"{_ratio(mine, floor)}: {_met(bool(floor) and mine <= P99_RATIO * floor)}"
    )


async def main(arguments: argparse.Namespace) -> None:
    print(
        f"Python {sys.version.split()[0]}, discord.py {discord.__version__}, "
        f"{os.cpu_count()} CPUs; the bot in its own process; everything on 127.0.0.1, the fake "
        "enforcing Discord's rate limits"
    )
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    counts = arguments.matches
    server_url = arguments.database_url
    if server_url is not None and make_url(server_url).get_backend_name() != "postgresql":
        raise SystemExit("--database-url: give a PostgreSQL server (the scale-out runs on it)")
    if arguments.scale_only:
        if server_url is None:
            raise SystemExit("--scale-only needs --database-url, a PostgreSQL server")
        with temporary_directory() as directory:
            await scale_out(max(counts), directory, server_url)
        return
    with temporary_directory() as directory:
        await flat_out(counts, directory, arguments.rounds)
        if arguments.kind_matches:
            print()
            await by_kind(arguments.kind_matches, directory)
        if arguments.anywhere_matches:
            print()
            await anywhere(arguments.anywhere_matches, directory, arguments.rounds)
        if arguments.rate:
            print()
            await paced(arguments.paced_matches or max(counts), arguments.rate, directory)
        print()
        rows = []
        for stored in (0, arguments.stored):
            url = await stored_database(directory / f"stored-{stored}.db", stored)
            seconds, rss = await measure_startup(url, directory)
            rows.append([f"{stored:,} unfinished matches", seconds, rss])
        print("Start-up of python -m bot: spawn to its first answered command, and RSS then")
        print_table(["database", "seconds", "RSS MB"], rows)
        if server_url is not None:
            print()
            await scale_out(max(counts), directory, server_url)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


@contextlib.contextmanager
def temporary_directory() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="parlor_bench_e2e_") as name:
        yield Path(name)


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.e2e", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--matches",
        type=int,
        nargs="+",
        default=[20, 100],
        help="matches played at once, flat out: one run of each bot for each number",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="rounds of the flat-out runs (each bot beside the other) and of the places (a "
        "server channel beside a group DM); their targets take the median of the rounds",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=50.0,
        help="interactions per second for the paced runs of both bots (0: skip them)",
    )
    parser.add_argument(
        "--paced-matches",
        type=int,
        help="matches in the paced runs (default: the largest of --matches)",
    )
    parser.add_argument(
        "--kind-matches",
        type=int,
        default=20,
        help="matches in the run that counts each kind of interaction apart (0: skip it)",
    )
    parser.add_argument(
        "--anywhere-matches",
        type=int,
        default=20,
        help="matches in the runs that compare a server channel with a group DM (0: skip them)",
    )
    parser.add_argument(
        "--stored", type=int, default=100_000, help="unfinished matches for the start-up figure"
    )
    parser.add_argument(
        "--database-url",
        metavar="URL",
        help="a PostgreSQL server (on 127.0.0.1) to run the scale-out figures on, in a scratch "
        "database",
    )
    parser.add_argument(
        "--scale-only",
        action="store_true",
        help="only the scale-out figures (needs --database-url, a PostgreSQL server)",
    )
    parser.add_argument("--serve-floor", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = parse_arguments()
    if arguments.serve_floor:
        serve_floor()
    else:
        asyncio.run(main(arguments))
