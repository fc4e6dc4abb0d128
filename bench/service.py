"""Moves per second through the match service, with many matches in play at once.

Every match is challenged, accepted and then played with random legal actions (secrets and Crown
hints included) through ``MatchService.submit``, on a real engine and database. The games are
played out beforehand (engines are deterministic from their seed), so the timed part runs the
service alone. Once the matches are set up, the interpreter is tuned as the bot tunes it at
start-up (``bot.interpreter.tune_interpreter``); ``--default-interpreter`` leaves CPython's
defaults, to see what the tuning is worth. The runs, each timing every move from its first
``submit`` until one succeeds:

* one match at a time: the service's own time per move, with nothing to wait for;
* all matches flat out: each match sends its next move as soon as the last is answered, for at
  most ``--seconds``. This measures capacity: with every match waiting on the others, a move's
  latency is mostly queueing (about matches / moves per second), so only its rate is judged;
* all matches paced: the same matches go on, their moves starting at ``--rate`` moves/s in all
  (open loop), for at most ``--seconds``. This measures latency at the target rate: its p99 is
  judged, and it must keep up with the rate offered;
* on a SQLite file, the flat-out and paced runs again with the transactions in
  ``--writer-processes`` child processes (the bot's ``WRITER_PROCESSES``), on new matches;
* the baselines, with the first flat-out run's moves: each move one transaction of three statements
  (read the match, update it with a version check, append an event), through a SQLAlchemy
  session (the naive path), through a Core connection with statements built once, and through
  the raw driver (the floor: sqlite3 on one connection, or an asyncpg pool the engine's size).

    python -m bench.service [--database-url URL] [--matches N] [--game NAME] [--rate R]
                            [--writer-processes N]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import itertools
import json
import os
import pstats
import random
import sqlite3
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial
from typing import Any, Literal, TypeVar

import asyncpg
from sqlalchemy import bindparam, event, exc, insert, select, update
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

import games
from bench._common import (
    Timings,
    add_database_argument,
    asyncpg_dsn,
    describe,
    is_sqlite,
    print_table,
    scratch_database,
    sqlite_file,
)
from bot.service.errors import AlreadyPlayed
from bot.service.matches import MatchService
from db.engine import POSTGRES_POOL, SQLITE_PRAGMAS, create_engine, session_factory
from db.migrate import upgrade
from db.models import Base, Match, MatchEvent
from games.base import Seat

T = TypeVar("T")

GUILD = 1
CHANNELS = 50
FIRST_USER = 10**17
"""User ids look like Discord snowflakes; each match has two players of its own."""
TARGET_RATE = 2000.0
TARGET_P99_MS = 25.0
ATTEMPTS = 20
"""A move failing this many times in a row stops the benchmark."""
RETRIED = (exc.OperationalError, exc.TimeoutError, AlreadyPlayed)
"""Failures a player would answer by trying again: locks, pool exhaustion, a busy match."""
FLOOR_SEQ, NAIVE_SEQ, CORE_SEQ = 1_000_000, 2_000_000, 3_000_000
"""Baseline events are numbered from here on, clear of the service's own."""

SEED: ContextVar[int] = ContextVar("SEED")
"""The seed the service gives the match its task is challenging."""


@dataclass(frozen=True)
class Script:
    """A game played out in advance: the actions each seat sends, in order."""

    game: str
    seed: int
    actions: tuple[tuple[Seat, str], ...]
    winner: Seat | None


@dataclass
class Live:
    """A match in the database and how far along its script it is."""

    match_id: int
    players: list[int]
    script: Script
    sent: int = 0

    @property
    def over(self) -> bool:
        return self.sent == len(self.script.actions)


@dataclass
class Tally:
    """What a run measured: one latency per move (seconds), failed attempts, statements and
    commits."""

    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    """Failed attempts by exception type."""
    statements: int = 0
    commits: int = 0


