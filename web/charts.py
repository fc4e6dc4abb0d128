"""Rating charts as files: each drawn once, in a worker thread, and served from disk after.

A chart's file name is a hash of what it shows (server, member, game, the points drawn and the
language of its texts), so a new rated match or a new language makes a new file and an old one
is never served stale; a page links to the chart and starts drawing it as it is sent, so
neither the page nor, usually, the image waits for matplotlib. Two requests for a chart being
drawn wait for the one drawing.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession

from bot.i18n import _, current_locale
from bot.service.charts import RatingPoint, draw, rating_chart

RatingHistory = Callable[[AsyncSession, int, int], Awaitable[dict[str, list[RatingPoint]]]]
"""``(session, guild_id, user_id)`` → each game's rating points, oldest first."""


def chart_name(guild_id: int, user_id: int, game: str, points: Sequence[RatingPoint]) -> str:
    """The file a chart of these points is kept in, in the language of its texts now: a
    hash, so no id shows in the folder."""
    digest = hashlib.sha256(f"{guild_id}:{user_id}:{game}:{current_locale()}".encode())
    for point in points:
        digest.update(f"|{point.at.isoformat()}:{point.rating}:{point.deviation}".encode())
    return digest.hexdigest()[:40] + ".png"


class ChartFiles:
    """The folder of drawn charts, and the drawings under way."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.drawing: dict[str, asyncio.Task[Path | None]] = {}
        self.drawn = 0
        """Charts this process drew (for tests and the benchmark)."""

    def chart(
        self, name: str, title: str, points: Sequence[RatingPoint]
    ) -> asyncio.Task[Path | None]:
        """The task that yields the chart's file (drawing it unless it exists), started now."""
        task = self.drawing.get(name)
        if task is None:
            task = asyncio.create_task(self._file(name, title, points))
            self.drawing[name] = task
            task.add_done_callback(lambda _done: self.drawing.pop(name, None))
        return task

    async def _file(self, name: str, title: str, points: Sequence[RatingPoint]) -> Path | None:
        path = self.folder / name
        if path.exists():
            return path
        png = await draw(
            rating_chart,
            {title: list(points)},
            title=_("{game}: rating", game=title),
            band_label=_("likely range"),
        )
        if png is None:
            return None
        await asyncio.to_thread(_write, path, png)
        self.drawn += 1
        return path


def _write(path: Path, data: bytes) -> None:
    """Write whole or not at all: a reader never sees half a PNG."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.part")
    partial.write_bytes(data)
    partial.replace(path)
