"""Turning a use case's ``Report`` into what members see: the board, the interaction's answer,
private lines and prompts.

The board's update goes where its ``InteractionRoute`` planned (``bot.chat.boards.live``); an
answer that does not carry the board goes first, since the board's update may wait on Discord's
rate limits. A private notice goes to the member who acted in the interaction's answer (or in
the DM they typed), to anyone else by DM; prompts by DM (``bot.chat.dms.send``). What was shown
is recorded in the outbox; what was not is delivered again later (``bot.chat.boards.redelivery``). A
board whose channel is out of the bot's reach stays owed, and the channel is held
(``bot.chat.matches.channel_holds``) until it is back (``bot.chat.matches.hold_retries``).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Awaitable, Callable

import discord

from bot.chat.boards import render
from bot.chat.boards.live import Boards, InteractionRoute
from bot.chat.boards.route import WaitingForPress
from bot.chat.dms.send import DirectMessages
from bot.chat.failures import FAILED
from bot.chat.matches.channel_holds import ChannelReach, OutOfReach
from bot.chat.matches.threads import ThreadMaker
from bot.chat.parts import Actor
from bot.chat.sending import THREAD_ARCHIVED, UNREACHABLE
from bot.service.failures import log_failure
from bot.service.lines import PublicLine
from bot.service.notices import MatchSnapshot, Private, Prompt, Public, Report
from bot.service.outbox import Outbox

__all__ = ["FAILED", "Actor", "Delivery", "MessageActor"]

log = logging.getLogger(__name__)


class MessageActor:
    """Answers a typed DM in the same DM channel; ``told`` says whether it did."""

    def __init__(self, message: discord.Message) -> None:
        self.user_id = message.author.id
        self.channel = message.channel
        self.told = False

    async def tell(self, text: str) -> None:
        self.told = True
        await self.channel.send(text)


class Delivery:
    """Delivers reports, for one bot process.

    ``reach`` decides what a channel out of reach means for its matches;
    ``tournament_moves_on`` is given the tournament of a report whose match ended one of its
    pairings.
    """

    def __init__(
        self,
        boards: Boards,
        dms: DirectMessages,
        outbox: Outbox,
        *,
        reach: ChannelReach,
        tournament_moves_on: Callable[[int], Awaitable[None]],
        threads: ThreadMaker | None = None,
    ) -> None:
        self.boards = boards
        self.dms = dms
        self.outbox = outbox
        self.reach = reach
        self.tournament_moves_on = tournament_moves_on
        self.threads = threads
        """Matches' own threads, when a server plays each match in one."""
        self._in_flight: Counter[int] = Counter()

    async def deliver(
        self,
        report: Report,
        *,
        route: InteractionRoute | None = None,
        actor: Actor | None = None,
    ) -> None:
        """Deliver every notice of ``report``: the board, the answer, private lines, prompts.

        ``route`` is that of the interaction that caused it, if any (it carries what it can);
        ``actor`` is the member whose typed DM caused it. A notice that cannot be delivered is
        logged and skipped: the others still go out (the match itself is already saved).
        Nothing is ever sent to the bot itself: it plays its own seat inside the service.
        """
        match_id = report.match.id
        self._in_flight[match_id] += 1
        try:
            await self._deliver(report, route or self.boards.route(), actor)
        finally:
            self._in_flight[match_id] -= 1
            if not self._in_flight[match_id]:
                del self._in_flight[match_id]

    def delivering(self, match_id: int) -> bool:
        """Whether this process is delivering a report of the match right now: its outbox
        entries are not due for a second delivery, whatever the clock says."""
        return match_id in self._in_flight

    async def _deliver(self, report: Report, route: InteractionRoute, actor: Actor | None) -> None:
        exchange = route.exchange
        snap = report.match
        publics = [n for n in report.notices if isinstance(n, Public)]
        acting = exchange.interaction.user.id if exchange is not None else None
        private_lines = [
            render.private_text(notice)
            for notice in report.notices
            if isinstance(notice, Private) and notice.user_id == acting
        ]
        riding = bool(publics) and route.rides_on_response(snap)
        if publics and report.board_owed:
            self.outbox.owed(snap.id)
        if exchange is not None and not riding:
            # First: the board's own update may wait on Discord's rate limits.
            answer = exchange.finish(snap, private_lines, self.boards.board_url(snap))
            await self.guarded(snap, "answer", answer)
        shown = on_board = True
        if publics:
            lines = [line for notice in publics for line in notice.lines]
            on_board = await self.guarded(snap, "board", self.show_board(snap, lines, route))
            shown &= on_board
        if exchange is not None and riding:
            answer = exchange.finish(snap, private_lines, self.boards.board_url(snap))
            await self.guarded(snap, "answer", answer)
        if publics and on_board and self.threads is not None and not snap.by_interaction_only:
            interaction = exchange.interaction if exchange is not None else None
            threading = self.threads.after_board(snap, lines, interaction)
            await self.guarded(snap, "thread", threading)
        sent: list[Private | Prompt] = []
        for notice in report.notices:
            if isinstance(notice, Public) or self.dms.is_me(notice.user_id):
                continue
            if snap.by_interaction_only:
                continue  # no DM: each player's side is opened privately from the match's message
            if isinstance(notice, Private) and notice.user_id == acting:
                continue
            if isinstance(notice, Private) and actor and notice.user_id == actor.user_id:
                with await self.dms.speaking_to(actor.user_id, snap.guild_id):
                    reply = render.private_text(notice)
                await self.guarded(snap, "reply", actor.tell(reply))
            elif isinstance(notice, Private):
                shown &= await self.guarded(snap, "private", self.dms.tell(notice))
                sent.append(notice)
            else:
                shown &= await self.guarded(snap, "prompt", self.dms.ask(notice))
                sent.append(notice)
        if shown:
            # All shown: the outbox may forget it. Otherwise its redelivery tries again.
            self._record(snap, bool(publics) and self.outbox.owes(snap.id), sent)
        if report.tournament_id is not None:  # its tournament may move on now
            moving = self.tournament_moves_on(report.tournament_id)
            await self.guarded(snap, "tournament", moving)

    def _record(self, snap: MatchSnapshot, board: bool, sent: list[Private | Prompt]) -> None:
        if board:
            self.outbox.board_shown(snap.id, snap.version)
        for notice in sent:
            kind = "prompt" if isinstance(notice, Prompt) else "private"
            self.outbox.sent(snap.id, snap.version, kind, notice.user_id)

    async def guarded(self, snap: MatchSnapshot, what: str, work: Awaitable[None]) -> bool:
        """Run ``work``; whether it succeeded (a failure is logged, never raised)."""
        try:
            await work
            return True
        except OutOfReach:
            return False  # owed: delivered again once its channel is back
        except WaitingForPress:
            return False  # owed: the next press on the match's message shows it
        except discord.HTTPException as error:
            log.warning(
                "match %s: could not deliver the %s: HTTP %s (code %s)",
                snap.id,
                what,
                error.status,
                error.code,
            )
            return False
        except Exception:
            log_failure(log, "match %s: could not deliver the %s", snap.id, what)
            return False

    async def show_board(
        self, snap: MatchSnapshot, lines: list[PublicLine], route: InteractionRoute | None = None
    ) -> None:
        """Update the board. Raises ``OutOfReach`` when its channel is out of reach: held before
        and nothing but the bot's token would carry it (then nothing is tried: an interaction's
        response still may), or refused now (``ChannelReach.lost`` holds it). An archived
        thread is revived first (``ThreadMaker.revive``: a post unarchives it); one that cannot
        be is held. A channel that is gone has its match called off, and nothing is owed."""
        if (route is None or route.exchange is None) and self.reach.holds(snap.channel_id):
            raise OutOfReach(snap.channel_id)
        try:
            try:
                await self.boards.show(snap, lines, route or self.boards.route())
            except discord.HTTPException as error:
                if error.code != THREAD_ARCHIVED or self.threads is None:
                    raise
                await self.threads.revive(snap, lines)
        except discord.HTTPException as error:
            if error.code not in UNREACHABLE:
                raise
            if await self.reach.lost(snap, error):
                raise OutOfReach(snap.channel_id) from error