@dataclass(frozen=True)
class Run:
    """One measured path, with what it cost in failures, statements and CPU."""

    timings: Timings
    errors: Counter[str] = field(default_factory=Counter)
    statements: int = 0
    loop_cpu: float = 0.0
    """CPU seconds of the thread running the event loop."""
    process_cpu: float = 0.0
    """CPU seconds of the whole process."""
    commits: int = 0
    judged: Literal["rate", "latency"] | None = None
    """The target this run is held against: flat out its rate, paced its latency."""
    floor: bool = False
    """The raw driver's run: the other rates are also given as a share of its rate, which
    varies less between machines, and between hours on one, than the rates themselves."""


# ---------------------------------------------------------------------- games played beforehand


def write_script(game: str, seed: int) -> Script:
    """Play ``game`` from ``seed`` with random legal actions to its end."""
    engine = games.get(game)
    rng = random.Random(seed)
    state = engine.new(engine.options(engine.new({}, seed)), seed)
    actions: list[tuple[Seat, str]] = []
    while engine.outcome(state) is None:
        seat = rng.choice(sorted(engine.to_act(state)))
        action = rng.choice(list(engine.legal_actions(state, seat)))
        actions.append((seat, str(action)))
        state, _ = engine.apply(state, seat, action)
    outcome = engine.outcome(state)
    return Script(game, seed, tuple(actions), outcome.winner if outcome else None)


def write_scripts(count: int, game: str | None, rng: random.Random) -> list[Script]:
    names = sorted(games.GAMES)
    return [write_script(game or rng.choice(names), rng.randrange(2**62)) for _ in range(count)]


# ---------------------------------------------------------------------- the service


class Pacer:
    """Lets moves start at a fixed rate across all matches (open loop), or at once (rate 0)."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self._slots = asyncio.Semaphore(0)
        self._done = asyncio.Event()

    async def wait(self) -> None:
        if self.rate:
            await self._slots.acquire()

    async def run(self) -> None:
        """Release slots as time passes, until ``stop``."""
        started, released = time.perf_counter(), 0
        while self.rate and not self._done.is_set():
            due = int((time.perf_counter() - started) * self.rate)
            for _ in range(due - released):
                self._slots.release()
            released = max(released, due)
            await asyncio.sleep(0.001)

    def stop(self) -> None:
        self._done.set()


async def retrying(call: Callable[[], Awaitable[T]], tally: Tally) -> T:
    """``call()`` until it does not fail with a lock or a busy match; failures are counted."""
    for _ in range(ATTEMPTS - 1):
        try:
            return await call()
        except RETRIED as error:
            tally.errors[type(error).__name__] += 1
    return await call()


async def open_match(service: MatchService, number: int, script: Script, tally: Tally) -> Live:
    """Challenge and accept a match between two players of its own."""
    SEED.set(script.seed)
    challenger, opponent = FIRST_USER + 2 * number, FIRST_USER + 2 * number + 1
    report = await retrying(
        lambda: service.challenge(
            guild_id=GUILD,
            channel_id=GUILD + 1 + number % CHANNELS,
            challenger_id=challenger,
            opponent_id=opponent,
            game=script.game,
        ),
        tally,
    )
    match_id = report.match.id
    report = await retrying(lambda: service.accept(match_id, opponent), tally)
    return Live(match_id, list(report.match.players), script)


async def send_move(service: MatchService, live: Live, tally: Tally) -> None:
    """The script's next action, timed until the service takes it."""
    seat, text = live.script.actions[live.sent]
    user = live.players[seat]
    started = time.perf_counter()
    report = await retrying(lambda: service.submit(live.match_id, user, text), tally)
    tally.latencies.append(time.perf_counter() - started)
    live.sent += 1
    if live.over:
        winner = None if live.script.winner is None else live.players[live.script.winner]
        if report.match.status != "finished" or report.match.winner_id != winner:
            raise RuntimeError(f"match {live.match_id} did not end as its script did")


