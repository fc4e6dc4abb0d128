"""``bot.delivery`` for the modules that still reach their parts through the client (the
buttons, the games' cogs, the tournament modules): one object forwarding to the parts. New code
takes what it uses from ``bot.chat.parts.Parts`` instead."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.chat.components import Post, Press
from bot.chat.delivery import Delivery
from bot.chat.direct import DirectMessages
from bot.chat.interactions import Interactions, UseCase
from bot.chat.live_boards import Boards
from bot.chat.parts import Actor
from bot.chat.sending import Interaction
from bot.service.notices import MatchSnapshot, Report


class Front:
    def __init__(
        self,
        requests: Interactions,
        delivery: Delivery,
        boards: Boards,
        dms: DirectMessages,
    ) -> None:
        self.requests = requests
        self.delivery = delivery
        self.boards = boards
        self.dms = dms

    async def run(
        self,
        interaction: Interaction,
        use_case: Callable[[], Awaitable[Report]],
        *,
        stale: Press | None = None,
    ) -> Report | None:
        """Run a use case that does not take the board route (the board's plan is then decided
        after it, from its report)."""
        return await self.requests.run(interaction, lambda _board: use_case(), stale=stale)

    async def run_routed(
        self, interaction: Interaction, use_case: UseCase, *, stale: Press | None = None
    ) -> Report | None:
        """Run a use case that takes the interaction's board route (``board=``): a board its
        response carries writes no outbox entry."""
        return await self.requests.run(interaction, use_case, stale=stale)

    async def show(
        self,
        interaction: Interaction,
        make: Callable[[], Awaitable[Post]],
        *,
        stale: Press | None = None,
    ) -> None:
        await self.requests.show(interaction, make, stale=stale)

    async def deliver(self, report: Report, *, actor: Actor | None = None) -> None:
        await self.delivery.deliver(report, actor=actor)

    async def send_dm(self, user_id: int, post: Post, *, nonce: str | None = None) -> bool:
        return await self.dms.send_dm(user_id, post, nonce=nonce)

    def board_of(self, snap: MatchSnapshot) -> int | None:
        return self.boards.board_of(snap)

    def board_url(self, snap: MatchSnapshot) -> str:
        return self.boards.board_url(snap)

    def server_name(self, guild_id: int) -> str:
        return self.dms.server_name(guild_id)
