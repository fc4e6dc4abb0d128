"""What a use case must still show with a bot-token call, until it has been shown.

A use case writes its outbox entries in its own transaction (``match_state.deliveries``): its
board when the caller's interaction response does not carry it, and every DM it asks for. The
process that ran it delivers them at once, and says so here; what is said is written in one
transaction at most ``FLUSH_EVERY`` seconds later, not one per move. Whatever is not confirmed
within ``DELIVERY_GRACE`` (the process died, Discord failed) is claimed by any process's
deliverer and delivered again, with backoff: a board always shows its match as it is now, and a
DM carries a nonce, so a second delivery changes nothing.

A match reached only through interactions has no bot-token call: its board's entry keeps the
service's lines of an update no token could show, for the next press (``with_owed``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.failures import log_failure
from bot.service.lines import PublicLine, kept_sayings
from bot.service.match_state import DELIVERY_GRACE, Clock
from bot.service.notices import MatchSnapshot
from db.connection import session_of, session_transaction
from db.models import utcnow
from db.outbox import (
    OutboxItem,
    add_deliveries,
    claim_deliveries,
    delay_delivery,
    forget_delivery,
    owed_lines,
    record_shown,
)

log = logging.getLogger(__name__)

CLAIM = timedelta(minutes=1)
"""How long a claimed entry is kept from the other deliverers."""
FLUSH_EVERY = 0.5
"""Seconds between two writes of what was shown."""
KEPT_FOR_PRESS = timedelta(days=7)
"""How long a board entry keeping lines waits for the next press on a message only an
interaction reaches, before the redelivery looks at it again (and forgets it once its match
is over)."""
KEPT_ATTEMPTS = 1000
"""The tries an entry kept for a press counts: it was kept once already."""

__all__ = ["Outbox", "OutboxItem"]


class Outbox:
    """One process's view of the outbox: what it showed, and what is left to deliver."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        clock: Clock = utcnow,
        flush_every: float = FLUSH_EVERY,
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.flush_every = flush_every
        self._flushing: asyncio.Task[None] | None = None
        self._writing = False
        """Whether ``_flushing`` is writing now (else it waits for its moment)."""
        self._moving: set[asyncio.Task[None]] = set()
        self._boards: dict[int, int] = {}
        self._sent: set[tuple[int, int, str, int]] = set()
        self._moved: dict[int, int] = {}
        self._owed: set[int] = set()
        """Matches whose board has an entry this process wrote or was told of (``owed``), not
        yet shown: showing the board then forgets it."""

    async def owe_board(self, match_id: int, version: int) -> None:
        """The match's board must still show ``version``, though its use case wrote no entry
        for it (the interaction's response was to carry it, and failed): written at once, due
        after ``DELIVERY_GRACE`` as the use case's own would have been."""
        row = (match_id, version, "board", None, None)
        async with session_transaction(self.sessions) as session:
            await add_deliveries(session, [row], self.clock() + DELIVERY_GRACE)
        self._owed.add(match_id)

    def owed(self, match_id: int) -> None:
        """A use case of this process wrote an entry for the match's board."""
        self._owed.add(match_id)

    def owes(self, match_id: int) -> bool:
        """Whether an entry of the match's board written here is not known to be shown yet:
        a board shown without one (its response carried it) has nothing to forget."""
        return match_id in self._owed

    def board_shown(self, match_id: int, version: int) -> None:
        """The match's board shows ``version`` (and so every version before it)."""
        self._owed.discard(match_id)
        self._boards[match_id] = max(version, self._boards.get(match_id, version))
        self._flush_soon()

    def sent(self, match_id: int, version: int, kind: str, user_id: int) -> None:
        """The ``kind`` DM (``prompt`` or ``private``) of ``version`` reached ``user_id``."""
        self._sent.add((match_id, version, kind, user_id))
        self._flush_soon()

    def board_moved(self, match_id: int, message_id: int) -> None:
        """The match's board is now the message ``message_id`` (posted or re-posted): written
        at once, since any process may have to edit that board next (a deadline)."""
        self._moved[match_id] = message_id
        self._moving.add(asyncio.get_running_loop().create_task(self._flush_now()))

    async def _flush_now(self) -> None:
        try:
            await self.flush()
        except Exception:
            log_failure(log, "the outbox could not record what was shown")
        finally:
            self._moving = {task for task in self._moving if not task.done()}

    @property
    def pending(self) -> bool:
        return bool(self._boards or self._sent or self._moved)

    def _flush_soon(self) -> None:
        """Write what was shown within ``flush_every`` seconds (nothing waits while idle)."""
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.get_running_loop().create_task(self._flush_later())

    async def _flush_later(self) -> None:
        """Flush after ``flush_every``, and again while more was shown during a flush."""
        while True:
            await asyncio.sleep(self.flush_every)
            self._writing = True
            try:
                await self.flush()
            except Exception:
                log_failure(log, "the outbox could not record what was shown")
            finally:
                self._writing = False
            if not self.pending:
                return

    async def flush(self) -> None:
        """Write what was shown since the last flush, in one transaction. On failure it is
        kept for the next flush (the entries stay due meanwhile: at worst shown twice)."""
        if not self.pending:
            return
        boards, sent, moved = self._boards, self._sent, self._moved
        self._boards, self._sent, self._moved = {}, set(), {}
        try:
            async with session_transaction(self.sessions) as session:
                await record_shown(
                    session, sorted(boards.items()), sorted(sent), sorted(moved.items())
                )
        except Exception:
            for match_id, version in boards.items():
                self._boards[match_id] = max(version, self._boards.get(match_id, version))
            self._sent |= sent
            self._moved = {**moved, **self._moved}
            raise

    async def close(self) -> None:
        """Write what is left now (at shut-down). The writes under way finish first: one
        cancelled mid-transaction would lose what it was writing and leave its connection
        checked out. A write waiting for its moment is cancelled: this one does its work."""
        flushing = self._flushing
        if flushing is not None and not flushing.done() and not self._writing:
            flushing.cancel()
        under_way = [t for t in (flushing, *self._moving) if t is not None and not t.done()]
        await asyncio.gather(*under_way, return_exceptions=True)
        try:
            await self.flush()
        except Exception:
            log_failure(log, "the outbox could not record what was shown")

    async def due(self, limit: int = 50) -> list[OutboxItem]:
        """Entries whose process did not confirm them in time (it died, Discord failed),
        claimed for a minute so that no other process takes them meanwhile.

        What this process has shown is written first, and what it has shown since is left out
        (the next flush forgets it): nothing shown is ever delivered twice by its own process.
        """
        await self.flush()
        now = self.clock()
        async with session_transaction(self.sessions) as session:
            claimed = await claim_deliveries(session, now, now + CLAIM, limit)
        return [item for item in claimed if not self._shown_here(item)]

    def _shown_here(self, item: OutboxItem) -> bool:
        if item.kind == "board":
            return self._boards.get(item.match_id, -1) >= item.version
        key = (item.match_id, item.version, item.kind, item.user_id or 0)
        return key in self._sent

    async def forget(self, item: OutboxItem) -> None:
        """A redelivered entry was shown."""
        async with session_transaction(self.sessions) as session:
            await forget_delivery(session, item.id)

    async def with_owed(
        self, snap: MatchSnapshot, lines: Sequence[PublicLine]
    ) -> tuple[list[PublicLine], bool]:
        """``lines`` after the lines the board still owes, and whether it owed any (then
        ``lines_shown`` once it is shown).

        Only a match reached through interactions owes lines: an update no token could carry
        keeps its service lines with its entry (a clock given back after a restart, "did not
        answer in time"), and the next showing of its message says them first, once. A line
        this update says itself is not said twice."""
        if not snap.by_interaction_only:
            return list(lines), False
        kept: Sequence[str] | None = snap.kept
        if kept is None:  # not read with the use case that changed it
            async with session_of(self.sessions) as session:
                kept = await owed_lines(session, snap.id, snap.version)
        owed = [line for text in kept for line in kept_sayings(text)]
        return [*(line for line in owed if line not in lines), *lines], bool(owed)

    async def lines_shown(self, match_id: int, version: int) -> None:
        """The board shows ``version`` and the lines it owed: forgotten now, not at the next
        flush, so that a second press at once does not say them again."""
        self._owed.discard(match_id)
        async with session_transaction(self.sessions) as session:
            await record_shown(session, [(match_id, version)], [], [])

    async def keep_for_press(self, item: OutboxItem) -> None:
        """A board entry keeping lines that only a press can show now: out of the
        redelivery's way for ``KEPT_FOR_PRESS``, counted as kept (``KEPT_ATTEMPTS``) so that
        the redelivery then forgets it if its match is over."""
        until = self.clock() + KEPT_FOR_PRESS
        async with session_transaction(self.sessions) as session:
            await delay_delivery(session, item.id, until, attempts=KEPT_ATTEMPTS)

    async def retry_later(self, item: OutboxItem) -> None:
        """A redelivery failed: try again later, sooner at first."""
        backoff = timedelta(seconds=min(5 * 2**item.attempts, 600))
        async with session_transaction(self.sessions) as session:
            await delay_delivery(session, item.id, self.clock() + backoff)