class Lobby:
    """Matches waiting to start. A match that ends hands its place to the next one waiting, so
    as many matches stay in play as there were at the start, while any are left."""

    def __init__(self, service: MatchService, scripts: Sequence[Script], numbers: Iterator[int]):
        self.service = service
        self.waiting = deque(scripts)
        self.numbers = numbers
        self.played: list[Live] = []
        """Every match opened, in the order they were."""
        self.tally = Tally()
        """Failed attempts to open a match (not timed)."""

    async def open(self) -> Live | None:
        """Challenge and accept the next match, or ``None`` when none is left."""
        if not self.waiting:
            return None
        live = await open_match(
            self.service, next(self.numbers), self.waiting.popleft(), self.tally
        )
        self.played.append(live)
        return live

    async def open_all(self, count: int) -> list[Live]:
        """``count`` matches challenged and accepted at once."""
        started = time.perf_counter()
        lives = [
            live for live in await asyncio.gather(*(self.open() for _ in range(count))) if live
        ]
        print(
            f"{len(lives):,} matches challenged and accepted at once in "
            f"{time.perf_counter() - started:.1f} s ({_errors(self.tally.errors)})"
        )
        return lives


async def play(
    service: MatchService, live: Live, lobby: Lobby, pacer: Pacer, deadline: float, tally: Tally
) -> None:
    """Send moves until the run's time is up, going on with a new match when one ends."""
    current: Live | None = live
    while current is not None and time.perf_counter() < deadline:
        await pacer.wait()
        await send_move(service, current, tally)
        if current.over:
            current = await lobby.open()


async def play_all(
    service: MatchService,
    lives: Sequence[Live],
    lobby: Lobby,
    rate: float,
    seconds: float,
    tally: Tally,
) -> None:
    """Every match at once, for at most ``seconds``."""
    pacer = Pacer(rate)
    pacing = asyncio.ensure_future(pacer.run())
    deadline = time.perf_counter() + seconds
    try:
        await asyncio.gather(
            *(play(service, live, lobby, pacer, deadline, tally) for live in lives)
        )
    finally:
        pacer.stop()
        await pacing


async def play_alone(
    service: MatchService, lives: Sequence[Live], moves: int, tally: Tally
) -> None:
    """One match at a time until ``moves`` moves are made."""
    for live in lives:
        while not live.over and len(tally.latencies) < moves:
            await send_move(service, live, tally)


async def measured(
    engine: AsyncEngine | None,
    label: str,
    work: Callable[[Tally], Awaitable[object]],
    service: MatchService | None = None,
) -> Run:
    """Run ``work`` and gather its wall time, CPU time, SQL statements and commits (on
    ``engine`` and, for a SQLite file, its writer), and the CPU time of ``service``'s writer
    processes."""
    tally = Tally()

    def count(*_: Any) -> None:
        tally.statements += 1

    def commit(*_: Any) -> None:
        tally.commits += 1

    listened = [] if engine is None else [engine.sync_engine]
    for target in listened:
        event.listen(target, "before_cursor_execute", count)
        event.listen(target, "commit", commit)
    loop_cpu, process_cpu, wall = time.thread_time(), time.process_time(), time.perf_counter()
    try:
        await work(tally)
    finally:
        for target in listened:
            event.remove(target, "before_cursor_execute", count)
            event.remove(target, "commit", commit)
    return Run(
        Timings(label, tally.latencies, time.perf_counter() - wall),
        tally.errors,
        tally.statements,
        time.thread_time() - loop_cpu,
        time.process_time() - process_cpu,
        tally.commits,
    )


# ---------------------------------------------------------------------- the baselines

SELECT_SQL = "SELECT * FROM matches WHERE id = {0}"
UPDATE_SQL = (
    "UPDATE matches SET state = {0}, version = version + 1, updated_at = {1} "
    "WHERE id = {2} AND version = {3}"
)
INSERT_SQL = (
    "INSERT INTO match_events (match_id, seq, seat, kind, audience, payload, created_at) "
    "VALUES ({0}, {1}, {2}, {3}, {4}, {5}, {6})"
)
SQLITE_TIME = "%Y-%m-%d %H:%M:%S.%f"
"""How SQLAlchemy stores a UTC timestamp in SQLite."""


