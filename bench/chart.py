"""How long a rating chart takes to draw, and how large its PNG is.

Rating histories of 1, 50 and 1000 matches in 1 and 5 games (Glicko-2 ratings of a member
against random opponents) are drawn with ``bot.service.charts.rating_chart``, as is a server's
top ten with ``leaderboard_chart``. The baseline in the same run is the least any chart costs:
an empty ``Figure`` of the same size rendered to PNG on the Agg canvas. Budget: under 300 ms
and 150 KB per chart.

    python -m bench.chart [--repeat N]
"""

from __future__ import annotations

import argparse
import functools
import io
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from bench._common import percentile, print_table
from bot.service.charts import (
    DPI,
    SIZE,
    RatingPoint,
    leaderboard_chart,
    rating_chart,
)
from bot.service.ratings import DEFAULT, Rating, rate_match
from tests.service.test_charts import standing

TITLES = ("Capture the Crown", "Number Claim", "Crystal Capture", "Flag Chase", "Safe Cracker")
START = datetime(2026, 1, 1, tzinfo=UTC)
SPAN = timedelta(days=90)


def history(matches: int, seed: int) -> list[RatingPoint]:
    """A member's rating after each of ``matches`` matches against random opponents."""
    rng = random.Random(seed)
    skill = rng.gauss(1500, 200)
    rating = DEFAULT
    points = []
    for index in range(matches):
        opponent = Rating(rng.gauss(1500, 150), rng.uniform(50, 200), 0.06)
        expected = 1 / (1 + 10 ** ((opponent.rating - skill) / 400))
        rating, _ = rate_match(rating, opponent, 1.0 if rng.random() < expected else 0.0)
        at = START + SPAN * (index / max(matches - 1, 1))
        points.append(RatingPoint(at, rating.rating, rating.deviation))
    return points


def empty_png() -> bytes:
    """The baseline: an empty figure of a chart's size as PNG."""
    fig = Figure(figsize=(SIZE[0] / DPI, SIZE[1] / DPI), dpi=DPI)
    FigureCanvasAgg(fig)
    out = io.BytesIO()
    fig.savefig(out, format="png")
    return out.getvalue()


def measure(draw: Callable[[], bytes | None], repeat: int) -> tuple[list[float], int]:
    """Seconds per call of ``draw`` over ``repeat`` calls, and the size of its PNG in bytes."""
    seconds = []
    png = b""
    for _ in range(repeat):
        started = time.perf_counter()
        png = draw() or b""
        seconds.append(time.perf_counter() - started)
    return seconds, len(png)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="draws of each chart")
    args = parser.parse_args()
    until = START + SPAN + timedelta(days=3)
    cases: list[tuple[str, Callable[[], bytes | None]]] = [("empty figure (baseline)", empty_png)]
    for games in (1, 5):
        for matches in (1, 50, 1000):
            series = {TITLES[i]: history(matches, seed=i) for i in range(games)}
            label = f"rating: {games} game(s) x {matches} point(s)"
            cases.append((label, functools.partial(rating_chart, series, until=until)))
    rng = random.Random(10)
    top = sorted(
        (standing(f"Member {i}", rng.gauss(1600, 120), rng.uniform(45, 150)) for i in range(10)),
        key=lambda s: -s.rating,
    )
    cases.append(("leaderboard: top 10", functools.partial(leaderboard_chart, top)))
    rating_chart({TITLES[0]: history(2, seed=0)})  # font and module caches, outside the timings
    rows = []
    for label, draw in cases:
        seconds, size = measure(draw, args.repeat)
        rows.append(
            (
                label,
                f"{percentile(seconds, 0.5) * 1000:.0f}",
                f"{max(seconds) * 1000:.0f}",
                f"{size / 1024:.1f}",
            )
        )
    print(f"Chart = rating_chart or leaderboard_chart to PNG bytes; {args.repeat} draws each.")
    print("Baseline = an empty Figure of the same size rendered to PNG.")
    print("Budget: under 300 ms and 150 KB per chart.\n")
    print_table(("chart", "p50 ms", "max ms", "PNG KB"), rows)


if __name__ == "__main__":
    main()
