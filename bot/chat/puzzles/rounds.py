"""The puzzles' own sweep loop, every ``sweep_interval`` seconds once the bot is ready: finished
rated matches searched for puzzles (in the review pool), then the daily puzzle posts brought up
to date. A loop of its own, beside the deadline sweep's: a search never holds a deadline back.
"""

from __future__ import annotations

import asyncio
import logging

from discord.ext import tasks

from bot.chat.app import Parlor, within
from bot.chat.puzzles.daily import DailyPoster
from bot.service.failures import log_failure
from bot.service.puzzle_finding import PuzzleFinder

log = logging.getLogger(__name__)


class PuzzleRounds:
    """Runs a search round and a daily post round, each failing alone."""

    def __init__(
        self, client: Parlor, finder: PuzzleFinder, poster: DailyPoster, interval: float
    ) -> None:
        self.finder = finder
        self.poster = poster
        self.loop = tasks.loop(seconds=interval)(self._round)
        self.loop.before_loop(client.wait_until_ready)
        self._running = asyncio.Lock()

    def start(self) -> None:
        self.loop.start()

    async def stop(self, deadline: float) -> None:
        """Stop the loop, letting a round in progress finish by ``deadline`` (cancelled only
        at a safe point, as ``Sweeps.stop`` explains)."""
        if await within(deadline, self._running.acquire()):
            self.loop.cancel()
            self._running.release()
        else:
            self.loop.stop()

    async def once(self) -> None:
        async with self._running:
            try:
                found = await self.finder.round()
            except Exception:
                log_failure(log, "searching finished matches for puzzles failed")
            else:
                if found:
                    log.info("Puzzle search: %d new puzzles", found)
            try:
                await self.poster.round()
            except Exception:
                log_failure(log, "posting the daily puzzles failed")

    async def _round(self) -> None:
        await self.once()
