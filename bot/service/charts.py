"""Charts for ``/stats``: a member's rating over time, and a server's top ratings, as PNG bytes.

Drawing only: the caller gathers the numbers and passes every word shown (titles, axis labels,
game titles, names) in its reader's language; a title or a band's legend left out is not drawn.
Drawn with matplotlib's object API on the Agg canvas, never ``pyplot``: no global figure
registry, no GUI backend and no global style is touched, so each call owns its ``Figure``.

Matplotlib is not thread-safe for a figure shared between threads nor for ``pyplot``'s global
state, but separate ``Figure`` objects may be built in separate threads on the Agg canvas:
since matplotlib 3.8 ``Figure.draw`` holds one lock shared by all figures while it rasterises
(it guards the font caches), so two charts never rasterise at once. Nothing here changes
``rcParams``; every colour and size is passed to the artist it is for. ``draw`` runs a chart in
a worker thread so the event loop never waits on one.

The colours suit Discord's dark theme (messages on #313338): an opaque background a shade
darker, light text, and line colours from the Okabe-Ito palette, which colour-blind readers
can tell apart, lightened where they were too dark to read on it.
"""

from __future__ import annotations

import asyncio
import functools
import io
import math
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import ParamSpec, TypeVar

from matplotlib import dates as mdates
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties, findfont
from matplotlib.ft2font import FT2Font
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text

from bot.service.ratings import Rating, display
from bot.service.stats import Standing as Standing
from db.after_match import RatingPoint as RatingPoint

P = ParamSpec("P")
R = TypeVar("R")

SIZE = (800, 450)
"""Pixels (width, height): wide enough for dates, small enough to stay well under 150 KB."""
DPI = 100
LEGEND_ROW = 34
"""Pixels a rating chart grows by for each further row of its legend."""
BAND = 2.0
"""The band spans rating ± BAND deviations: about 95% of where the true rating lies."""
MAX_STEPS = 400
"""Points drawn per game at most: about one per two pixels of an 800-pixel chart."""
DOTS = 30
"""Games with at most this many points mark each match with a dot."""
NAME_LENGTH = 18
"""A leaderboard name is cut to this many characters, so the bars keep most of the width."""
SETTLED_BAND = 150.0
"""A line's y-axis shows bands up to this far from it; wider (early) bands run off it."""
SEASON_COLOUR = "#b5bac1"
"""A season's soft reset: a dashed line of this colour across the chart, over the grid and the
bands, under the ratings."""
SEASON_DASHES = (0.0, (5.0, 4.0))

BACKGROUND = "#232428"
GRID = "#3f4147"
TEXT = "#dbdee1"
MUTED = "#949ba4"
COLOURS = ("#56b4e9", "#e69f00", "#2ec4a0", "#f0e442", "#e07fb4", "#ff7b4a", "#a3a8ff")
"""One per game, in the order given: sky blue, orange, green, yellow, pink, vermilion, lilac."""

FONT = "DejaVu Sans"
"""Shipped with matplotlib, so every machine draws the same glyphs."""
TITLE_SIZE = 22
LABEL_SIZE = 16
TICK_SIZE = 16
LEGEND_SIZE = 16

DATE_FORMATS = ("%Y", "%Y-%m", "%m-%d", "%H:%M", "%H:%M", "%S")
DATE_ZERO_FORMATS = ("", "%Y", "%m-%d", "%m-%d", "%H:%M", "%H:%M")
DATE_OFFSET_FORMATS = ("", "%Y", "%Y-%m", "%Y-%m-%d", "%Y-%m-%d", "%Y-%m-%d %H:%M")
"""ISO-style numbers: month names would come from the process's locale, not the member's."""