def event_payload(seq: int) -> dict[str, Any]:
    """An event about as large as a move's."""
    return {"text": "{p0} plays move " + str(seq), "data": {"seat": 0, "action": "MOVE 2 2"}}


def move_order(moves: dict[int, int]) -> list[tuple[int, int]]:
    """(match id, move number) for ``moves[match id]`` moves each, the matches taking turns."""
    longest = max(moves.values(), default=0)
    return [(m, k) for k in range(longest) for m, n in moves.items() if k < n]


async def naive_move(sessions: async_sessionmaker[AsyncSession], match_id: int, seq: int) -> None:
    """One move as a session of its own: ORM read, Core update and insert."""
    now = datetime.now(UTC)
    async with sessions.begin() as session:
        row = await session.get(Match, match_id)
        if row is None:
            raise RuntimeError(f"no match {match_id}")
        changed = await session.execute(
            update(Match)
            .where(Match.id == match_id, Match.version == row.version)
            .values(state=row.state, version=Match.version + 1, updated_at=now)
        )
        if changed.rowcount != 1:  # type: ignore[attr-defined]
            raise RuntimeError(f"match {match_id} changed under the naive path")
        await session.execute(
            insert(MatchEvent).values(
                match_id=match_id,
                seq=seq,
                seat=0,
                kind="action:action",
                payload=event_payload(seq),
                created_at=now,
            )
        )


MATCHES, EVENTS = Base.metadata.tables["matches"], Base.metadata.tables["match_events"]
CORE_SELECT = select(MATCHES).where(MATCHES.c.id == bindparam("match_id"))
CORE_UPDATE = (
    update(MATCHES)
    .where(MATCHES.c.id == bindparam("match_id"), MATCHES.c.version == bindparam("seen"))
    .values(
        state=bindparam("new_state"), version=MATCHES.c.version + 1, updated_at=bindparam("now")
    )
)
CORE_INSERT = insert(EVENTS)


async def core_move(engine: AsyncEngine, match_id: int, seq: int) -> None:
    """One move on a connection of its own, with statements built once: Core without the ORM."""
    now = datetime.now(UTC)
    async with engine.begin() as connection:
        row = (await connection.execute(CORE_SELECT, {"match_id": match_id})).one()
        values = {"match_id": match_id, "seen": row.version, "new_state": row.state, "now": now}
        changed = await connection.execute(CORE_UPDATE, values)
        if changed.rowcount != 1:
            raise RuntimeError(f"match {match_id} changed under the Core path")
        event = {"match_id": match_id, "seq": seq, "seat": 0, "kind": "action:action"}
        await connection.execute(
            CORE_INSERT,
            {**event, "audience": None, "payload": event_payload(seq), "created_at": now},
        )


Move = Callable[[int, int], Awaitable[None]]
"""One baseline move: (match id, event seq)."""


async def run_per_move(
    engine: AsyncEngine, moves: dict[int, int], label: str, move: Move, first_seq: int
) -> Run:
    """Every match's moves at once, each move its own transaction."""

    async def one_match(match_id: int, count: int, tally: Tally) -> None:
        for k in range(count):
            started = time.perf_counter()
            await retrying(partial(move, match_id, first_seq + k), tally)
            tally.latencies.append(time.perf_counter() - started)

    async def work(tally: Tally) -> None:
        await asyncio.gather(*(one_match(m, n, tally) for m, n in moves.items()))

    return await measured(engine, label, work)


