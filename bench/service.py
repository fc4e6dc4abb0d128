"""Moves per second and latency per move through the match service, beside the raw driver's.

Every match is challenged, accepted and then played with random legal actions (secrets and Crown
hints included) through ``MatchService.submit``, on a real engine and database. The games are
played out beforehand (engines are deterministic from their seed), so the timed parts run the
service alone. Each move is timed from its first attempt until one succeeds. The runs, in order:

* the floor: ``--matches`` matches taking turns for ``--seconds``, each move one transaction of
  three statements (read the match, update it with a version check, append an event) on the raw
  driver: sqlite3 on one connection, or an asyncpg pool the engine's size. Every rate is also
  given as a share of this one ("of floor"), which varies less between machines, and between
  hours on one, than the rates themselves;
* the service, one match at a time: its own time per move, with nothing to wait for;
* the service flat out: ``--matches`` matches, each sending its next move as soon as the last is
  answered, for at most ``--seconds``. This measures capacity: with every match waiting on the
  others, a move's latency is mostly queueing (about matches / moves per second), so only its
  rate is judged;
* the service paced: as many new matches, their moves starting at ``--rate`` moves/s in all (open
  loop; by default a share of the floor's rate), for at most ``--seconds``. This measures latency
  under load: its p99 is judged, and it must take the rate offered;
* the floor's transaction through a SQLAlchemy session (the naive path) and through a Core
  connection with statements built once, on the floor's matches for ``--seconds`` each.

    python -m bench.service [--database-url URL] [--matches N] [--game NAME] [--rate R]
                            [--profile SECONDS]
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
FLAT_OUT_SHARE = {"sqlite": 0.30, "postgresql": 0.50}
"""Target: flat out, at least this share of the floor's moves/s, by database."""
PACED_SHARE = 0.10
"""The paced run offers this share of the floor's moves/s (unless ``--rate`` says otherwise)."""
TARGET_P99_MS = 25.0
"""Target: paced at ``PACED_SHARE`` of the floor, a move's p99 at most this."""
KEPT_UP = 0.95
"""The paced run must take at least this share of the rate it is offered."""
ATTEMPTS = 20
"""A move failing this many times in a row stops the benchmark."""
RETRIED = (exc.OperationalError, exc.TimeoutError, AlreadyPlayed)
"""Failures a player would answer by trying again: locks, pool exhaustion, a busy match."""
FLOOR_SEQ, NAIVE_SEQ, CORE_SEQ = 100_000_000, 200_000_000, 300_000_000
"""Baseline events are numbered from here on, clear of the service's own and of each other's."""

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
    offered: float = 0.0
    """Moves/s offered to a paced run."""


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
    engine: AsyncEngine | None, label: str, work: Callable[[Tally], Awaitable[object]]
) -> Run:
    """Run ``work`` and gather its wall time, CPU time, and the SQL statements and commits on
    ``engine``."""
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


async def asyncpg_move(pool: asyncpg.Pool, match_id: int, seq: int) -> None:
    """One move on the raw driver: the least a move can cost on PostgreSQL."""
    now = datetime.now(UTC)
    async with pool.acquire() as connection, connection.transaction():
        row = await connection.fetchrow(SELECT_SQL.format("$1"), match_id)
        state = json.dumps(json.loads(row["state"]))
        changed = await connection.execute(
            UPDATE_SQL.format("$1", "$2", "$3", "$4"), state, now, match_id, row["version"]
        )
        if changed != "UPDATE 1":
            raise RuntimeError(f"match {match_id} changed under the floor")
        payload = json.dumps(event_payload(seq))
        await connection.execute(
            INSERT_SQL.format(*(f"${i}" for i in range(1, 8))),
            *(match_id, seq, 0, "action:action", None, payload, now),
        )


Move = Callable[[int, int], Awaitable[None]]
"""One baseline move: (match id, event seq)."""


async def run_per_move(
    engine: AsyncEngine | None,
    match_ids: Sequence[int],
    label: str,
    move: Move,
    first_seq: int,
    seconds: float,
) -> Run:
    """Every match at once, each move its own transaction, for ``seconds``."""
    deadline = time.perf_counter() + seconds

    async def one_match(match_id: int, tally: Tally) -> None:
        for seq in itertools.count(first_seq):
            if time.perf_counter() >= deadline:
                return
            started = time.perf_counter()
            await retrying(partial(move, match_id, seq), tally)
            tally.latencies.append(time.perf_counter() - started)

    async def work(tally: Tally) -> None:
        await asyncio.gather(*(one_match(m, tally) for m in match_ids))

    return await measured(engine, label, work)


