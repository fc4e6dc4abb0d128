"""Running a member's request from an interaction: its use case, then what came of it.

Every interaction is acknowledged within Discord's 3 seconds
(``bot.chat.matches.answers.Exchange``), whatever it waits on. A refusal is answered privately;
anything else is delivered on the board route built from the interaction before its use case
runs, so that the service, asking that route inside its transaction, and the delivery act on one
plan."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager

from bot.chat.boards.delivery import Delivery
from bot.chat.boards.live import Boards, InteractionRoute
from bot.chat.boards.render import NOT_YOUR_MATCH
from bot.chat.components import Post, Press
from bot.chat.failures import FAILED
from bot.chat.followups import Followups
from bot.chat.matches.answers import Exchange
from bot.chat.matches.places import MatchPlace, place_of
from bot.chat.refusals import say
from bot.chat.request_outcomes import OK, REFUSED, Ended
from bot.chat.request_watch import InteractionObserver, observed
from bot.chat.sending import Interaction
from bot.i18n import _
from bot.service.errors import REFUSALS, AlreadyPlayed, MatchOver
from bot.service.failures import log_failure
from bot.service.lookups import Lookups
from bot.service.notices import Report

log = logging.getLogger(__name__)

UseCase = Callable[[InteractionRoute], Awaitable[Report]]
"""A use case run for an interaction, given the interaction's board route."""


class Interactions:
    """Runs members' requests, for one bot process. ``busy`` marks one request in progress
    (shut-down waits for them); ``followups`` creates every followup of their answers."""

    def __init__(
        self,
        service: Lookups,
        boards: Boards,
        delivery: Delivery,
        busy: Callable[[], AbstractAsyncContextManager[None]],
        followups: Followups,
        observer: InteractionObserver | None = None,
    ) -> None:
        self.service = service
        self.boards = boards
        self.delivery = delivery
        self.busy = busy
        self.followups = followups
        self.observer = observer
        """Told how each request ended (``None``: nobody)."""

    def watched(
        self, interaction: Interaction, press: Press | None = None
    ) -> AbstractAsyncContextManager[Ended]:
        """Tell the observer how a request answered outside ``run`` and ``show`` ended (a
        form opened): the block sets its outcome, ``failed`` if it never does."""
        return observed(self.observer, interaction, press)

    async def run(
        self,
        interaction: Interaction,
        use_case: UseCase,
        *,
        stale: Press | None = None,
        kind: str | None = None,
    ) -> Report | None:
        """Run ``use_case`` for ``interaction`` and deliver its report.

        A refusal (``REFUSALS``) is answered privately with its message, and ``None``
        returned. ``stale`` is the button pressed, if any, for ``explain``; ``kind`` names a
        button that is not a match's, for the observer.
        """
        async with self.busy(), observed(self.observer, interaction, stale, kind=kind) as ended:
            with Exchange(interaction, self.followups) as exchange:
                route = self.boards.route(exchange)
                try:
                    report = await use_case(route)
                except REFUSALS as error:
                    ended.outcome = REFUSED
                    await self._refuse(exchange, error, stale)
                    return None
                except Exception:
                    log_failure(log, "request of user %s failed", interaction.user.id)
                    await exchange.answer_privately(_(FAILED))
                    return None
                await self.delivery.deliver(report, route=route)
                ended.outcome = OK
                return report

    async def show(
        self,
        interaction: Interaction,
        make: Callable[[], Awaitable[Post]],
        *,
        stale: Press | None = None,
    ) -> None:
        """Answer ``interaction`` privately with the post ``make`` builds (a picker, a prompt).

        A refusal (``REFUSALS``) is answered privately instead, as in ``run``. A press on the
        message of a match reached only through interactions first brings that message up to
        date in the press's own response (``_keep_board``), so that what the private answer
        leads to (a secret chosen in the picker) can edit it with this press's fresh token.
        """
        async with self.busy(), observed(self.observer, interaction, stale) as ended:
            with Exchange(interaction, self.followups, private=True) as exchange:
                try:
                    post = await make()
                except REFUSALS as error:
                    ended.outcome = REFUSED
                    await self._refuse(exchange, error, stale)
                    return
                except Exception:
                    log_failure(log, "request of user %s failed", interaction.user.id)
                    await exchange.answer_privately(_(FAILED))
                    return
                await self._keep_board(exchange, stale)
                await exchange.answer_privately(post)
                ended.outcome = OK

    async def _refuse(self, exchange: Exchange, error: Exception, press: Press | None) -> None:
        """Answer a refused request privately. A button left stale on the match's message
        (already played, or over: a deadline or another member moved the match on) first
        brings the message up to date in the press's own response: outside servers, once every
        token of the match expired, nothing else may."""
        interaction = exchange.interaction
        text = await self.explain(error, press, interaction)
        stale = isinstance(error, (AlreadyPlayed, MatchOver))
        if stale and await self._refresh(exchange, press):
            await exchange.followups.send(interaction, text, ephemeral=True)
        else:
            await exchange.answer_privately(text)

    async def explain(self, error: Exception, press: Press | None, interaction: Interaction) -> str:
        """What to tell the member whose request was refused.

        An out-of-date button says "already played" before the service knows who pressed it;
        someone outside the match is told it is not their match instead.
        """
        if isinstance(error, AlreadyPlayed) and press is not None:
            try:
                snap = await self.service.snapshot(press.match_id, guild_id=interaction.guild_id)
            except REFUSALS:
                return say(error)
            if interaction.user.id not in (snap.challenger_id, snap.opponent_id):
                return _(NOT_YOUR_MATCH)
        return say(error)

    async def _keep_board(self, exchange: Exchange, press: Press | None) -> None:
        """The message pressed is the board of a match no bot-token call reaches: show it as
        it is now in the press's response, which keeps this press's token for its next edits
        (after a restart, or 15 minutes after the last press, no other token may be fresh)."""
        interaction = exchange.interaction
        message = interaction.message
        if press is None or message is None or message.flags.ephemeral:
            return
        if place_of(interaction) is MatchPlace.SERVER:
            return  # a server's match: its bot-token calls reach the board
        try:
            snap = await self.service.snapshot(press.match_id, guild_id=interaction.guild_id)
        except REFUSALS:
            return
        if snap.by_interaction_only:
            await self.boards.refresh(exchange, snap)

    async def _refresh(self, exchange: Exchange, press: Press | None) -> bool:
        """Bring the board a stale button was pressed on up to date, in the press's answer;
        whether it did."""
        if press is None or exchange.interaction.message is None:
            return False
        guild_id = exchange.interaction.guild_id
        try:
            snap = await self.service.snapshot(press.match_id, guild_id=guild_id)
        except REFUSALS:
            return False  # not a match of this server
        return await self.boards.refresh(exchange, snap)