def sqlite_floor(path: str, moves: dict[int, int]) -> Run:
    """Every move in turn on one stdlib connection: the least a move can cost on SQLite."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.row_factory = sqlite3.Row
    for pragma in SQLITE_PRAGMAS:
        connection.execute(pragma)
    latencies: list[float] = []
    loop_cpu, process_cpu, wall = time.thread_time(), time.process_time(), time.perf_counter()
    try:
        for match_id, k in move_order(moves):
            started = time.perf_counter()
            sqlite_move(connection, match_id, k)
            latencies.append(time.perf_counter() - started)
    finally:
        connection.close()
    return Run(
        Timings("floor (sqlite3, 1 connection)", latencies, time.perf_counter() - wall),
        statements=3 * len(latencies),
        commits=len(latencies),
        loop_cpu=time.thread_time() - loop_cpu,
        process_cpu=time.process_time() - process_cpu,
        floor=True,
    )


def sqlite_move(connection: sqlite3.Connection, match_id: int, k: int) -> None:
    now = datetime.now(UTC).strftime(SQLITE_TIME)
    connection.execute("BEGIN")
    row = connection.execute(SELECT_SQL.format("?"), (match_id,)).fetchone()
    state = json.dumps(json.loads(row["state"]))
    changed = connection.execute(UPDATE_SQL.format(*"????"), (state, now, match_id, row["version"]))
    if changed.rowcount != 1:
        raise RuntimeError(f"match {match_id} changed under the floor")
    values = (match_id, FLOOR_SEQ + k, 0, "action:action", None, json.dumps(event_payload(k)), now)
    connection.execute(INSERT_SQL.format(*"???????"), values)
    connection.execute("COMMIT")


async def asyncpg_move(pool: asyncpg.Pool, match_id: int, k: int) -> None:
    now = datetime.now(UTC)
    async with pool.acquire() as connection, connection.transaction():
        row = await connection.fetchrow(SELECT_SQL.format("$1"), match_id)
        state = json.dumps(json.loads(row["state"]))
        changed = await connection.execute(
            UPDATE_SQL.format("$1", "$2", "$3", "$4"), state, now, match_id, row["version"]
        )
        if changed != "UPDATE 1":
            raise RuntimeError(f"match {match_id} changed under the floor")
        payload = json.dumps(event_payload(k))
        await connection.execute(
            INSERT_SQL.format(*(f"${i}" for i in range(1, 8))),
            *(match_id, FLOOR_SEQ + k, 0, "action:action", None, payload, now),
        )


async def postgresql_floor(url: URL, moves: dict[int, int]) -> Run:
    """Every match's moves at once on an asyncpg pool as large as the engine's."""
    size = POSTGRES_POOL["pool_size"] + POSTGRES_POOL["max_overflow"]
    pool = await asyncpg.create_pool(asyncpg_dsn(url), min_size=size, max_size=size)

    async def one_match(match_id: int, count: int, tally: Tally) -> None:
        for k in range(count):
            started = time.perf_counter()
            await asyncpg_move(pool, match_id, k)
            tally.latencies.append(time.perf_counter() - started)
            tally.statements += 3
            tally.commits += 1

    async def work(tally: Tally) -> None:
        await asyncio.gather(*(one_match(m, n, tally) for m, n in moves.items()))

    try:
        return replace(await measured(None, f"floor (asyncpg, pool of {size})", work), floor=True)
    finally:
        await pool.close()


# ---------------------------------------------------------------------- the run


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.service",
        description="Moves per second and latency per move through the match service.",
    )
    add_database_argument(parser)
    parser.add_argument("--matches", type=int, default=1000, help="matches in play at once")
    parser.add_argument("--game", choices=sorted(games.GAMES), help="one game (default: all mixed)")
    parser.add_argument(
        "--seconds", type=float, default=10.0, help="longest time for each concurrent run"
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=TARGET_RATE,
        help="moves/s offered in the paced run, across all matches (0: skip that run)",
    )
    parser.add_argument(
        "--alone", type=int, default=200, help="moves in the one-match-at-a-time run (0: skip)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed for the games and actions")
    parser.add_argument(
        "--baselines",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="measure the baselines too (the longest part of the run)",
    )
    parser.add_argument(
        "--profile",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="then play flat out this long under cProfile and print where the time goes",
    )
    return parser.parse_args(argv)


async def bench(args: argparse.Namespace, url: URL) -> None:
    print(f"database: {describe(url)}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    engine = create_engine(url.render_as_string(hide_password=False))
    try:
        await upgrade(engine)
        rng = random.Random(args.seed)
        started = time.perf_counter()
        scripts = write_scripts(4 * args.matches, args.game, rng)
        alone = write_scripts(min(args.alone, 50), args.game, rng)
        total = sum(len(s.actions) for s in scripts)
        print(
            f"{len(scripts):,} matches ({args.game or 'all games mixed'}) of {total:,} moves in "
            f"all, played out in advance in {time.perf_counter() - started:.1f} s; "
            f"{args.matches:,} in play at once, each ending match replaced by a new one"
        )
        runs = await measure_all(args, url, engine, scripts, alone)
        report(runs, args.matches)
    finally:
        await engine.dispose()


async def measure_all(
    args: argparse.Namespace,
    url: URL,
    engine: AsyncEngine,
    scripts: Sequence[Script],
    alone: Sequence[Script],
) -> list[Run]:
    """Every run in turn, the flat-out and paced runs on matches of their own: with the
    transactions in the benchmark's process, then in writer processes."""
    service = MatchService(session_factory(engine), seeds=lambda: SEED.get())
    runs = []
    numbers = itertools.count()
    if args.alone:
        quiet = [await open_match(service, next(numbers), s, Tally()) for s in alone]
        runs.append(
            await measured(
                engine,
                "service (1 match at a time)",
                lambda tally: play_alone(service, quiet, args.alone, tally),
            )
        )
    concurrent, moves = await measure_concurrent(args, engine, service, "service", scripts, numbers)
    runs += concurrent
    if args.baselines:
        runs += await measure_baselines(url, engine, moves)
    if args.profile:
        matches = args.matches
        profiled = Lobby(service, write_scripts(2 * matches, args.game, random.Random(0)), numbers)
        await profile(service, await profiled.open_all(matches), profiled, args.profile)
    return runs