def sqlite_floor(path: str, match_ids: Sequence[int], seconds: float) -> Run:
    """The matches taking turns on one stdlib connection for ``seconds``: the least a move can
    cost on SQLite."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.row_factory = sqlite3.Row
    for pragma in SQLITE_PRAGMAS:
        connection.execute(pragma)
    latencies: list[float] = []
    loop_cpu, process_cpu, wall = time.thread_time(), time.process_time(), time.perf_counter()
    deadline = wall + seconds
    turns = ((m, seq) for seq in itertools.count(FLOOR_SEQ) for m in match_ids)
    try:
        for match_id, seq in turns:
            started = time.perf_counter()
            if started >= deadline:
                break
            sqlite_move(connection, match_id, seq)
            latencies.append(time.perf_counter() - started)
    finally:
        connection.close()
    return Run(
        Timings("floor (sqlite3, 1 connection)", latencies, time.perf_counter() - wall),
        statements=3 * len(latencies),
        commits=len(latencies),
        loop_cpu=time.thread_time() - loop_cpu,
        process_cpu=time.process_time() - process_cpu,
    )


def sqlite_move(connection: sqlite3.Connection, match_id: int, seq: int) -> None:
    now = datetime.now(UTC).strftime(SQLITE_TIME)
    connection.execute("BEGIN")
    row = connection.execute(SELECT_SQL.format("?"), (match_id,)).fetchone()
    state = json.dumps(json.loads(row["state"]))
    changed = connection.execute(UPDATE_SQL.format(*"????"), (state, now, match_id, row["version"]))
    if changed.rowcount != 1:
        raise RuntimeError(f"match {match_id} changed under the floor")
    values = (match_id, seq, 0, "action:action", None, json.dumps(event_payload(seq)), now)
    connection.execute(INSERT_SQL.format(*"???????"), values)
    connection.execute("COMMIT")


async def postgresql_floor(url: URL, match_ids: Sequence[int], seconds: float) -> Run:
    """Every match at once on an asyncpg pool as large as the engine's, for ``seconds``."""
    size = POSTGRES_POOL["pool_size"] + POSTGRES_POOL["max_overflow"]
    pool = await asyncpg.create_pool(asyncpg_dsn(url), min_size=size, max_size=size)
    try:
        label = f"floor (asyncpg, pool of {size})"
        run = await run_per_move(
            None, match_ids, label, partial(asyncpg_move, pool), FLOOR_SEQ, seconds
        )
    finally:
        await pool.close()
    moves = run.timings.count
    return replace(run, statements=3 * moves, commits=moves)


# ---------------------------------------------------------------------- the run


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.service",
        description="Moves per second and latency per move through the match service, beside "
        "the raw driver's (the floor) measured in the same run.",
    )
    add_database_argument(parser)
    parser.add_argument("--matches", type=int, default=1000, help="matches in play at once")
    parser.add_argument("--game", choices=sorted(games.GAMES), help="one game (default: all mixed)")
    parser.add_argument(
        "--seconds",
        type=float,
        default=10.0,
        help="longest time for each run but the one-match-at-a-time one",
    )
    parser.add_argument(
        "--rate",
        type=float,
        help="moves/s offered in the paced run, across all matches "
        f"(default: {100 * PACED_SHARE:.0f}%% of the floor's; 0: skip that run)",
    )
    parser.add_argument(
        "--alone", type=int, default=200, help="moves in the one-match-at-a-time run (0: skip)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed for the games and actions")
    parser.add_argument(
        "--profile",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="then play flat out this long under cProfile and print where the time goes",
    )
    args = parser.parse_args(argv)
    if args.matches < 1:
        parser.error("--matches must be at least 1")
    return args


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
        runs, floor = await measure_all(args, url, engine, scripts, alone)
        report(runs, floor.timings.rate, args.matches, "SQLite" if is_sqlite(url) else "PostgreSQL")
    finally:
        await engine.dispose()


async def measure_all(
    args: argparse.Namespace,
    url: URL,
    engine: AsyncEngine,
    scripts: Sequence[Script],
    alone: Sequence[Script],
) -> tuple[list[Run], Run]:
    """Every run, and the floor's among them: the floor first, as the paced run's rate depends
    on it; then the service's runs, on matches of their own; then the naive and Core paths on
    the floor's matches."""
    service = MatchService(session_factory(engine), seeds=lambda: SEED.get())
    numbers = itertools.count()
    # The baselines play no game, they rewrite a match's state as it is: any open match serves.
    baseline = Lobby(service, scripts[: args.matches], numbers)
    match_ids = [live.match_id for live in await baseline.open_all(args.matches)]
    if is_sqlite(url):
        floor = sqlite_floor(sqlite_file(url), match_ids, args.seconds)
    else:
        floor = await postgresql_floor(url, match_ids, args.seconds)
    runs = [floor]
    if args.alone:
        quiet = [await open_match(service, next(numbers), s, Tally()) for s in alone]
        runs.append(
            await measured(
                engine,
                "service (1 match at a time)",
                lambda tally: play_alone(service, quiet, args.alone, tally),
            )
        )
    rate = PACED_SHARE * floor.timings.rate if args.rate is None else args.rate
    runs += await measure_concurrent(args, engine, service, scripts, numbers, rate)
    naive = partial(naive_move, session_factory(engine))
    core = partial(core_move, engine)
    for label, move, first_seq in (
        ("naive (session per move)", naive, NAIVE_SEQ),
        ("Core (connection per move)", core, CORE_SEQ),
    ):
        runs.append(await run_per_move(engine, match_ids, label, move, first_seq, args.seconds))
    if args.profile:
        matches = args.matches
        profiled = Lobby(service, write_scripts(2 * matches, args.game, random.Random(0)), numbers)
        await profile(service, await profiled.open_all(matches), profiled, args.profile)
    return runs, floor


