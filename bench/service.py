"""Moves per second, latency and CPU per move through the match service, beside the Core path's
measured in the same run.

Every match is challenged, accepted and then played with random legal actions (secrets and Crown
hints included) through the match service, on a real engine and database, each move sent as a
button press on the live board sends it: ``submit`` with the version the board showed, the board
riding on the interaction's response (``board=``, so no board outbox entry). The games are played
out beforehand, so the timed parts run the service alone. Each move is timed from its first
attempt until one succeeds. The runs, in order:

* the floor: ``--matches`` matches taking turns for ``--seconds``, each move one transaction of
  three statements (read the match, update it with a version check, append an event) on the raw
  driver: sqlite3 on one connection, or an asyncpg pool the engine's size. For reference only;
* the Core path, the yardstick: the floor's transaction on a Core connection of the engine, with
  statements built once, the matches all at once for ``--seconds``. Every rate is also given as
  a share of this one ("of Core"), which varies less between machines and hours than the rates;
* the service, one match at a time: its own time per move, with nothing to wait for;
* opening: ``--matches`` challenges and accepts at once, beside Core making two transactions for
  each of as many matches at once (as many transactions);
* the service flat out: ``--matches`` matches, each sending its next move as soon as the last is
  answered, for at most ``--seconds``. This measures capacity: a move's latency is then mostly
  queueing (about matches / moves per second);
* the service paced: as many new matches, their moves starting at ``--rate`` moves/s in all (open
  loop; by default half Core's rate), for at most ``--seconds``: latency under load;
* the floor's transaction through a SQLAlchemy session (the naive path), for ``--seconds``;
* transactions per move: a few matches played flat out each way a move arrives (button or slash
  command; board on the response or by the outbox), with the outbox running as in the bot and
  told what was shown, as Discord's side tells it. Transactions are counted by a ``begin``
  listener on the engine, so every one counts, whoever begins it.

CPU: "loop CPU" is ``time.thread_time()`` of the thread running the event loop over the run, the
Python of the service and of SQLAlchemy. On SQLite the statements run on that thread too
(``db.sqlite_inline``), so loop CPU and "process CPU" (``time.process_time()``, every thread) are
about the same. On PostgreSQL all is on the loop's thread but the server's own work, in its
processes.

    python -m bench.service [--database-url URL] [--matches N] [--game NAME] [--rate R]
                            [--profile SECONDS]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import itertools
import math
import os
import pstats
import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial

from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncEngine

import games
from bench._baselines import (
    CORE_SEQ,
    NAIVE_SEQ,
    OPENING_SEQ,
    core_move,
    naive_move,
    postgresql_floor,
    run_per_move,
    sqlite_floor,
)
from bench._common import (
    add_database_argument,
    describe,
    is_sqlite,
    print_table,
    scratch_database,
    sqlite_file,
)
from bench._service_play import (
    SEED,
    WAYS,
    Live,
    Lobby,
    Run,
    Script,
    Tally,
    Way,
    confirm,
    errors_text,
    measured,
    open_match,
    play_all,
    play_alone,
    write_scripts,
)
from bot.service.match_parts import MatchParts, match_parts
from bot.service.outbox import Outbox
from db.engine import create_engine, session_factory
from db.migrate import upgrade

CPU_RATIO = 1.3
"""Target: flat out, the service's loop CPU per move at most this many times Core's."""
FLAT_OUT_SHARE = 0.80
"""Target: flat out, the service's moves/s at least this share of Core's, at the same
concurrency."""
OPENING_RATIO = 2.0
"""Target: challenges and accepts at most this many times Core's time for as many
transactions."""
JUDGED = {"SQLite": ("cpu", "rate", "opening"), "PostgreSQL": ("rate",)}
"""The targets held on each database; the other figures are printed beside them."""
PACED_SHARE = 0.5
"""The paced run offers this share of Core's moves/s (unless ``--rate`` says otherwise)."""
WAY_MATCHES = 50
"""Matches played each way a move arrives, for the transactions per move."""


@dataclass(frozen=True)
class WayRun:
    """Transactions per move, one way a move arrives."""

    way: Way
    run: Run
    flushes: int
    """Outbox flushes that wrote, one transaction each."""


@dataclass
class Figures:
    """Everything one run of the bench measured."""

    runs: list[Run]
    """The table's paths, in order."""
    core: Run
    flat: Run
    opening: float
    """Seconds for ``--matches`` challenges and accepts at once."""
    core_opening: Run
    """Core making two transactions for each of as many matches, at once."""
    ways: list[WayRun]


class CountingOutbox(Outbox):
    """The bot's outbox, counting its flushes that wrote (one transaction each)."""

    flushes = 0

    async def flush(self) -> None:
        if self.pending:
            self.flushes += 1
        await super().flush()


# ---------------------------------------------------------------------- the run


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.service",
        description="Moves per second, latency and CPU per move through the match service, "
        "beside the Core path's measured in the same run.",
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
        f"(default: {100 * PACED_SHARE:.0f}%% of Core's; 0: skip that run)",
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
        figures = await measure_all(args, url, engine, scripts, alone)
        report(figures, args.matches, "SQLite" if is_sqlite(url) else "PostgreSQL")
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        await engine.dispose()