async def measure_concurrent(
    args: argparse.Namespace,
    engine: AsyncEngine,
    service: MatchService,
    label: str,
    scripts: Sequence[Script],
    numbers: Iterator[int],
) -> tuple[list[Run], dict[int, int]]:
    """The flat-out run, then the paced one, through ``service``; with the moves made in each
    match of the flat-out run (for the baselines)."""
    matches = args.matches
    flat_lobby = Lobby(service, scripts[: 2 * matches], numbers)
    paced_lobby = Lobby(service, scripts[2 * matches :], numbers)
    lives = await flat_lobby.open_all(matches)
    flat = await measured(
        engine,
        f"{label} (flat out, {len(lives):,} matches)",
        lambda tally: play_all(service, lives, flat_lobby, 0.0, args.seconds, tally),
        service,
    )
    runs = [replace(flat, judged="rate")]
    if args.rate:
        lives = await paced_lobby.open_all(matches)
        paced = await measured(
            engine,
            f"{label} (paced at {args.rate:,.0f}/s, {len(lives):,} matches)",
            lambda tally: play_all(service, lives, paced_lobby, args.rate, args.seconds, tally),
            service,
        )
        runs.append(replace(paced, judged="latency"))
    return runs, {live.match_id: live.sent for live in flat_lobby.played}


async def measure_baselines(url: URL, engine: AsyncEngine, moves: dict[int, int]) -> list[Run]:
    """The naive path, Core, and the raw driver, each with ``moves[match id]`` moves a match."""
    runs = []
    sessions = session_factory(engine)
    naive = partial(naive_move, sessions)
    runs.append(await run_per_move(engine, moves, "naive (session per move)", naive, NAIVE_SEQ))
    core = partial(core_move, engine)
    runs.append(await run_per_move(engine, moves, "Core (connection per move)", core, CORE_SEQ))
    if is_sqlite(url):
        runs.append(sqlite_floor(sqlite_file(url), moves))
    else:
        runs.append(await postgresql_floor(url, moves))
    return runs


