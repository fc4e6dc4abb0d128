"""Restart-proof buttons (the forms some open are in ``bot.chat.forms``).

Every button is a ``discord.ui.DynamicItem`` whose ``custom_id`` carries the game, the match id,
the match version and what to do (see ``bot.chat.components.Press``). The classes are registered
once with ``bot.add_dynamic_items``, so a button sent before a restart still works after it: a
click is handled from its ``custom_id`` and the database alone.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.chat.components import (
    ACTION_TEMPLATE,
    CHALLENGE_TEMPLATE,
    NOOP_TEMPLATE,
    OPEN_TEMPLATE,
    REVIEW_TEMPLATE,
    Layout,
    Post,
    Press,
    Verb,
)
from bot.chat.drawing import parlor
from bot.chat.forms import on_form_submit
from bot.chat.game_cog import Interaction
from bot.chat.games import drawing
from bot.chat.readers import hear
from bot.chat.render import prompt_post
from bot.i18n import _
from bot.service.notices import BoardRoute, Report
from games.base import Ask

log = logging.getLogger(__name__)

__all__ = ["DYNAMIC_ITEMS", "on_form_submit", "to_view"]


def to_view(layout: Layout) -> discord.ui.View | None:
    """The ``layout`` as a view of dynamic buttons (``None`` when it has no button).

    The view never times out: a timed-out view would unregister the dynamic item classes.
    """
    if not layout:
        return None
    view = discord.ui.View(timeout=None)
    for row_index, row in enumerate(layout):
        for spec in row:
            button: discord.ui.Button[Any] = discord.ui.Button(
                label=spec.label,
                custom_id=spec.press.custom_id,
                style=spec.style,
                disabled=spec.disabled,
                row=row_index,
            )
            item = _ITEM_FOR_VERB.get(spec.press.verb, AnsweredElsewhere)
            view.add_item(item(button, spec.press))
    return view


class _PressButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"(?!)"):
    """A button that knows its ``Press``.

    Its own template matches nothing: only the subclasses, each with its template, are
    registered.
    """

    def __init__(self, button: discord.ui.Button[Any], press: Press) -> None:
        super().__init__(button)
        self.press = press

    async def interaction_check(self, interaction: Interaction, /) -> bool:
        hear(interaction)  # the press, and its answers, in the member's language
        return True

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> _PressButton:
        assert isinstance(item, discord.ui.Button)
        return cls(item, Press.from_match(match))


class ChallengeButton(_PressButton, template=CHALLENGE_TEMPLATE):
    """Accept, Decline, Withdraw on a challenge; Rematch on a finished board."""

    async def callback(self, interaction: Interaction) -> None:
        bot = parlor(interaction)
        service, press, user = bot.service, self.press, interaction.user.id
        calls = {
            Verb.ACCEPT: service.accept,
            Verb.DECLINE: service.decline,
            Verb.WITHDRAW: service.withdraw,
            Verb.REMATCH: service.rematch,
        }
        use_case, guild = calls[press.verb], interaction.guild_id
        await bot.delivery.run_routed(
            interaction,
            lambda board: use_case(press.match_id, user, guild_id=guild, board=board),
        )


class ActionButton(_PressButton, template=ACTION_TEMPLATE):
    """A move, a hint or a trap cell (version-checked), or a setup secret (not version-checked).

    Secrets are not checked against the version: both players choose theirs at the same
    time, so the other player's secret moves the version on without making this one stale.
    """

    async def callback(self, interaction: Interaction) -> None:
        bot = parlor(interaction)
        press, user = self.press, interaction.user.id
        version = press.version if press.verb == Verb.PLAY else None
        answering = {Ask.SECRET} if press.verb == Verb.SECRET else None

        async def submit(board: BoardRoute) -> Report:
            return await bot.service.submit(
                press.match_id,
                user,
                press.arg,
                expected_version=version,
                answering=answering,
                guild_id=interaction.guild_id,
                board=board,
            )

        await bot.delivery.run_routed(interaction, submit, stale=press)


class OpenButton(_PressButton, template=OPEN_TEMPLATE):
    """Opens something private: what the game's module opens (a trap cell picker, a code
    form), else the presser's prompt (a refused DM's)."""

    async def callback(self, interaction: Interaction) -> None:
        press = self.press
        if await drawing(press.game).open(interaction, press):
            return
        await parlor(interaction).delivery.show(
            interaction, lambda: _private_prompt(interaction, press), stale=press
        )


class ShownButton(_PressButton, template=NOOP_TEMPLATE):
    """A disabled button that only shows something (an attacked cell, a claimed number).

    Discord does not send presses of disabled buttons; the class exists so that every button
    on a message is dynamic and no per-message view has to be kept.
    """

    async def callback(self, interaction: Interaction) -> None:
        await interaction.response.send_message(_("That button does nothing."), ephemeral=True)


class AnsweredElsewhere(_PressButton, template=REVIEW_TEMPLATE):
    """A button of the board whose press another module answers, with the dynamic item it
    registers (Review: ``bot.chat.history``). Never registered itself: it only carries the
    button onto the board."""


_ITEM_FOR_VERB: dict[str, type[_PressButton]] = {
    Verb.ACCEPT: ChallengeButton,
    Verb.DECLINE: ChallengeButton,
    Verb.WITHDRAW: ChallengeButton,
    Verb.REMATCH: ChallengeButton,
    Verb.PLAY: ActionButton,
    Verb.SECRET: ActionButton,
    Verb.NOOP: ShownButton,
    Verb.TRAP: OpenButton,
    Verb.GUESS: OpenButton,
    Verb.CODE: OpenButton,
    Verb.ASK: OpenButton,
}

DYNAMIC_ITEMS: tuple[type[_PressButton], ...] = (
    ChallengeButton,
    ActionButton,
    OpenButton,
    ShownButton,
)
"""Register these once with ``bot.add_dynamic_items``."""


async def _private_prompt(interaction: Interaction, press: Press) -> Post:
    """What the presser is asked for (a secret, a hint), to answer in the channel privately."""
    bot = parlor(interaction)
    prompt = await bot.service.prompt(
        press.match_id, interaction.user.id, guild_id=interaction.guild_id
    )
    snap = prompt.match
    server = bot.delivery.server_name(snap.guild_id)
    return prompt_post(prompt, server=server, board=bot.delivery.board_url(snap))
