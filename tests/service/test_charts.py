"""The charts of ``/stats``: real PNGs of the asked size and budget, for any amount of history."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import math
import random
import struct
import threading
import warnings
from datetime import UTC, datetime, timedelta

import pytest
from PIL import Image

from bot.service.charts import (
    BACKGROUND,
    LEGEND_ROW,
    MAX_STEPS,
    SEASON_COLOUR,
    SIZE,
    RatingPoint,
    Standing,
    _thin,
    draw,
    leaderboard_chart,
    rating_chart,
)
from bot.service.stats import Line

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
START = datetime(2026, 1, 1, 18, tzinfo=UTC)
TITLES = ("Capture the Crown", "Number Claim", "Crystal Capture", "Flag Chase", "Safe Cracker")


def standing(name: str, rating: float, deviation: float) -> Standing:
    """A leaderboard row as a chart reads it: a name, a rating and its deviation."""
    return Standing(0, 0, Line("crown", False, 0, 0, 0, 0, 0, "", rating, deviation), name)


def history(matches: int, seed: int = 0) -> list[RatingPoint]:
    """A random walk from 1500 ± 500 whose deviation settles towards 50, a match every 3 hours."""
    rng = random.Random(seed)
    rating, deviation = 1500.0, 500.0
    points = []
    for index in range(matches):
        rating += rng.gauss(0, deviation / 10)
        deviation = max(50.0, deviation * 0.9)
        points.append(RatingPoint(START + timedelta(hours=3 * index), rating, deviation))
    return points


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from the PNG's IHDR chunk, which must come first."""
    assert png[:8] == PNG_SIGNATURE
    length, kind, width, height = struct.unpack(">I4sII", png[8:24])
    assert (length, kind) == (13, b"IHDR")
    return width, height


def decoded(png: bytes) -> Image.Image:
    """The PNG decoded in full: a damaged file raises here."""
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.size == png_size(png)
    return image


def test_no_history_draws_nothing() -> None:
    assert rating_chart({}) is None
    assert rating_chart({TITLES[0]: [], TITLES[1]: []}) is None
    assert leaderboard_chart([]) is None


@pytest.mark.parametrize("matches", [1, 2, 50, 1000])
def test_one_game_is_a_png_of_the_default_size(matches: int) -> None:
    png = rating_chart({TITLES[0]: history(matches)})

    assert png is not None
    assert png_size(png) == SIZE
    assert decoded(png).size == SIZE


def test_a_single_match_draws_with_and_without_a_time_to_carry_it_to() -> None:
    lone = {TITLES[0]: history(1)}

    alone = rating_chart(lone)
    carried = rating_chart(lone, until=START + timedelta(days=5))

    assert alone is not None and carried is not None
    assert alone != carried


def test_a_game_without_points_is_left_out_of_the_legend() -> None:
    with_empty = rating_chart({TITLES[0]: history(20), TITLES[1]: []})

    assert with_empty == rating_chart({TITLES[0]: history(20)})


def test_the_chart_grows_by_a_row_for_each_further_legend_row() -> None:
    five = {title: history(50, seed) for seed, title in enumerate(TITLES)}

    png = rating_chart(five)

    # Five games and the range's entry in two columns: three rows, two more than one.
    assert png is not None
    assert png_size(png) == (SIZE[0], SIZE[1] + 2 * LEGEND_ROW)


def test_a_size_given_is_kept_exactly() -> None:
    five = {title: history(50, seed) for seed, title in enumerate(TITLES)}

    png = rating_chart(five, size=(640, 360))

    assert png is not None
    assert png_size(png) == (640, 360)


def test_five_games_of_a_thousand_matches_stay_under_150_kb() -> None:
    five = {title: history(1000, seed) for seed, title in enumerate(TITLES)}

    png = rating_chart(five, until=START + timedelta(days=400))

    assert png is not None
    assert len(png) < 150 * 1024
    decoded(png)


def test_the_background_is_opaque_and_dark() -> None:
    png = rating_chart({TITLES[0]: history(10)})

    assert png is not None
    corner = decoded(png).convert("RGBA").getpixel((0, 0))
    assert corner == (*bytes.fromhex(BACKGROUND[1:]), 255)


def with_reset(points: list[RatingPoint], index: int) -> list[RatingPoint]:
    """``points`` with a season's soft reset between ``index - 1`` and ``index``: the rating
    kept, the deviation widened."""
    last, following = points[index - 1], points[index]
    reset = RatingPoint(
        last.at + (following.at - last.at) / 2,
        last.rating,
        math.hypot(last.deviation, 60.0),
        reset=True,
    )
    return [*points[:index], reset, *points[index:]]


