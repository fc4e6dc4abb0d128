"""What the host's metrics cost: the database's gauges read at a scrape, beside the cheapest
query there is, and one observation, beside a call that does nothing.

On a database of its own with ``--matches`` finished matches, a tenth as many in play, and
``--outbox`` outbox entries, each read runs ``--calls`` times on a connection of the engine, as
a scrape takes it: ``read_counts`` (the outbox's size and first due time, the matches in play by
status, the queues by game), and beside it ``SELECT 1`` (the health check's query, the floor of
any round trip). Then the text of a whole scrape (``generate_latest``) with every interaction
kind and transaction series filled, and one ``Metrics.transaction`` call, beside an empty method
call. A scrape reads the database at most once every ``bot.gauges.READ_KEPT`` seconds.

    python -m bench.metrics [--database-url URL] [--matches N] [--outbox N] [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta

from prometheus_client import CollectorRegistry
from prometheus_client.exposition import generate_latest
from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from bench._common import add_database_argument, describe, percentile, print_table, scratch_database
from bot.metrics import Metrics
from db.engine import create_engine
from db.gauges import answers, read_counts
from db.migrate import upgrade
from db.models import Match, MatchStatus, OutboxEntry, QueueEntry

GAMES = ("crown", "claim", "crystal", "flag", "safe")
KINDS = tuple(f"/{game} {verb}" for game in GAMES for verb in ("challenge", "move")) + tuple(
    f"button:{verb}" for verb in ("accept", "decline", "play", "secret", "rematch", "review")
)


async def fill(engine: AsyncEngine, matches: int, outbox: int) -> None:
    """``matches`` finished matches, a tenth as many in play, ``outbox`` entries, a queue."""
    rng = random.Random(1)
    now = datetime.now(UTC)
    in_play = (MatchStatus.CHALLENGED, MatchStatus.SETUP, MatchStatus.ACTIVE)
    rows = [
        {
            "guild_id": 1,
            "channel_id": 2,
            "game": rng.choice(GAMES),
            "seed": n,
            "status": MatchStatus.FINISHED if n < matches else rng.choice(in_play),
            "challenger_id": 10 + n % 997,
            "opponent_id": 11 + n % 991,
        }
        for n in range(matches + matches // 10)
    ]
    async with engine.begin() as connection:
        for start in range(0, len(rows), 10_000):
            await connection.execute(insert(Match), rows[start : start + 10_000])
        entries = [
            {
                "match_id": matches + 1 + n % max(1, matches // 10),
                "version": 1,
                "kind": "board",
                "due_at": now + timedelta(seconds=n),
            }
            for n in range(outbox)
        ]
        if entries:
            await connection.execute(insert(OutboxEntry), entries)
        queued = [
            {
                "user_id": 5000 + n,
                "guild_id": 1,
                "channel_id": 2,
                "game": GAMES[n % len(GAMES)],
                "rating": 1500.0,
                "joined_at": now,
            }
            for n in range(50)
        ]
        await connection.execute(insert(QueueEntry), queued)


async def timed(calls: int, work: Callable[[], Awaitable[object]]) -> list[float]:
    took = []
    for _ in range(calls):
        began = time.perf_counter()
        await work()
        took.append((time.perf_counter() - began) * 1000)
    return took


def per_call_ns(calls: int, work: Callable[[], object]) -> float:
    began = time.perf_counter()
    for _ in range(calls):
        work()
    return (time.perf_counter() - began) / calls * 1e9


class Nothing:
    def transaction(self, kind: str, outcome: str, seconds: float) -> None:
        return None


async def run(args: argparse.Namespace) -> None:
    async with scratch_database(args.database_url) as url:
        await upgrade(url.render_as_string(hide_password=False))
        engine = create_engine(url.render_as_string(hide_password=False))
        try:
            await fill(engine, args.matches, args.outbox)

            async def counts() -> object:
                async with engine.connect() as connection:
                    return await read_counts(connection)

            async def select_one() -> None:
                async with engine.connect() as connection:
                    await answers(connection)

            await counts()  # warm the pool and the statement caches
            await select_one()
            reads = await timed(args.calls, counts)
            floor = await timed(args.calls, select_one)
        finally:
            await engine.dispose()
        print(f"{describe(url)}: {args.matches:,} finished matches, "
              f"{args.matches // 10:,} in play, {args.outbox:,} outbox entries")  # fmt: skip
    metrics = Metrics(CollectorRegistry())
    for kind in KINDS:
        for outcome in ("ok", "refused", "failed"):
            metrics.interaction(kind, outcome, 0.2)
    for kind in ("core", "session"):
        for outcome in ("commit", "rollback"):
            metrics.transaction(kind, outcome, 0.004)
    text = await timed(args.calls, lambda: asyncio.to_thread(generate_latest, metrics.registry))
    size = len(generate_latest(metrics.registry))
    rows: list[Sequence[object]] = [
        ("SELECT 1 (floor), ms", percentile(floor, 0.5), percentile(floor, 0.99)),
        ("gauges' counts, ms", percentile(reads, 0.5), percentile(reads, 0.99)),
        (f"scrape text ({size:,} bytes), ms", percentile(text, 0.5), percentile(text, 0.99)),
    ]
    print_table(("read", "p50", "p99"), rows)
    print()
    observed = per_call_ns(args.observations, lambda: metrics.transaction("core", "commit", 0.004))
    nothing = Nothing()
    empty = per_call_ns(args.observations, lambda: nothing.transaction("core", "commit", 0.004))
    print_table(
        ("one observation", "ns"),
        [("empty method call (floor)", empty), ("Metrics.transaction", observed)],
    )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.metrics", description=__doc__)
    add_database_argument(parser)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--outbox", type=int, default=1_000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--observations", type=int, default=200_000)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    asyncio.run(run(parse_args(argv)))


if __name__ == "__main__":
    main()
