"""Rating charts as files: each drawn once, in a worker thread, and served from disk after.

A chart's file name is a hash of whose chart it is (server, member, game), then a hash of
what it shows (the points drawn and the language of its texts), so a new rated match or a new
language makes a new file, an old one is never served stale, and the one it replaces is
removed. A page links to the chart and starts drawing it as it is sent, so neither the page
nor, usually, the image waits for matplotlib. Two requests for a chart being drawn wait for
the one drawing. Nothing here touches the database: the points are read, and the session
closed, before a chart is asked for. The folder is ``web.chart_folder``'s.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession

from bot.i18n import _, current_locale
from bot.service.charts import RatingPoint, draw, rating_chart
from web.chart_folder import ChartFolder

RatingHistory = Callable[[AsyncSession, int, int], Awaitable[dict[str, list[RatingPoint]]]]
"""``(session, guild_id, user_id)`` → each game's rating points, oldest first."""
Render = Callable[..., bytes | None]
"""Draws a rating chart: ``bot.service.charts.rating_chart``'s signature."""


def chart_name(guild_id: int, user_id: int, game: str, points: Sequence[RatingPoint]) -> str:
    """The file a chart of these points is kept in, in the language of its texts now: hashes,
    so no id shows in the folder."""
    slot = hashlib.sha256(f"{guild_id}:{user_id}:{game}".encode()).hexdigest()[:24]
    version = hashlib.sha256(current_locale().encode())
    for point in points:
        reset = ":reset" if point.reset else ""  # drawn apart from a match
        version.update(f"|{point.at.isoformat()}:{point.rating}:{point.deviation}{reset}".encode())
    return f"{slot}-{version.hexdigest()[:16]}.png"


def chart_version(name: str) -> str:
    """What a chart's ETag is: the hash of what it shows."""
    return name.removesuffix(".png").rpartition("-")[2]


class ChartFiles:
    """The folder of drawn charts, and the drawings under way."""

    def __init__(self, folder: Path, render: Render = rating_chart) -> None:
        self.folder = ChartFolder(folder)
        self.render = render
        self.drawing: dict[str, asyncio.Task[bytes | None]] = {}
        self.drawn = 0
        """Charts this process drew (for tests and the benchmark)."""

    def chart(
        self, name: str, title: str, points: Sequence[RatingPoint]
    ) -> asyncio.Task[bytes | None]:
        """The task that yields the chart's PNG (drawing it unless it is kept), started now."""
        task = self.drawing.get(name)
        if task is None:
            task = asyncio.create_task(self._file(name, title, points))
            self.drawing[name] = task
            task.add_done_callback(lambda _done: self.drawing.pop(name, None))
        return task

    def close(self) -> None:
        self.folder.close()

    async def _file(self, name: str, title: str, points: Sequence[RatingPoint]) -> bytes | None:
        kept = await asyncio.to_thread(self.folder.read, name)
        if kept is not None:
            return kept
        png = await draw(
            self.render,
            {title: list(points)},
            title=_("{game}: rating", game=title),
            band_label=_("likely range"),
            season_label=_("new season"),
        )
        if png is None:
            return None
        await asyncio.to_thread(self.folder.write, name, png)
        self.drawn += 1
        return png