def season_line_pixels(png: bytes) -> int:
    """Pixels of exactly the season line's colour, which nothing else on a chart is drawn in."""
    colour = tuple(bytes.fromhex(SEASON_COLOUR[1:]))
    found = decoded(png).convert("RGB").getcolors(SIZE[0] * SIZE[1] * 2) or []
    return sum(count for count, drawn in found if drawn == colour)


def test_a_seasons_reset_draws_a_line_across_and_names_it_only_when_there_is_one() -> None:
    points = with_reset(history(20), 10)
    as_a_match = [dataclasses.replace(p, reset=False) for p in points]

    drawn = rating_chart({TITLES[0]: points})
    named = rating_chart({TITLES[0]: points}, season_label="new season")
    plain = rating_chart({TITLES[0]: as_a_match}, season_label="new season")

    assert drawn is not None and named is not None and plain is not None
    assert season_line_pixels(drawn) > 250  # across the chart's height
    assert season_line_pixels(named) > season_line_pixels(drawn)  # and in the legend
    assert season_line_pixels(plain) == 0
    # Without a reset, no legend entry: the label given changes nothing.
    assert rating_chart({TITLES[0]: history(20)}, season_label="new season") == rating_chart(
        {TITLES[0]: history(20)}
    )


def test_thinning_a_long_history_keeps_every_seasons_reset() -> None:
    points = history(1000)
    for index in (333, 500, 667):
        points = with_reset(points, index)

    kept = _thin(points, MAX_STEPS)

    assert sum(p.reset for p in kept) == 3
    assert len(kept) <= MAX_STEPS + 3 and (kept[0], kept[-1]) == (points[0], points[-1])
    assert kept == sorted(kept, key=lambda p: p.at)


def test_points_out_of_order_draw_as_in_order() -> None:
    points = history(30)

    assert rating_chart({TITLES[0]: points[::-1]}) == rating_chart({TITLES[0]: points})


def test_german_and_french_labels_draw() -> None:
    games = {"Kristallfänger": history(30, 1), "Drapeau à capturer": history(12, 2)}

    png = rating_chart(
        games,
        title="Wertung von Zoë — Éloïse",
        y_label="Wertung (Glicko-2)",
        x_label="Datum",
        band_label="wahrscheinlicher Bereich, ±2 Abweichungen",
    )

    assert png is not None
    decoded(png)


def test_dollar_signs_in_names_are_text_not_math() -> None:
    # "$\\frac$" is broken mathtext: read as math, it would raise.
    png = rating_chart({r"a$\frac$b": history(5)}, title=r"$\frac$")
    board = leaderboard_chart([standing(r"x$\frac$y", 1600, 60)])

    assert png is not None and board is not None


def test_characters_the_font_lacks_are_left_out_without_a_warning() -> None:
    standings = [
        standing("Ærwyn 🔥", 1720, 60),
        standing("李小龙", 1650, 80),
        standing("Noor", 1610, 120),
    ]

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        board = leaderboard_chart(standings)
        chart = rating_chart({"🎲 Flag Chase 旗": history(10)}, title="Zoë 🏆")

    assert board is not None and chart is not None


def test_the_top_ten_draw_as_a_png_of_the_default_size() -> None:
    rng = random.Random(4)
    standings = sorted(
        (standing(f"Member {i}", rng.gauss(1600, 150), rng.uniform(45, 200)) for i in range(10)),
        key=lambda s: -s.rating,
    )

    png = leaderboard_chart(standings, title="Bestenliste", x_label="Wertung")

    assert png is not None
    assert png_size(png) == SIZE
    assert len(png) < 150 * 1024
    decoded(png)


def test_a_long_name_is_cut_and_still_draws() -> None:
    png = leaderboard_chart([standing("g" * 200, 1500, 350), standing(" ", 1400, 50)])

    assert png is not None
    decoded(png)


async def test_draw_runs_the_chart_in_a_worker_thread() -> None:
    loop_thread = threading.get_ident()
    seen: list[int] = []

    def render(games: dict[str, list[RatingPoint]]) -> bytes | None:
        seen.append(threading.get_ident())
        return rating_chart(games)

    png = await draw(render, {TITLES[0]: history(20)})

    assert png is not None
    assert seen and seen[0] != loop_thread


async def test_charts_drawn_at_once_in_threads_match_those_drawn_one_by_one() -> None:
    inputs = [{title: history(40 + seed, seed)} for seed, title in enumerate(TITLES)]
    one_by_one = [rating_chart(games) for games in inputs]

    together = await asyncio.gather(*(draw(rating_chart, games) for games in inputs))

    assert list(together) == one_by_one