def report(runs: Sequence[Run], matches: int) -> None:
    floor = next((r.timings.rate for r in runs if r.floor), None)
    print()
    print_table(
        ("path", "moves", "moves/s", "of floor", "p50 ms", "p99 ms", "errors"),
        [
            (
                r.timings.path,
                r.timings.count,
                r.timings.rate,
                _share(r, floor),
                r.timings.ms(0.5),
                r.timings.ms(0.99),
                r.errors.total(),
            )
            for r in runs
        ],
    )
    print()
    print_table(
        (
            "path",
            "statements/move",
            "commits/move",
            "loop CPU ms/move",
            "process CPU ms/move",
            "loop CPU %",
        ),
        [_costs(r) for r in runs],
    )
    print()
    for run in runs:
        if run.errors:
            print(f"failed attempts, {run.timings.path}: {_errors(run.errors)}")
    print(
        f"targets (SQLite, {matches:,} matches at once): at least {TARGET_RATE:,.0f} moves/s, "
        f"p99 at most {TARGET_P99_MS:.0f} ms"
    )
    for run in runs:
        if run.judged:
            print(f"  {run.timings.path}: {_verdict(run.timings, run.judged)}")
    print(
        "a move's latency runs from its first submit until one succeeds; errors are failed "
        "attempts (retried).\nFlat out, p50 is about matches / (moves/s): time spent queueing. "
        "Statements: SQL through SQLAlchemy's cursors (no BEGIN, COMMIT or pool pings); the "
        "service's include opening the matches that replace those ended. Of floor: the rate as "
        "a share of the raw driver's, measured in this run.\n"
        "Loop CPU is the event loop's thread, where a SQLite file's batches of moves are written "
        "while the database is free; process CPU adds the other threads (the SQLite writer's, "
        "its checkpoints) and the writer processes, if any, whose statements go uncounted (-)."
    )


def _share(run: Run, floor: float | None) -> str:
    """``run``'s rate as a share of the floor's; none for a paced run, which takes the rate
    it is offered."""
    if not floor or run.judged == "latency":
        return "-"
    return f"{run.timings.rate / floor:.0%}"


def _verdict(timings: Timings, judged: str) -> str:
    rate, p99 = timings.rate, timings.ms(0.99)
    if judged == "rate":
        fast = "meets" if rate >= TARGET_RATE else "misses"
        return f"{rate:,.0f} moves/s {fast} the rate target ({rate / TARGET_RATE:.0%} of it)"
    quick = "meets" if p99 <= TARGET_P99_MS else "misses"
    return f"p99 {p99:,.1f} ms {quick} the latency target, at {rate:,.0f} moves/s taken"


def _errors(errors: Counter[str]) -> str:
    if not errors:
        return "no failed attempts"
    return ", ".join(f"{count:,} {kind}" for kind, count in errors.most_common())


def _costs(run: Run) -> tuple[str, float | str, float | str, float, float, float]:
    moves = max(run.timings.count, 1)
    wall = run.timings.wall or 1.0
    return (
        run.timings.path,
        run.statements / moves,
        run.commits / moves,
        1000 * run.loop_cpu / moves,
        1000 * run.process_cpu / moves,
        100 * run.loop_cpu / wall,
    )


async def profile(
    service: MatchService, lives: Sequence[Live], lobby: Lobby, seconds: float
) -> None:
    """Play flat out under cProfile (the event loop's thread) and print where the time goes."""
    profiler = cProfile.Profile()
    tally = Tally()
    profiler.enable()
    try:
        await play_all(service, lives, lobby, 0.0, seconds, tally)
    finally:
        profiler.disable()
    print(f"\nprofile: {len(tally.latencies):,} moves in {seconds:.0f} s under cProfile")
    stats = pstats.Stats(profiler).strip_dirs()
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(50)


async def main_async(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    async with scratch_database(args.database_url) as url:
        await bench(args, url)
    print(f"\ntotal time: {time.perf_counter() - started:.1f} s")


def main(argv: Sequence[str] | None = None) -> None:
    asyncio.run(main_async(parse_args(argv)))


if __name__ == "__main__":
    main()
