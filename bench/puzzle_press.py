"""Answering a puzzle by button beside a move by button, through the bot against the fake
Discord, in one run.

The real bot runs in this process against the loopback fake Discord (``tests/e2e/fake_discord``),
on a SQLite file of its own, with a clock that does not move and sweeps too rare to run. The
baseline: ``--matches`` Crystal Capture matches between two members, each move pressed by
button. The puzzles: one member asks ``/puzzle`` and answers ``--puzzles`` of the public pool in
turn (a choice, then Next puzzle). Each press is timed from the interaction sent to its response
(the board edited in it; the puzzle's message edited with the answer). Figures are printed,
never checked.

    python -m bench.puzzle_press [--matches 20] [--puzzles 60]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from pydantic import SecretStr

from bench._common import percentile, print_table
from bot.chat.components import Verb
from bot.settings import SWEEP_HIGH, Settings
from tests.e2e.bot_fixtures import Clock, Table, button
from tests.e2e.fake_discord import FakeDiscord, FakeMember, FakeMessage

CRYSTAL_MOVES = ("3", "2", "5", "1", "6", "9")
"""A whole Crystal Capture match, the challenger first (the bench's seeds seat them so)."""


async def timed_press(table: Table, who: FakeMember, message: FakeMessage, custom_id: str) -> float:
    """Seconds from the press sent to its response."""
    started = time.perf_counter()
    interaction = await table.fake.click(who, message, custom_id)
    await table.fake.wait_for_response(interaction)
    return time.perf_counter() - started


async def moves(table: Table, first: FakeMember, second: FakeMember, matches: int) -> list[float]:
    """Every move of ``matches`` Crystal Capture matches, pressed by button."""
    times = []
    for _match in range(matches):
        mark = table.checkpoint()
        answered = await table.slash(first, "crystal challenge", opponent=second)
        (challenge,) = answered.messages
        await table.click(second, challenge, Verb.ACCEPT)
        await table.posted("Coin toss", after=mark)
        board = table.board()
        for move in CRYSTAL_MOVES:
            to_act = first if f"<@{first.id}>, your move" in board.text else second
            times.append(await timed_press(table, to_act, board, button(board, Verb.PLAY, move)))
            board = table.board()
    return times


async def puzzles(table: Table, solver: FakeMember, count: int) -> list[float]:
    """``count`` puzzles answered in turn, each press of a choice timed."""
    asked = await table.slash(solver, "puzzle")
    (message,) = asked.messages
    times = []
    for _puzzle in range(count):
        choice = next(
            str(b["custom_id"]) for b in message.buttons if ":open" not in str(b["custom_id"])
        )
        times.append(await timed_press(table, solver, message, choice))
        (following,) = message.custom_ids
        interaction = await table.fake.click(solver, message, following)
        await table.fake.wait_for_response(interaction)
    return times


async def measure(directory: Path, matches: int, count: int) -> tuple[list[float], list[float]]:
    fake = FakeDiscord()
    await fake.start()
    try:
        with fake.patch_discord():
            guild = fake.add_guild("Bench")
            channel = fake.add_text_channel(guild, "games")
            first = fake.add_member(guild, fake.add_user("first"))
            second = fake.add_member(guild, fake.add_user("second"))
            settings = Settings(  # type: ignore[call-arg]
                _env_file=None,
                discord_token=SecretStr("unused: the fake Discord has its own"),
                database_url=f"sqlite+aiosqlite:///{directory / 'parlor.db'}",
                sweep_interval=SWEEP_HIGH,
                dev_guild_id=None,
            )
            table = Table(fake, channel, settings, Clock())
            async with table.running():
                await puzzles(table, first, 3)  # warm-up: the public pool stored
                await moves(table, first, second, 1)
                return await moves(table, first, second, matches), await puzzles(
                    table, second, count
                )
    finally:
        await fake.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--puzzles", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="parlor_bench_puzzle_") as name:
        move_times, puzzle_times = asyncio.run(measure(Path(name), args.matches, args.puzzles))
    print("A press by button, sent to its response, through the bot against the fake Discord")
    rows = [
        (label, len(times), *(f"{percentile(times, p) * 1000:.1f}" for p in (0.5, 0.9, 0.99)))
        for label, times in (
            ("Crystal Capture move (baseline)", move_times),
            ("puzzle answer", puzzle_times),
        )
    ]
    print_table(("press", "n", "p50 ms", "p90 ms", "p99 ms"), rows)


if __name__ == "__main__":
    main()