async def measure_all(
    args: argparse.Namespace,
    url: URL,
    engine: AsyncEngine,
    scripts: Sequence[Script],
    alone: Sequence[Script],
) -> Figures:
    """Every run: the floor and Core first, on matches of their own (the paced run's rate
    depends on Core's); then the service's, on matches of their own; then the naive path on the
    floor's matches; then the transactions of each way a move arrives."""
    service = match_parts(session_factory(engine), seeds=lambda: SEED.get())
    numbers = itertools.count()
    matches = args.matches
    # The baselines play no game, they rewrite a match's state as it is: any open match serves.
    baseline = Lobby(service, scripts[:matches], numbers)
    match_ids = [live.match_id for live in await baseline.open_all(matches)]
    _opened(len(match_ids), baseline)
    if is_sqlite(url):
        floor = sqlite_floor(sqlite_file(url), match_ids, args.seconds)
    else:
        floor = await postgresql_floor(url, match_ids, args.seconds)
    core_path = partial(core_move, engine)
    core = await run_per_move(
        engine, match_ids, "Core (connection per move)", core_path, CORE_SEQ, args.seconds
    )
    runs = [floor, core]
    if args.alone:
        quiet = [await open_match(service, next(numbers), s, Tally()) for s in alone]
        runs.append(
            await measured(
                engine,
                "service (1 match at a time)",
                lambda tally: play_alone(service, quiet, args.alone, tally),
            )
        )
    flat_lobby = Lobby(service, scripts[: 2 * matches], numbers)
    lives = await flat_lobby.open_all(matches)
    _opened(len(lives), flat_lobby)
    label = f"Core, 2 transactions on each of {len(match_ids):,} matches"
    core_opening = await run_per_move(
        engine, match_ids, label, core_path, OPENING_SEQ, math.inf, moves=2
    )
    flat = await measured(
        engine,
        f"service (flat out, {len(lives):,} matches)",
        lambda tally: play_all(lives, flat_lobby, 0.0, args.seconds, tally),
    )
    runs.append(flat)
    rate = PACED_SHARE * core.timings.rate if args.rate is None else args.rate
    if rate:
        paced_lobby = Lobby(service, scripts[2 * matches :], numbers)
        runs.append(await paced(args, engine, paced_lobby, rate))
    naive = partial(naive_move, session_factory(engine))
    label = "naive (session per move)"
    runs.append(await run_per_move(engine, match_ids, label, naive, NAIVE_SEQ, args.seconds))
    ways = []
    for n, way in enumerate(WAYS):
        few = scripts[n * WAY_MATCHES : (n + 1) * WAY_MATCHES]
        ways.append(await count_way(engine, service, few, numbers, way, args.seconds / 2))
    if args.profile:
        profiled = Lobby(service, write_scripts(2 * matches, args.game, random.Random(0)), numbers)
        await profile(await profiled.open_all(matches), profiled, args.profile)
    return Figures(runs, core, flat, flat_lobby.opening, core_opening, ways)


def _opened(count: int, lobby: Lobby) -> None:
    print(
        f"{count:,} matches challenged and accepted at once in {lobby.opening:.1f} s "
        f"({errors_text(lobby.tally.errors)})"
    )


async def paced(args: argparse.Namespace, engine: AsyncEngine, lobby: Lobby, rate: float) -> Run:
    """Moves starting at ``rate`` moves/s in all, on matches of their own."""
    lives = await lobby.open_all(args.matches)
    run = await measured(
        engine,
        f"service (paced at {rate:,.0f}/s, {len(lives):,} matches)",
        lambda tally: play_all(lives, lobby, rate, args.seconds, tally),
    )
    return replace(run, offered=rate)


async def count_way(
    engine: AsyncEngine,
    service: MatchParts,
    scripts: Sequence[Script],
    numbers: Iterator[int],
    way: Way,
    seconds: float,
) -> WayRun:
    """``scripts`` played flat out ``way`` (no match replaced) with the outbox flushing as in
    the bot, told what each move showed."""
    lobby = Lobby(service, scripts, numbers, way)
    lives = await lobby.open_all(len(scripts))
    outbox = CountingOutbox(service.runner.sessions)

    async def work(tally: Tally) -> None:
        try:
            await play_all(lives, lobby, 0.0, seconds, tally, partial(confirm, outbox))
        finally:
            await outbox.close()  # its last flush is counted

    return WayRun(way, await measured(engine, way.label, work), outbox.flushes)


# ---------------------------------------------------------------------- the report


