"""The outbox as the Discord side uses it: what was shown is recorded in memory and written in
batches; what was not confirmed is claimed again for redelivery.

This stands in for the service's ``Outbox`` (the same methods) over the match service's
per-call transactions, until that one is built: switching is a change of this file only.
"""

from __future__ import annotations

import asyncio
import logging

from bot.chat.failures import log_failure
from bot.service.matches import MatchService, OutboxItem

log = logging.getLogger(__name__)

FLUSH_EVERY = 0.5
"""Seconds a record waits to be written, with those that come meanwhile."""

__all__ = ["FLUSH_EVERY", "Outbox", "OutboxItem"]


class Outbox:
    """What this process showed, recorded until ``flush`` writes it."""

    def __init__(self, service: MatchService) -> None:
        self.service = service
        self._shown: dict[int, int] = {}
        """Match id -> the newest version all of whose deliveries were made."""
        self._moved: dict[int, int] = {}
        """Match id -> the message that now shows its board."""
        self._flushing: asyncio.Task[None] | None = None

    def board_shown(self, match_id: int, version: int) -> None:
        """The match's board shows ``version``."""
        self._shown[match_id] = max(version, self._shown.get(match_id, -1))
        self._flush_soon()

    def sent(self, match_id: int, version: int, kind: str, user_id: int) -> None:
        """A prompt or a private notice of ``version`` reached ``user_id``."""
        self.board_shown(match_id, version)

    def board_moved(self, match_id: int, message_id: int) -> None:
        """The match's board was (re)posted as ``message_id``."""
        self._moved[match_id] = message_id
        self._flush_soon()

    async def flush(self) -> None:
        """Write everything recorded since the last flush."""
        moved, self._moved = self._moved, {}
        shown, self._shown = self._shown, {}
        try:
            for match_id, message_id in moved.items():
                await self.service.set_message(match_id, message_id)
            for match_id, version in shown.items():
                await self.service.delivered(match_id, version)
        except BaseException:
            # Kept for the next flush (newer records win): written twice is no harm.
            self._moved = moved | self._moved
            for match_id, version in shown.items():
                self.board_shown(match_id, version)
            raise

    def _flush_soon(self) -> None:
        """Write what is recorded ``FLUSH_EVERY`` seconds from now, with what comes meanwhile.
        An idle bot has nothing waiting for it."""
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.get_running_loop().create_task(self._flush_later())

    async def _flush_later(self) -> None:
        await asyncio.sleep(FLUSH_EVERY)
        try:
            await self.flush()
        except Exception:
            log_failure("writing the outbox failed")  # kept: the next record tries again

    async def close(self) -> None:
        """Write what is recorded now (at shut-down): a write under way is never cut."""
        if self._flushing is not None and not self._flushing.done():
            await self._flushing
        await self.flush()

    async def due(self, limit: int = 50) -> list[OutboxItem]:
        """Deliveries not confirmed in time, claimed for this process for a while."""
        return await self.service.due_deliveries(limit)

    async def retry_later(self, item: OutboxItem) -> None:
        await self.service.finish_delivery(item, delivered=False)

    async def forget(self, item: OutboxItem) -> None:
        await self.service.finish_delivery(item, delivered=True)
