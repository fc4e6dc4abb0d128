"""The sign-up message's Join and Leave buttons: restart-proof, their ``custom_id`` carrying the
tournament (``tournament:<id>:join``), so a press is handled from the database alone.

discord.py builds a pressed button from its ``custom_id`` and hands it nothing but the
interaction, so the button's class is bound to the tournament desk where it is registered
(``signup_items``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from typing import Any, Protocol

import discord

from bot.chat.boards.delivery import FAILED
from bot.chat.matches.carried import Carried, Pressed, carried_view
from bot.chat.refusals import say
from bot.chat.request_outcomes import FAILED_OUTCOME, OK, REFUSED
from bot.chat.request_watch import InteractionObserver, observed
from bot.chat.tournaments import posts
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


Interaction = discord.Interaction[Any]
Busy = Callable[[], AbstractAsyncContextManager[None]]
"""Marks a request in hand, which shut-down waits for."""

SIGNUP_TEMPLATE = r"tournament:(?P<id>[0-9]{1,20}):(?P<verb>join|leave)"
LABELS = {
    "join": (N_("Join"), discord.ButtonStyle.success),
    "leave": (N_("Leave"), discord.ButtonStyle.secondary),
}


def signup_button(tournament_id: int, verb: str) -> Carried:
    """Join or Leave on a tournament's sign-up message, answered by ``signup_items``'s."""
    label, style = LABELS[verb]
    return Carried(label=_(label), style=style, custom_id=f"tournament:{tournament_id}:{verb}")


def signup_items(
    desk: SignupDesk, busy: Busy, observer: InteractionObserver | None = None
) -> tuple[type[discord.ui.DynamicItem[Any]], ...]:
    """The sign-up buttons, answered through ``desk``; ``busy`` marks a press in hand, which
    shut-down waits for; ``observer`` hears how each press ended (``None``: nobody). Register
    them once with ``client.add_dynamic_items``."""

    class SignupButton(Pressed, template=SIGNUP_TEMPLATE):
        """Join or Leave a tournament during its sign-up."""

        def __init__(self, button: discord.ui.Button[Any], match: re.Match[str]) -> None:
            super().__init__(button, match)
            self.tournament_id, self.verb = int(match["id"]), match["verb"]

        async def callback(self, interaction: Interaction) -> None:
            kind = f"button:signup_{self.verb}"
            async with busy(), observed(observer, interaction, kind=kind) as ended:
                ended.outcome = await _press(desk, interaction, self.tournament_id, self.verb)

    return (SignupButton,)


async def _press(desk: SignupDesk, interaction: Interaction, tournament_id: int, verb: str) -> str:
    """Join or Leave ``tournament_id`` for the member who pressed; how the request ended."""
    user, guild = interaction.user.id, interaction.guild_id or 0
    report = None
    try:
        if verb == "join":
            view = await desk.service.join(tournament_id, user, guild_id=guild)
        else:
            left = await desk.service.leave(tournament_id, user, guild_id=guild)
            view, report = left.tournament, left.report
    except REFUSALS as error:
        await interaction.response.send_message(say(error), ephemeral=True)
        return REFUSED
    except Exception:
        log_failure(log, "tournament %s: a sign-up press failed", tournament_id)
        await interaction.response.send_message(_(FAILED), ephemeral=True)
        return FAILED_OUTCOME
    log.info("tournament %s: user %s pressed %s", view.id, user, verb)
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
    return OK


def signup_view(view: TournamentView) -> discord.ui.View | None:
    """Join and Leave while sign-up is open; nothing after."""
    if view.status != "signup":
        return None
    return carried_view(*(signup_button(view.id, verb) for verb in LABELS))