def report(figures: Figures, matches: int, database: str) -> None:
    core = figures.core.timings.rate
    print()
    print_table(
        ("path", "moves", "moves/s", "of Core", "p50 ms", "p99 ms", "errors"),
        [
            (
                r.timings.path,
                r.timings.count,
                r.timings.rate,
                f"{r.timings.rate / core:.0%}" if core else "-",
                r.timings.ms(0.5),
                r.timings.ms(0.99),
                r.errors.total(),
            )
            for r in figures.runs
        ],
    )
    print()
    core_cpu = _per_move(figures.core.loop_cpu, figures.core)
    print_table(
        (
            "path",
            "statements/move",
            "transactions/move",
            "loop CPU ms/move",
            "of Core",
            "process CPU ms/move",
            "loop CPU %",
        ),
        [_costs(r, core_cpu) for r in figures.runs],
    )
    print()
    print_table(
        (
            "move (flat out, no match replaced)",
            "moves",
            "use case",
            "outbox flush",
            "transactions/move",
            "statements/move",
            "loop CPU ms/move",
        ),
        [_way_row(w) for w in figures.ways],
    )
    print()
    for run in [*figures.runs, *(w.run for w in figures.ways)]:
        if run.errors:
            print(f"failed attempts, {run.timings.path}: {errors_text(run.errors)}")
    print(f"targets ({database}, {matches:,} matches at once), against Core in this run:")
    for key, verdict in _verdicts(figures).items():
        judged = key in JUDGED[database]
        print(f"  {verdict[0]}: {verdict[1]}" + (f": {verdict[2]}" if judged else " (not judged)"))
    sqlite = database == "SQLite"
    print(
        "A move's latency runs from its first attempt until one succeeds; errors are failed "
        "attempts (retried).\nFlat out, p50 is about matches / (moves/s): time spent queueing. "
        "Of Core: as a share of the Core path's, measured in this run.\nStatements: SQL through "
        "SQLAlchemy's cursors (no BEGIN or COMMIT, no pool pings; the floor's are its three). "
        "Transactions: begun on the engine\n(the floor's: one per move); the service's runs "
        "include opening the matches that replace those ended. Per way: 'use case' is the\n"
        "move's own transactions, 'outbox flush' the outbox's writes of what was shown (one "
        "every 0.5 s while any) shared among the moves.\nLoop CPU: the event loop's thread; "
        "process CPU: the whole process"
        + (
            " (SQLite's statements run on the loop's thread, so in loop CPU too)."
            if sqlite
            else " (not the server's)."
        )
    )


def _verdicts(figures: Figures) -> dict[str, tuple[str, str, str]]:
    """Each target: what it asks, what was measured, and whether it is met."""
    flat, core = figures.flat, figures.core
    cpu = _per_move(flat.loop_cpu, flat) / max(_per_move(core.loop_cpu, core), 1e-9)
    share = flat.timings.rate / core.timings.rate if core.timings.rate else 0.0
    core_opening = figures.core_opening.timings.wall
    opening = figures.opening / core_opening if core_opening else math.inf
    transactions = figures.core_opening.timings.count
    return {
        "cpu": (
            f"flat out, loop CPU per move at most {CPU_RATIO}x Core's",
            f"{1000 * _per_move(flat.loop_cpu, flat):.2f} against "
            f"{1000 * _per_move(core.loop_cpu, core):.2f} ms, {cpu:.2f}x",
            _met(cpu <= CPU_RATIO),
        ),
        "rate": (
            f"flat out, at least {FLAT_OUT_SHARE:.0%} of Core's moves/s",
            f"{flat.timings.rate:,.0f} against {core.timings.rate:,.0f} moves/s, {share:.0%}",
            _met(share >= FLAT_OUT_SHARE),
        ),
        "opening": (
            f"challenges and accepts at most {OPENING_RATIO}x Core's time for as many transactions",
            f"{figures.opening:.2f} s against {core_opening:.2f} s for {transactions:,}, "
            f"{opening:.2f}x",
            _met(opening <= OPENING_RATIO),
        ),
    }


def _met(met: bool) -> str:
    return "met" if met else "missed"


def _per_move(total: float, run: Run) -> float:
    return total / max(run.timings.count, 1)


def _costs(run: Run, core_cpu: float) -> tuple[str, float, float, float, str, float, float]:
    loop = _per_move(run.loop_cpu, run)
    return (
        run.timings.path,
        _per_move(run.statements, run),
        _per_move(run.transactions, run),
        1000 * loop,
        f"{loop / core_cpu:.2f}x" if core_cpu else "-",
        1000 * _per_move(run.process_cpu, run),
        100 * run.loop_cpu / (run.timings.wall or 1.0),
    )


def _way_row(way: WayRun) -> tuple[str, int, float, float, float, float, float]:
    run = way.run
    return (
        way.way.label,
        run.timings.count,
        _per_move(run.transactions - way.flushes, run),
        _per_move(way.flushes, run),
        _per_move(run.transactions, run),
        _per_move(run.statements, run),
        1000 * _per_move(run.loop_cpu, run),
    )


async def profile(lives: Sequence[Live], lobby: Lobby, seconds: float) -> None:
    """Play flat out under cProfile (the event loop's thread) and print where the time goes."""
    profiler = cProfile.Profile()
    tally = Tally()
    profiler.enable()
    try:
        await play_all(lives, lobby, 0.0, seconds, tally)
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
