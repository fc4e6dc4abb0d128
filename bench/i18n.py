"""What the catalogs cost a member's request: a board and a refusal rendered in German, against
the same in English, beside the bot's CPU per interaction in ``bench.e2e``.

* Board: a Crystal Capture move played and shown as members see it: the engine applies it and
  words its events, and the board post (content, embed, buttons) is built from the snapshot,
  as ``bot.chat.boards.render.board_post`` builds it after every move.
* Refusal: a move the rules refuse (a crystal already captured), worded for the member.
* ``_()``: one catalog lookup with a placeholder, the unit both are made of.

Each is timed inside ``bot.i18n.speaking(locale)``: German reads the catalogs Babel loaded
from the ``.po`` files; English is the message ids themselves. The baseline, measured in the
same run: Parlor's CPU per interaction answered, from ``bench.e2e``'s flat-out run (the bot
as ``python -m bot`` against the fake Discord; ``--matches`` of them at once), or the figure
given with ``--e2e-cpu-ms`` (as ``bench.e2e`` prints it, "CPU ms/interaction"). Target: what
the catalogs add to a board and a refusal at most 5% of that. Also printed: the catalogs'
loading at start, once per language and process.

    python -m bench.i18n [--repeat N] [--matches 20 | --e2e-cpu-ms MS]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import games
from bench._common import percentile, print_table
from bot.chat.boards.render import board_post
from bot.i18n import _, catalog, speaking
from bot.service.notices import MatchSnapshot
from games.base import Ask, GameError
from games.crystal import Capture

LANGUAGES = ("en-US", "de")
TARGET_SHARE = 0.05
"""Target: the catalogs add at most this share of the bot's CPU per interaction."""
PLAYERS = (10**17 + 1, 10**17 + 2)
MOVES = ("5", "9", "4")
"""Crystal Capture captures before the timed one: seat 0, seat 1, seat 0."""
TIMED_MOVE = "2"
REFUSED = 9
"""Already captured when the refusal is asked for."""


def crystal_match() -> tuple[Any, Any]:
    """The engine and a Crystal Capture state a few moves in, seat 1 to move."""
    engine = games.get("crystal")
    state = engine.new({}, 7)
    for index, text in enumerate(MOVES):
        state, _events = engine.apply(state, index % 2, engine.parse(state, index % 2, text))
    return engine, state


def snapshot(engine: Any, state: Any, version: int) -> MatchSnapshot:
    """The snapshot the match service reports for ``state`` (no secrets in Crystal Capture)."""
    seats = sorted(engine.to_act(state))
    return MatchSnapshot(
        id=42,
        guild_id=1,
        channel_id=2,
        game="crystal",
        options=engine.options(state),
        status="active",
        version=version,
        challenger_id=PLAYERS[0],
        opponent_id=PLAYERS[1],
        players=PLAYERS,
        to_act=tuple(PLAYERS[s] for s in seats),
        asks={PLAYERS[s]: Ask.ACTION for s in seats},
        public_view=engine.view(state, None),
        deadline=None,
        deadline_kind=None,
        winner_id=None,
        end_reason=None,
        message_id=3,
    )


def board(engine: Any, state: Any) -> Callable[[], object]:
    """One move shown: applied, its events worded, the board post built."""
    names = tuple(f"<@{p}>" for p in PLAYERS)

    def show() -> object:
        seat = 1
        after, events = engine.apply(state, seat, engine.parse(state, seat, TIMED_MOVE))
        lines = [event.render(names) for event in events if event.public]
        post = board_post(snapshot(engine, after, len(MOVES) + 1), lines)
        return post.embed.to_dict() if post.embed is not None else post.content

    return show


def refusal(engine: Any, state: Any) -> Callable[[], str]:
    """A refused move worded for the member."""

    def refuse() -> str:
        try:
            engine.apply(state, 1, Capture(REFUSED))
        except GameError as error:
            return str(error)
        raise AssertionError("the move was not refused")

    return refuse


def lookup() -> str:
    return _("{language} is the language of this server.", language="Deutsch")


