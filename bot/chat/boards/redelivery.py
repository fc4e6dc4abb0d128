"""Delivering again what the outbox holds that nobody confirmed: the process that ran the use
case died, or Discord failed. A board shows its match as it is now (an edit is idempotent); a DM
goes with the same nonce as its first attempt, so Discord does not post it twice."""

from __future__ import annotations

import logging

import discord

from bot.chat.boards.delivery import Delivery
from bot.chat.boards.route import WaitingForPress
from bot.chat.dms.send import DirectMessages
from bot.chat.matches.channel_holds import OutOfReach
from bot.chat.sending import as_shown_now
from bot.service.errors import REFUSALS
from bot.service.failures import log_failure
from bot.service.lookups import Lookups
from bot.service.outbox import KEPT_ATTEMPTS, Outbox, OutboxItem

log = logging.getLogger(__name__)


class Redelivery:
    """Claims and delivers the outbox's overdue entries, for one bot process."""

    def __init__(
        self, service: Lookups, outbox: Outbox, delivery: Delivery, dms: DirectMessages
    ) -> None:
        self.service = service
        self.outbox = outbox
        self.delivery = delivery
        self.dms = dms

    async def sweep(self) -> None:
        """Deliver every overdue entry; forget those shown, try the others again later.

        An entry of a match whose report this process is delivering right now waits: its first
        delivery is still under way.
        """
        for item in await self.outbox.due():
            if self.delivery.delivering(item.match_id):
                await self.outbox.retry_later(item)
            elif (shown := await self.redeliver(item)) is None:
                await self.outbox.keep_for_press(item)
            elif shown:
                await self.outbox.forget(item)
            else:
                await self.outbox.retry_later(item)

    async def redeliver(self, entry: OutboxItem) -> bool | None:
        """Deliver one entry; whether it is shown now, or ``None`` when it keeps lines that
        only the next press on its match's message may show."""
        try:
            if entry.kind == "board":
                snap = await self.service.snapshot(entry.match_id)
                # The newest event shows as what just happened, the others as the log.
                try:
                    await self.delivery.show_board(*as_shown_now(snap))
                except WaitingForPress:
                    # Lines it keeps (a clock given back, "did not answer in time") wait
                    # for that press while the match goes on, or a while after it ended.
                    if entry.text is None or (snap.over and entry.attempts >= KEPT_ATTEMPTS):
                        raise
                    return None
            elif entry.kind == "prompt" and entry.user_id is not None:
                try:
                    prompt = await self.service.prompt(entry.match_id, entry.user_id)
                except REFUSALS:
                    return True  # answered meanwhile, or the match is over: nothing to ask
                await self.dms.ask(prompt)
            elif entry.user_id is not None:
                text = entry.text or ""
                await self.dms.tell_text(entry.match_id, entry.version, entry.user_id, text)
        except REFUSALS:
            return True
        except OutOfReach:
            return False  # its channel is held: tried again once it is back
        except WaitingForPress:
            # Reached only through interactions, and no token of the match is fresh: nothing
            # this sweep can do will ever show it. The next press on its message shows the
            # match as it is then (a stale button's press refreshes it), so it is not kept
            # unless it keeps lines for that press.
            return True
        except discord.HTTPException as error:
            log.warning(
                "match %s: redelivering a %s failed: HTTP %s",
                entry.match_id,
                entry.kind,
                error.status,
            )
            return False
        except Exception:
            log_failure(log, "match %s: redelivering a %s failed", entry.match_id, entry.kind)
            return False
        return True