async def measure_concurrent(
    args: argparse.Namespace,
    engine: AsyncEngine,
    service: MatchService,
    scripts: Sequence[Script],
    numbers: Iterator[int],
    rate: float,
) -> list[Run]:
    """The flat-out run, then the one paced at ``rate`` moves/s (none for 0), each on matches
    of its own."""
    matches = args.matches
    flat_lobby = Lobby(service, scripts[: 2 * matches], numbers)
    paced_lobby = Lobby(service, scripts[2 * matches :], numbers)
    lives = await flat_lobby.open_all(matches)
    flat = await measured(
        engine,
        f"service (flat out, {len(lives):,} matches)",
        lambda tally: play_all(service, lives, flat_lobby, 0.0, args.seconds, tally),
    )
    runs = [replace(flat, judged="rate")]
    if rate:
        lives = await paced_lobby.open_all(matches)
        paced = await measured(
            engine,
            f"service (paced at {rate:,.0f}/s, {len(lives):,} matches)",
            lambda tally: play_all(service, lives, paced_lobby, rate, args.seconds, tally),
        )
        runs.append(replace(paced, judged="latency", offered=rate))
    return runs


def report(runs: Sequence[Run], floor: float, matches: int, database: str) -> None:
    print()
    print_table(
        ("path", "moves", "moves/s", "of floor", "p50 ms", "p99 ms", "errors"),
        [
            (
                r.timings.path,
                r.timings.count,
                r.timings.rate,
                f"{r.timings.rate / floor:.0%}" if floor else "-",
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
    flat_share = FLAT_OUT_SHARE[database.lower()]
    print(
        f"targets ({database}, {matches:,} matches at once), as shares of the floor's "
        f"{floor:,.0f} moves/s in this run:"
    )
    for run in runs:
        if run.judged:
            print(f"  {_verdict(run, floor, flat_share)}")
    sqlite = database == "SQLite"
    print(
        "A move's latency runs from its first attempt until one succeeds; errors are failed "
        "attempts (retried).\nFlat out, p50 is about matches / (moves/s): time spent queueing. "
        "Of floor: the rate as a share of the raw driver's, measured in this run.\nStatements: "
        "SQL through SQLAlchemy's cursors (no BEGIN or COMMIT, no pool pings; the floor's are "
        "its three); the service's include opening "
        "the matches that replace those ended.\nLoop CPU: the event loop's thread; process CPU: "
        "the whole process"
        + (" (aiosqlite runs SQLite on a thread of its own)." if sqlite else ".")
    )


def _verdict(run: Run, floor: float, flat_share: float) -> str:
    """The target ``run`` is held against, what it measured and whether it meets it."""
    rate, path = run.timings.rate, run.timings.path
    if run.judged == "rate":
        target = f"flat out, at least {flat_share:.0%} of the floor's moves/s"
        if not floor:
            return f"{target}: not judged, no floor"
        met = rate >= flat_share * floor
        return f"{target}: {path} {rate:,.0f} moves/s, {rate / floor:.0%}: {_met(met)}"
    target = (
        f"paced at {PACED_SHARE:.0%} of the floor's moves/s, p99 at most {TARGET_P99_MS:.0f} ms, "
        f"taking at least {KEPT_UP:.0%} of the rate offered"
    )
    if not floor or run.offered < PACED_SHARE * floor:
        return f"{target}: not judged, {path} is paced below it"
    p99 = run.timings.ms(0.99)
    met = p99 <= TARGET_P99_MS and rate >= KEPT_UP * run.offered
    return (
        f"{target}: {path} p99 {p99:,.1f} ms, {rate:,.0f} of {run.offered:,.0f} moves/s "
        f"offered taken: {_met(met)}"
    )


def _met(met: bool) -> str:
    return "met" if met else "missed"


def _errors(errors: Counter[str]) -> str:
    if not errors:
        return "no failed attempts"
    return ", ".join(f"{count:,} {kind}" for kind, count in errors.most_common())


def _costs(run: Run) -> tuple[str, float, float, float, float, float]:
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
