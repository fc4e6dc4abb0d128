"""The sign-up message's Join and Leave buttons: restart-proof, their ``custom_id`` carrying the
tournament (``tournament:<id>:join``), so a press is handled from the database alone.

discord.py builds a pressed button from its ``custom_id`` and hands it nothing but the
interaction, so a press reaches the tournaments through the client it arrived on, which must be
a ``SignupHost``: the client that registers ``DYNAMIC_ITEMS`` holds the desk as ``tournaments``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from typing import Any, Protocol, cast

import discord

from bot.chat import tournament_posts as posts
from bot.chat.delivery import FAILED
from bot.chat.readers import hear
from bot.chat.refusals import say
from bot.i18n import N_, _
from bot.service.errors import REFUSALS
from bot.service.failures import log_failure
from bot.service.notices import Report
from bot.service.tournaments.service import TournamentService
from bot.service.tournaments.view import TournamentView

log = logging.getLogger(__name__)


class SignupDesk(Protocol):
    """What a press uses of the tournament desk."""

    @property
    def service(self) -> TournamentService: ...
    @property
    def deliver(self) -> Callable[[Report], Awaitable[None]]: ...
    async def progress(self, tournament_id: int) -> None: ...
    async def in_server_language(self, guild_id: int) -> AbstractContextManager[None]: ...


class SignupHost(Protocol):
    """The client a press arrives on: the tournament desk, and the mark of a request in hand
    that shut-down waits for."""

    @property
    def tournaments(self) -> SignupDesk: ...
    def busy(self) -> AbstractAsyncContextManager[None]: ...


Interaction = discord.Interaction[Any]

SIGNUP_TEMPLATE = r"tournament:(?P<id>[0-9]{1,20}):(?P<verb>join|leave)"
LABELS = {
    "join": (N_("Join"), discord.ButtonStyle.success),
    "leave": (N_("Leave"), discord.ButtonStyle.secondary),
}


class SignupButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=SIGNUP_TEMPLATE):
    """Join or Leave a tournament during its sign-up."""

    def __init__(self, tournament_id: int, verb: str) -> None:
        label, style = LABELS[verb]
        super().__init__(
            discord.ui.Button(
                label=_(label), style=style, custom_id=f"tournament:{tournament_id}:{verb}"
            )
        )
        self.tournament_id = tournament_id
        self.verb = verb

    async def interaction_check(self, interaction: Interaction, /) -> bool:
        hear(interaction)  # the press, and its answers, in the member's language
        return True

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> SignupButton:
        return cls(int(match["id"]), match["verb"])

    async def callback(self, interaction: Interaction) -> None:
        host = cast(SignupHost, interaction.client)
        desk = host.tournaments
        user, guild = interaction.user.id, interaction.guild_id or 0
        report = None
        async with host.busy():
            try:
                if self.verb == "join":
                    view = await desk.service.join(self.tournament_id, user, guild_id=guild)
                else:
                    left = await desk.service.leave(self.tournament_id, user, guild_id=guild)
                    view, report = left.tournament, left.report
            except REFUSALS as error:
                await interaction.response.send_message(say(error), ephemeral=True)
                return
            except Exception:
                log_failure(log, "tournament %s: a sign-up press failed", self.tournament_id)
                await interaction.response.send_message(_(FAILED), ephemeral=True)
                return
            log.info("tournament %s: user %s pressed %s", view.id, user, self.verb)
            with await desk.in_server_language(view.guild_id):  # a public post
                embed, buttons = posts.signup_embed(view), signup_view(view)
            await interaction.response.edit_message(
                embed=embed,
                view=buttons,
                allowed_mentions=discord.AllowedMentions.none(),
            )
            if report is not None:  # the event started meanwhile: the leaver's match resigned
                await desk.deliver(report)
                await desk.progress(view.id)


def signup_view(view: TournamentView) -> discord.ui.View | None:
    """Join and Leave while sign-up is open; nothing after."""
    if view.status != "signup":
        return None
    buttons = discord.ui.View(timeout=None)
    for verb in LABELS:
        buttons.add_item(SignupButton(view.id, verb))
    return buttons


DYNAMIC_ITEMS: tuple[type[SignupButton], ...] = (SignupButton,)
"""Register these once with ``client.add_dynamic_items``, on a client that is a ``SignupHost``."""
