"""The quick-pair queue's waves: a crowd that joins at once, and how long one wave takes to decide.

1. A crowd: ``--crowd`` members (200) join one queue at once, with ratings spread as on a server
   that has played a while: 30% newcomers at 1500 (no rated game yet), the rest drawn from a
   normal distribution of mean 1500 and standard deviation 200, kept within 800..2200. Waves run
   every 5 seconds (``WAVE_EVERY``); each of ``--crowds`` crowds (1,000 seeds) counts the waves
   until nobody waits. Target: every member paired within two waves.
2. One wave with ``--waiting`` members (1,000), who have waited 0..60 seconds and one in ten
   with a last opponent among them, decided ``--repeats`` times. Beside it in the same run: sorting
   the same ratings (the least any rating-ordered method does), and rustworkx's
   ``max_weight_matching`` on the same members' gap graph (each member linked to its 6 nearest
   neighbours above within the gap), the library alternative. Target: at most 50 ms a wave.
   Starting the wave's matches is not counted (it is the service's, measured by bench.service).
3. The wave's reads on SQLite with ``--waiting`` members in the queue, each with 8 matches (half
   of them in play) among ``--matches`` (50,000) stored: the match limit's check
   (``db.queue.passed_over``) beside the read every wave made before it (``db.queue.claim``).

    python -m bench.queue [--crowd N] [--crowds N] [--waiting N] [--repeats N] [--matches N]
                          [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import rustworkx as rx
from sqlalchemy import insert

from bench._common import percentile, print_table
from bot.service.limits import MAX_PLAYING
from bot.service.queue_pairing import Waiting, allowed_gap, pair_wave
from bot.service.quick_pair import WAVE_EVERY
from db import queue
from db.engine import create_engine, session_factory
from db.models import Base, Match, MatchStatus, QueueEntry

NEWCOMERS = 0.3
MEAN, SPREAD, LOWEST, HIGHEST = 1500.0, 200.0, 800.0, 2200.0


def server_ratings(rng: random.Random, count: int) -> list[float]:
    """Ratings spread as on a server that has played a while (see the module's docstring)."""
    return [
        MEAN if rng.random() < NEWCOMERS else min(HIGHEST, max(LOWEST, rng.gauss(MEAN, SPREAD)))
        for _ in range(count)
    ]


def crowd_waves(seed: int, size: int) -> tuple[int, list[float]]:
    """The waves a crowd of ``size`` joining at once needs, and its pairs' rating gaps."""
    rng = random.Random(seed)
    waiting = {i: Waiting(i, r, 0.0) for i, r in enumerate(server_ratings(rng, size))}
    every = WAVE_EVERY.total_seconds()
    gaps: list[float] = []
    waves = 0
    while len(waiting) > 1:
        waves += 1
        for low, high in pair_wave(list(waiting.values())):
            gaps.append(waiting.pop(high).rating - waiting.pop(low).rating)
        waiting = {i: Waiting(i, m.rating, m.waited + every) for i, m in waiting.items()}
    return waves, gaps


def one_wave(seed: int, size: int) -> list[Waiting]:
    rng = random.Random(seed)
    ratings = server_ratings(rng, size)
    return [
        Waiting(i, r, rng.uniform(0, 60), rng.randrange(size) if rng.random() < 0.1 else None)
        for i, r in enumerate(ratings)
    ]


def library_wave(waiting: Sequence[Waiting]) -> list[tuple[int, int]]:
    """rustworkx's blossom on the gap graph: most pairs, then least total gap."""
    members = sorted(waiting, key=lambda m: m.rating)
    graph = rx.PyGraph()
    graph.add_nodes_from(range(len(members)))
    edges = []
    for i, low in enumerate(members):
        for j in range(i + 1, min(len(members), i + 7)):
            high = members[j]
            gap = high.rating - low.rating
            if gap <= allowed_gap(max(low.waited, high.waited)):
                edges.append((i, j, 100_000 - int(gap)))
    graph.add_edges_from(edges)
    matched = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    return [(members[i].user_id, members[j].user_id) for i, j in matched]


def timed(run: Callable[[], object], repeats: int) -> list[float]:
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        seconds.append(time.perf_counter() - start)
    return seconds


async def wave_reads(waiting: int, matches: int, repeats: int) -> list[tuple[str, str, str]]:
    """Median and slowest ms of the wave's two reads, on a new SQLite file."""
    spot = queue.Spot(1, 2, "crystal")
    now = datetime(2026, 1, 1, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as folder:
        engine = create_engine(f"sqlite+aiosqlite:///{Path(folder) / 'queue.db'}")
        try:
            async with engine.begin() as connection:
                await connection.run_sync(Base.metadata.create_all)
                await connection.execute(insert(QueueEntry), [
                    {"user_id": user, "guild_id": 1, "channel_id": 2, "game": "crystal",
                     "rating": 1500.0, "last_opponent_id": None, "joined_at": now,
                     "offered": False}
                    for user in range(1, waiting + 1)
                ])  # fmt: skip
                rng = random.Random(1)
                rows = []
                for number in range(matches):
                    queued = number < waiting * 8
                    player = number // 8 + 1 if queued else waiting + 1 + rng.randrange(10**6)
                    playing = queued and number % 2 == 0
                    status = MatchStatus.ACTIVE if playing else MatchStatus.FINISHED
                    rows.append({
                        "channel_id": 3, "game": "crown", "seed": number, "status": status.value,
                        "challenger_id": player, "opponent_id": 10**7 + rng.randrange(10**6),
                        "created_at": now, "updated_at": now,
                    })  # fmt: skip
                await connection.execute(insert(Match), rows)
            sessions = session_factory(engine)

            async def claim() -> Any:
                async with sessions() as session:
                    return await queue.claim(session, spot)

            claimed = [entry.user_id for entry in await claim()]

            async def passed() -> Any:
                async with sessions() as session:
                    return await queue.passed_over(session, spot, claimed, MAX_PLAYING)

            found = []
            for name, run in (
                ("claim: the queue's members (baseline)", claim),
                ("passed_over: who is at the match limit", passed),
            ):
                seconds = await timed_async(run, repeats)
                found.append((name, f"{statistics.median(seconds) * 1000:.2f}",
                              f"{max(seconds) * 1000:.2f}"))  # fmt: skip
            return found
        finally:
            await engine.dispose()


async def timed_async(run: Callable[[], Awaitable[object]], repeats: int) -> list[float]:
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        await run()
        seconds.append(time.perf_counter() - start)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crowd", type=int, default=200)
    parser.add_argument("--crowds", type=int, default=1000)
    parser.add_argument("--waiting", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--matches", type=int, default=50_000)
    parser.add_argument("--quick", action="store_true", help="a small run, to check it works")
    args = parser.parse_args()
    if args.quick:
        args.crowds, args.waiting, args.repeats, args.matches = 20, 200, 3, 2_000

    waves: Counter[int] = Counter()
    gaps: list[float] = []
    for seed in range(args.crowds):
        needed, pair_gaps = crowd_waves(seed, args.crowd)
        waves[needed] += 1
        gaps += pair_gaps
    print(f"1. {args.crowds} crowds of {args.crowd} joining at once, a wave every "
          f"{WAVE_EVERY.total_seconds():g} s")  # fmt: skip
    print_table(["waves until nobody waits", "crowds"], sorted(waves.items()))
    print(
        f"pairs' rating gap: median {statistics.median(gaps):.0f}, "
        f"p95 {percentile(gaps, 0.95):.0f}, largest {max(gaps):.0f}"
    )
    print("Target: every member paired within two waves.\n")

    waiting = one_wave(1, args.waiting)
    ratings = [m.rating for m in waiting]
    rows = []
    for name, run in (
        ("sorting the ratings (baseline)", lambda: sorted(ratings)),
        ("pair_wave", lambda: pair_wave(waiting)),
        ("rustworkx max_weight_matching", lambda: library_wave(waiting)),
    ):
        seconds = timed(run, args.repeats)
        rows.append((name, f"{statistics.median(seconds) * 1000:.2f}",
                     f"{max(seconds) * 1000:.2f}"))  # fmt: skip
    ours, library = pair_wave(waiting), library_wave(waiting)
    print(f"2. one wave with {args.waiting} waiting, {args.repeats} runs")
    print_table(["method", "median ms", "slowest ms"], rows)
    print(f"pairs: pair_wave {len(ours)}, rustworkx {len(library)}")
    print("Target: at most 50 ms a wave.")

    matches = max(args.matches, args.waiting * 8)
    reads = asyncio.run(wave_reads(args.waiting, matches, args.repeats))
    print(f"\n3. the wave's reads on SQLite, {args.waiting} waiting, {matches} matches stored, "
          f"{args.repeats} runs")  # fmt: skip
    print_table(["read", "median ms", "slowest ms"], reads)


if __name__ == "__main__":
    main()
