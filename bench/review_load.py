"""Thirty members pressing Review on one finished Safe Cracker match at the same moment.

A Safe Cracker match played by the built-in players is finished through the match service on a
scratch SQLite database (the same match several times, so each path below finds it with no
review kept). A ticker task sleeps 5 ms again and again and records how late it wakes: the
event loop's lag, which every other member's buttons wait through. Measured in one run:

- idle: the ticker alone (the loop's own lag on this machine);
- threads, each press: the release before, every press computing the review in a worker
  thread (30 computations, each holding the interpreter lock the loop needs);
- threads, once: ``Replays`` with one computation for all (single flight), still in a thread;
- process pool: ``Replays`` as the bot is wired, one computation in a worker process.

Target: the process pool computes once and keeps the lag's p99 at most 20 ms.

    python -m bench.review_load [--presses N] [--workers N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bench._common import percentile, print_table, scratch_database
from bench.review import finished_match
from bot.service.match_parts import MatchParts, match_parts
from bot.service.replays import Replays, judging_of, review_of
from bot.service.review_work import judge
from bot.service.reviews import FairUse, Reviewer, review_pool
from db.engine import create_engine, session_factory
from db.migrate import upgrade
from games import get

GAME, OPTIONS, SEED = "safe", {"digits": 9, "length": 6}, 2
"""Hard against hard (``bench.review``'s pairing for seed 2) on a larger shape."""
GUILD, CHANNEL, ALICE, BOB = 1, 2, 10**17, 10**17 + 1
TICK = 0.005
TARGET_MS = 20.0


async def finish_match(service: MatchParts) -> int:
    """The scripted Safe Cracker match played through the service to its end."""
    engine = get(GAME)
    log, ended = finished_match(engine, dict(OPTIONS), SEED)
    assert ended is None, "the scripted match ends by its rules"
    report = await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger_id=ALICE,
        opponent_id=BOB,
        game=GAME,
        options=dict(OPTIONS),
    )
    report = await service.challenges.accept(report.match.id, BOB)
    players = report.match.players
    for seat, _ask, text in log:
        report = await service.play.submit(report.match.id, players[seat], text)
    assert report.match.status == "finished"
    return report.match.id


class Ticker:
    """How late a task sleeping ``TICK`` seconds at a time wakes up."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self.task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(TICK)
            self.lags.append(time.perf_counter() - started - TICK)

    def __enter__(self) -> Ticker:
        self.task = asyncio.get_running_loop().create_task(self._run())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.task is not None
        self.task.cancel()


Row = tuple[str, str, str, str, str, str]


async def measure(label: str, rounds: list[Callable[[], Awaitable[int]]]) -> Row:
    """Run each round's presses (answering how many computations they made) under the ticker,
    one round after another; the lag is every round's together."""
    lags: list[float] = []
    walls: list[float] = []
    computed: list[int] = []
    for presses in rounds:
        with Ticker() as ticker:
            await asyncio.sleep(0.05)  # the ticker running before the presses come
            started = time.perf_counter()
            computed.append(await presses())
            walls.append(time.perf_counter() - started)
            await asyncio.sleep(0.05)
        lags += ticker.lags
    return (
        label,
        "/".join(sorted({str(n) for n in computed})),
        f"{percentile(walls, 0.5) * 1e3:.0f}",
        f"{percentile(lags, 0.5) * 1e3:.2f}",
        f"{percentile(lags, 0.99) * 1e3:.2f}",
        f"{max(lags, default=0.0) * 1e3:.1f}",
    )


async def scenarios(
    sessions: async_sessionmaker[AsyncSession],
    matches: list[int],
    members: list[int],
    pool: ProcessPoolExecutor,
) -> list[Row]:
    """Each path's row; each round of a path on a match of its own with no review kept yet."""
    fair = FairUse(len(members) * len(matches))

    async def nothing() -> int:
        await asyncio.sleep(0.3)
        return 0

    def threads_each_press(match_id: int) -> Callable[[], Awaitable[int]]:
        async def presses() -> int:
            replays = Replays(sessions)

            async def press() -> None:  # as the release before answered a press
                found = await replays.finished(GUILD, match_id)
                await asyncio.to_thread(review_of, found)

            await asyncio.gather(*(press() for _ in members))
            return len(members)

        return presses

    def through(
        executor: ProcessPoolExecutor | None, match_id: int
    ) -> Callable[[], Awaitable[int]]:
        async def presses() -> int:
            reviewer = Reviewer(executor)
            replays = Replays(sessions, reviewer=reviewer, fair_use=fair)
            await asyncio.gather(*(replays.review(GUILD, match_id, m) for m in members))
            return reviewer.computed

        return presses

    # Every worker process started and its imports done before the clock runs.
    found = await Replays(sessions).finished(GUILD, matches[0])
    loop = asyncio.get_running_loop()
    await asyncio.gather(*(loop.run_in_executor(pool, judge, judging_of(found)) for _ in range(8)))
    review_of(found)  # and this process's, for the thread paths
    rounds = len(matches) // 3
    each, once, pooled = matches[:rounds], matches[rounds : 2 * rounds], matches[2 * rounds :]
    return [
        await measure("idle", [nothing] * rounds),
        await measure("threads, each press (before)", [threads_each_press(m) for m in each]),
        await measure("threads, once (single flight)", [through(None, m) for m in once]),
        await measure("process pool, once (now)", [through(pool, m) for m in pooled]),
    ]


async def run(presses: int, workers: int | None, rounds: int) -> None:
    async with scratch_database(None) as url:
        engine = create_engine(url.render_as_string(hide_password=False))
        try:
            await upgrade(engine)
            sessions: async_sessionmaker[AsyncSession] = session_factory(engine)
            service = match_parts(sessions, seeds=lambda: SEED)
            matches = [await finish_match(service) for _ in range(3 * rounds)]
            found = await Replays(sessions).finished(GUILD, matches[0])
            started = time.perf_counter()
            review_of(found)
            alone = time.perf_counter() - started
            members = [ALICE + 10 + n for n in range(presses)]
            pool = review_pool(workers)
            try:
                rows = await scenarios(sessions, matches, members, pool)
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
        finally:
            await engine.dispose()
    count = workers or os.cpu_count() or 1
    print(
        f"{presses} members press Review at once on one finished Safe Cracker match "
        f"({GAME}, {OPTIONS}, {len(found.actions)} actions; one review takes "
        f"{alone * 1e3:.0f} ms here). Lag: how late a {TICK * 1e3:.0f} ms sleep wakes. "
        f"Pool: {count} worker processes. {rounds} rounds per path, each on a match with no "
        "review kept; computed: per round; wall: the median round's.\n"
    )
    print_table(("path", "computed", "wall ms", "lag p50 ms", "lag p99 ms", "lag max ms"), rows)
    p99 = float(rows[-1][4])
    met = rows[-1][1] == "1" and p99 <= TARGET_MS
    print(
        f"\nTarget (process pool): 1 computation and lag p99 at most {TARGET_MS:.0f} ms: "
        f"{'met' if met else 'NOT met'}."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=30, help="members pressing at once")
    parser.add_argument("--workers", type=int, default=None, help="pool size (default: CPUs)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of presses per path")
    args = parser.parse_args()
    asyncio.run(run(args.presses, args.workers, args.rounds))


if __name__ == "__main__":
    main()