def timed(work: Callable[[], object], repeat: int) -> dict[str, float]:
    """The median seconds of ``work`` in each language, over ``repeat`` batches of each taken
    in turn (so a change of the machine's load falls on both alike)."""
    batch = 200
    times: dict[str, list[float]] = {locale: [] for locale in LANGUAGES}
    for locale in LANGUAGES:
        with speaking(locale):
            work()
    for _round in range(repeat):
        for locale in LANGUAGES:
            with speaking(locale):
                started = time.perf_counter()
                for _call in range(batch):
                    work()
                times[locale].append((time.perf_counter() - started) / batch)
    return {locale: percentile(taken, 0.5) for locale, taken in times.items()}


def loading(locale: str) -> float:
    """Seconds to read a language's catalogs from the ``.po`` files (once per process)."""
    catalog.cache_clear()
    started = time.perf_counter()
    catalog(locale)
    return time.perf_counter() - started


async def e2e_cpu_ms(matches: int) -> float:
    """Parlor's CPU per interaction answered in ``bench.e2e``'s flat-out run, in ms."""
    from bench.e2e import measure_latency

    with tempfile.TemporaryDirectory(prefix="parlor_bench_i18n_") as name:
        figures, _errors = await measure_latency(matches, Path(name), floor=False)
    return figures.cpu_ms()


def main(arguments: argparse.Namespace) -> None:
    print(
        f"Python {sys.version.split()[0]}; the median of {arguments.repeat} batches of 200 in "
        "each language, the languages taking turns"
    )
    load = loading("de")
    engine, state = crystal_match()
    paths: list[tuple[str, Callable[[], object]]] = [
        ("board after a move", board(engine, state)),
        ("refusal", refusal(engine, state)),
        ("one _() with a placeholder", lookup),
    ]
    figures = {
        (name, locale): seconds
        for name, work in paths
        for locale, seconds in timed(work, arguments.repeat).items()
    }
    if arguments.e2e_cpu_ms is not None:
        baseline, source = arguments.e2e_cpu_ms, "given with --e2e-cpu-ms"
    else:
        baseline = asyncio.run(e2e_cpu_ms(arguments.matches))
        source = f"bench.e2e flat out, {arguments.matches} matches, this run"

    def share(seconds: float) -> str:
        return f"{100 * 1000 * seconds / baseline:.2f}%" if baseline else "-"

    rows = []
    for name, _work in paths:
        english, german = figures[(name, "en-US")], figures[(name, "de")]
        rows.append([name, 1e6 * english, 1e6 * german, 1e6 * (german - english), share(german)])
    print(f"Rendered in English and in German (µs); baseline: {baseline:.2f} ms CPU per")
    print(f"interaction ({source})")
    print_table(
        ["path", "English µs", "German µs", "catalogs add µs", "German, share of baseline"], rows
    )
    both = ("board after a move", "refusal")
    german = sum(figures[(name, "de")] for name in both)
    added = german - sum(figures[(name, "en-US")] for name in both)
    print(f"loading the German catalogs at start (once per process): {1000 * load:.1f} ms")
    met = bool(baseline) and 1000 * added <= TARGET_SHARE * baseline
    print(
        f"target: the catalogs add at most {100 * TARGET_SHARE:.0f}% of the CPU per "
        f"interaction to a board and a refusal: {1e6 * added:.1f} µs, {share(added)} "
        f"(German in all {1e6 * german:.1f} µs, {share(german)}): {'met' if met else 'missed'}"
    )


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.i18n", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--repeat", type=int, default=30, help="timed batches of each path")
    baseline = parser.add_mutually_exclusive_group()
    baseline.add_argument(
        "--matches",
        type=int,
        default=20,
        help="matches at once in the bench.e2e run measuring the baseline",
    )
    baseline.add_argument(
        "--e2e-cpu-ms",
        type=float,
        help="the baseline as bench.e2e printed it (CPU ms/interaction), instead of a run",
    )
    return parser.parse_args(argv)


if __name__ == "__main__":
    main(parse_arguments())