def rating_chart(
    games: Mapping[str, Sequence[RatingPoint]],
    *,
    title: str = "",
    y_label: str = "",
    x_label: str = "",
    band_label: str = "",
    season_label: str = "",
    until: datetime | None = None,
    size: tuple[int, int] | None = None,
) -> bytes | None:
    """A PNG of each game's rating over time with its likely range; None when no game has points.

    ``games`` maps a game's shown title to its points, in any order; games are coloured in the
    order given, and each legend entry ends with the game's latest rating as ``/stats`` shows
    it (``1500?`` while provisional). Each line steps at every match (dates in UTC); the shaded
    band is rating ± 2 deviations (``band_label``, when given, names it in the legend). A
    season's soft reset is no match: it has no dot, the band widens there, and a dashed line
    across the chart marks it (``season_label``, when given, names it in the legend). Every
    word on the chart is the caller's, in its reader's language. ``until`` (usually
    now) carries each last rating on to that time. A lone point shows as a dot with its range
    as an error bar. ``size`` is in pixels; by default 800 wide and 450 high, plus a row for
    each row of the legend past the first. With nothing to draw the caller gets None and says
    so in words, which reads better than an empty chart.
    """
    drawn = {name: sorted(points, key=lambda p: p.at) for name, points in games.items() if points}
    if not drawn:
        return None
    labels = [f"{_printable(name) or '?'}  {_shown(points[-1])}" for name, points in drawn.items()]
    if band_label:
        labels.append(_printable(band_label))
    resets = sorted({p.at for points in drawn.values() for p in points if p.reset})
    if resets and season_label:
        labels.append(_printable(season_label))
    width, height = size or SIZE
    columns = _legend_columns(labels, width)
    if size is None:
        height += LEGEND_ROW * (-(-len(labels) // columns) - 1)
    fig, ax = _figure((width, height))
    band_alpha = 0.2 if len(drawn) == 1 else 0.07
    handles: list[Line2D | Patch] = []
    for index, points in enumerate(drawn.values()):
        colour = COLOURS[index % len(COLOURS)]
        handles.append(_draw_game(ax, _thin(points, MAX_STEPS), colour, until, band_alpha))
    band_colour = COLOURS[0] if len(drawn) == 1 else MUTED
    if band_label:
        handles.append(Patch(facecolor=band_colour, alpha=0.4))
    for moment in _days(resets):
        ax.axvline(moment, color=SEASON_COLOUR, linestyle=SEASON_DASHES, linewidth=1.6, zorder=1.5)
    if resets and season_label:
        handles.append(Line2D([], [], color=SEASON_COLOUR, linestyle=SEASON_DASHES, linewidth=1.6))
    everything = [p for points in drawn.values() for p in points]
    first = min(p.at for p in everything)
    lone = len(everything) == len(drawn) and (until is None or until <= first)
    ax.set_ylim(*_rating_limits(everything, math.inf if lone else SETTLED_BAND))
    _date_axis(ax, first, max(until or first, *(p.at for p in everything)))
    _label(ax, title, x_label, y_label)
    fig.legend(
        handles=handles,
        labels=labels,
        loc="outside lower center",
        ncols=columns,
        frameon=False,
        fontsize=LEGEND_SIZE,
        labelcolor=TEXT,
        handlelength=1.4,
        columnspacing=1.4,
    )
    return _png(fig)


def leaderboard_chart(
    standings: Sequence[Standing],
    *,
    title: str = "",
    x_label: str = "",
    size: tuple[int, int] = SIZE,
) -> bytes | None:
    """A PNG of the standings in the order given, as bars with ± 2 deviations; None for none.

    Give at most about ten standings: every name needs a readable row. Names are cut to
    ``NAME_LENGTH`` characters. The bars start at the chart's left edge, not at zero, so the
    differences between ratings show; each bar's rating is written past its error bar.
    """
    if not standings:
        return None
    fig, ax = _figure(size)
    count = len(standings)
    rows = list(range(count))
    reach = [BAND * s.deviation for s in standings]
    low = min(s.rating - r for s, r in zip(standings, reach, strict=True))
    high = max(s.rating + r for s, r in zip(standings, reach, strict=True))
    span = max(high - low, 100.0)
    left = low - 0.04 * span
    right = high + 0.16 * span
    ax.set_xlim(left, right)
    ax.barh(
        rows,
        [s.rating - left for s in standings],
        left=left,
        height=0.66,
        color=COLOURS[0],
        alpha=0.55,
        xerr=[reach, reach],
        error_kw={"ecolor": TEXT, "elinewidth": 2, "capsize": 5, "capthick": 2},
    )
    for row, (standing, r) in enumerate(zip(standings, reach, strict=True)):
        ax.text(
            standing.rating + r,
            row,
            f"  {_shown(standing)}",
            va="center",
            ha="left",
            color=TEXT,
            fontsize=LEGEND_SIZE,
            fontweight="bold",
        )
    ax.set_yticks(rows, labels=[_short(_printable(s.name) or "?") for s in standings])
    ax.tick_params(axis="y", length=0, labelsize=LEGEND_SIZE)
    ax.set_ylim(count - 0.5, -0.5)
    ax.grid(axis="y", visible=False)
    ax.spines["left"].set_visible(False)
    _label(ax, title, x_label, "")
    return _png(fig)


async def draw(render: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """``render(*args, **kwargs)`` run in a worker thread, e.g. ``await draw(rating_chart, games)``.

    A chart is a good part of a second of CPU work; run inline it would stall every other
    interaction, heartbeat and sweep of the process for that long.
    """
    return await asyncio.to_thread(render, *args, **kwargs)


def _figure(size: tuple[int, int]) -> tuple[Figure, Axes]:
    width, height = size
    fig = Figure(figsize=(width / DPI, height / DPI), dpi=DPI, facecolor=BACKGROUND)
    fig.set_layout_engine("constrained", h_pad=0.08, w_pad=0.1)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_facecolor(BACKGROUND)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color(GRID)
    ax.tick_params(colors=MUTED, labelcolor=TEXT, labelsize=TICK_SIZE)
    ax.grid(color=GRID, linewidth=0.8)
    ax.set_axisbelow(True)
    return fig, ax


def _draw_game(
    ax: Axes,
    points: Sequence[RatingPoint],
    colour: str,
    until: datetime | None,
    band_alpha: float,
) -> Line2D:
    """Draw one game's steps and band; the line, to stand for the game in the legend."""
    moments = [p.at for p in points]
    ratings = [p.rating for p in points]
    deviations = [p.deviation for p in points]
    if until is not None and until > moments[-1]:
        moments.append(until)
        ratings.append(ratings[-1])
        deviations.append(deviations[-1])
    times = _days(moments)
    # A season's reset is no match: no dot, the band widening there and its line show it.
    dotted = [0] if len(times) == 1 else [i for i, p in enumerate(points) if not p.reset]
    if len(points) <= DOTS and dotted:
        ax.errorbar(
            [times[i] for i in dotted],
            [ratings[i] for i in dotted],
            yerr=[BAND * p.deviation for p in points] if len(times) == 1 else None,
            fmt="o",
            markersize=5 if len(times) > 1 else 10,
            color=colour,
            elinewidth=3,
            capsize=8,
            capthick=3,
        )
    ax.fill_between(
        times,
        [r - BAND * d for r, d in zip(ratings, deviations, strict=True)],
        [r + BAND * d for r, d in zip(ratings, deviations, strict=True)],
        step="post",
        color=colour,
        alpha=band_alpha,
        linewidth=0,
    )
    (line,) = ax.step(times, ratings, where="post", color=colour, linewidth=2.6)
    return line


def _date_axis(ax: Axes, first: datetime, last: datetime) -> None:
    """Dates on the x-axis, as ISO-style numbers; at least a day wide, so one match is centred."""
    if last - first < timedelta(days=1):
        middle = first + (last - first) / 2
        ax.set_xlim(*_days([middle - timedelta(hours=12), middle + timedelta(hours=12)]))
    locator = mdates.AutoDateLocator(minticks=3, maxticks=7)  # type: ignore[no-untyped-call]
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(
        mdates.ConciseDateFormatter(  # type: ignore[no-untyped-call]
            locator,
            formats=list(DATE_FORMATS),
            zero_formats=list(DATE_ZERO_FORMATS),
            offset_formats=list(DATE_OFFSET_FORMATS),
        )
    )
    ax.xaxis.get_offset_text().set(color=MUTED, fontsize=TICK_SIZE - 2)


def _days(moments: Sequence[datetime]) -> list[float]:
    """Matplotlib's day numbers for ``moments`` (aware ones are read as UTC).

    ``matplotlib.dates`` has no type hints, hence the ignores on its calls here and above.
    """
    return [float(d) for d in mdates.date2num(moments)]  # type: ignore[no-untyped-call]


def _legend_columns(labels: Sequence[str], width: int) -> int:
    """The most columns, up to 3, whose labels fit across ``width`` pixels at the legend's size.

    An estimate from the character count (DejaVu Sans text averages under 0.5 em a character),
    so no text is measured outside a draw, where matplotlib's font cache is not guarded.
    """
    char = 0.5 * LEGEND_SIZE * DPI / 72
    entry = 3.8 * LEGEND_SIZE * DPI / 72  # the handle and the spacing around it
    for columns in (3, 2):
        # as matplotlib splits them: the first ``len % columns`` columns one label longer
        rows, longer = divmod(len(labels), columns)
        ends = [(c + 1) * rows + min(c + 1, longer) for c in range(columns)]
        chunks = [labels[end - rows - (c < longer) : end] for c, end in enumerate(ends)]
        chunks = [chunk for chunk in chunks if chunk]
        needed = sum(entry + char * max(len(label) for label in chunk) for chunk in chunks)
        if needed <= 0.96 * width:
            return columns
    return 1


def _thin(points: Sequence[RatingPoint], limit: int) -> Sequence[RatingPoint]:
    """At most ``limit`` points, evenly spread, keeping the first and the last; and every
    season's reset besides, where the band widens (a few a year)."""
    if len(points) <= limit:
        return points
    last = len(points) - 1
    kept = {round(i * last / (limit - 1)) for i in range(limit)}
    return [p for i, p in enumerate(points) if i in kept or p.reset]


def _rating_limits(points: Sequence[RatingPoint], cap: float) -> tuple[float, float]:
    """The y-axis: every rating and its band up to ``cap`` either side, with a margin.

    Lone matches show their whole ranges as error bars; on a line, the wide bands of the first
    matches would flatten every later change, so they run off the chart.
    """
    reach = [min(BAND * p.deviation, cap) for p in points]
    low = min(p.rating - r for p, r in zip(points, reach, strict=True))
    high = max(p.rating + r for p, r in zip(points, reach, strict=True))
    margin = max(25.0, 0.06 * (high - low))
    return low - margin, high + margin


def _shown(point: RatingPoint | Standing) -> str:
    return display(Rating(point.rating, point.deviation, volatility=0.0))


def _short(name: str) -> str:
    return name if len(name) <= NAME_LENGTH else name[: NAME_LENGTH - 1].rstrip() + "…"


def _label(ax: Axes, title: str, x_label: str, y_label: str) -> None:
    ax.set_xlabel(_printable(x_label), color=MUTED, fontsize=LABEL_SIZE)
    ax.set_ylabel(_printable(y_label), color=MUTED, fontsize=LABEL_SIZE)
    if ax.figure is not None:
        ax.figure.suptitle(_printable(title), color=TEXT, fontsize=TITLE_SIZE, fontweight="bold")


def _png(fig: Figure) -> bytes:
    """The figure as PNG bytes, with no text read as math and no metadata chunk."""
    for text in fig.findobj(Text):
        text.set_parse_math(False)
    out = io.BytesIO()
    fig.savefig(out, format="png", facecolor=BACKGROUND, metadata={"Software": None})
    return out.getvalue()


def _printable(text: str) -> str:
    """``text`` without the characters the font has no glyph for (emoji, CJK): no empty boxes."""
    glyphs = _glyphs()
    return "".join(c for c in text if ord(c) in glyphs or c.isspace()).strip()


@functools.cache
def _glyphs() -> frozenset[int]:
    return frozenset(FT2Font(findfont(FontProperties(family=FONT))).get_charmap())
