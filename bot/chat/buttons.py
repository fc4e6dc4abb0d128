"""Restart-proof buttons and the forms they open.

Every button is a ``discord.ui.DynamicItem`` whose ``custom_id`` carries the game, the match id,
the match version and what to do (see ``bot.chat.components.Press``). The classes are registered
once with ``bot.add_dynamic_items``, so a button sent before a restart still works after it: a
click is handled from its ``custom_id`` and the database alone.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord

from bot.chat.components import (
    ACTION_TEMPLATE,
    CHALLENGE_TEMPLATE,
    NOOP_TEMPLATE,
    OPEN_TEMPLATE,
    Layout,
    Post,
    Press,
    Verb,
)
from bot.chat.games.flag import DRAWING as FLAG
from bot.chat.render import NOT_YOUR_MATCH, prompt_post
from bot.service.errors import REFUSALS, AlreadyPlayed
from bot.service.notices import Report
from games.base import Ask

if TYPE_CHECKING:
    from bot.chat.app import Parlor

log = logging.getLogger(__name__)

Interaction = discord.Interaction[Any]


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
            view.add_item(_ITEM_FOR_VERB[spec.press.verb](button, spec.press))
    return view


def _parlor(interaction: Interaction) -> Parlor:
    return interaction.client  # type: ignore[no-any-return]


class _PressButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"(?!)"):
    """A button that knows its ``Press``.

    Its own template matches nothing: only the subclasses, each with its template, are
    registered.
    """

    def __init__(self, button: discord.ui.Button[Any], press: Press) -> None:
        super().__init__(button)
        self.press = press

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> _PressButton:
        assert isinstance(item, discord.ui.Button)
        return cls(item, Press.from_match(match))


class ChallengeButton(_PressButton, template=CHALLENGE_TEMPLATE):
    """Accept, Decline, Withdraw on a challenge; Rematch on a finished board."""

    async def callback(self, interaction: Interaction) -> None:
        bot = _parlor(interaction)
        service, press, user = bot.service, self.press, interaction.user.id
        calls = {
            Verb.ACCEPT: service.accept,
            Verb.DECLINE: service.decline,
            Verb.WITHDRAW: service.withdraw,
            Verb.REMATCH: service.rematch,
        }
        use_case = calls[press.verb]
        await bot.delivery.run(interaction, lambda: use_case(press.match_id, user))


class ActionButton(_PressButton, template=ACTION_TEMPLATE):
    """A move, a hint or a trap cell (version-checked), or a setup secret (not version-checked).

    Secrets are not checked against the version: both players choose theirs at the same
    time, so the other player's secret moves the version on without making this one stale.
    """

    async def callback(self, interaction: Interaction) -> None:
        bot = _parlor(interaction)
        press, user = self.press, interaction.user.id
        version = press.version if press.verb == Verb.PLAY else None
        answering = {Ask.SECRET} if press.verb == Verb.SECRET else None

        async def submit() -> Report:
            return await bot.service.submit(
                press.match_id, user, press.arg, expected_version=version, answering=answering
            )

        await bot.delivery.run(interaction, submit, stale=press)


class OpenButton(_PressButton, template=OPEN_TEMPLATE):
    """Opens something private: a trap cell picker, a code form, a refused DM's prompt."""

    async def callback(self, interaction: Interaction) -> None:
        press = self.press
        if press.verb == Verb.GUESS:
            await _open_form(interaction, press, guess=True)
        elif press.verb == Verb.CODE or (press.verb == Verb.ASK and press.game == "safe"):
            await _open_form(interaction, press, guess=False)
        elif press.verb == Verb.TRAP:
            await _parlor(interaction).delivery.show(
                interaction, lambda: _trap_picker(interaction, press), stale=press
            )
        else:
            await _parlor(interaction).delivery.show(
                interaction, lambda: _private_prompt(interaction, press), stale=press
            )


class ShownButton(_PressButton, template=NOOP_TEMPLATE):
    """A disabled button that only shows something (an attacked cell, a claimed number).

    Discord does not send presses of disabled buttons; the class exists so that every button
    on a message is dynamic and no per-message view has to be kept.
    """

    async def callback(self, interaction: Interaction) -> None:
        await interaction.response.send_message("That button does nothing.", ephemeral=True)


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


async def _trap_picker(interaction: Interaction, press: Press) -> Post:
    """The presser's own trap cell picker, for the board the Trap button was on."""
    prompt = await _parlor(interaction).service.prompt(press.match_id, interaction.user.id)
    if prompt.match.version != press.version:
        raise AlreadyPlayed("That board is out of date: use the buttons on the latest one.")
    return FLAG.trap_picker(prompt.match, prompt.view)


async def _private_prompt(interaction: Interaction, press: Press) -> Post:
    """What the presser is asked for (a secret, a hint), to answer in the channel privately."""
    bot = _parlor(interaction)
    prompt = await bot.service.prompt(press.match_id, interaction.user.id)
    snap = prompt.match
    server = bot.delivery.server_name(snap.guild_id)
    return prompt_post(prompt, server=server, board=bot.delivery.board_url(snap))


async def _open_form(interaction: Interaction, press: Press, *, guess: bool) -> None:
    """Open the code form for the member it is for, and refuse anyone else before it opens."""
    bot = _parlor(interaction)
    user = interaction.user.id
    try:
        snap = await bot.service.snapshot(press.match_id)
    except REFUSALS as error:
        await interaction.response.send_message(str(error), ephemeral=True)
        return
    wanted = Ask.ACTION if guess else Ask.SECRET
    if user not in snap.players:
        refusal: str | None = NOT_YOUR_MATCH
    elif snap.asks.get(user) is not wanted:
        refusal = "That form is not for you right now: nothing is asked of you there."
    elif guess and snap.version != press.version:
        refusal = "That board is out of date: use the buttons on the latest one."
    else:
        refusal = None
    if refusal is not None:
        await interaction.response.send_message(refusal, ephemeral=True)
        return
    await interaction.response.send_modal(code_form(press, guess=guess))


FORM_TEMPLATE = re.compile(OPEN_TEMPLATE + ":form")
"""A code form's custom_id: the press that opened it, then ``:form``."""


def code_form(press: Press, *, guess: bool) -> discord.ui.Modal:
    """A Safe Cracker code form: one's own secret code, or a guess at the other player's.

    It is answered by ``on_form_submit`` from its custom_id alone, never from discord.py's
    store of open forms (stopped before it is sent, it is not kept there), so that two members'
    forms never replace each other, and a form still works after a restart or 15 minutes.
    """
    form = discord.ui.Modal(
        title="Guess the code" if guess else "Set your secret code",
        custom_id=f"{press.custom_id}:form",
    )
    form.add_item(
        discord.ui.TextInput(
            label="Your guess" if guess else "Your code (only you see it)",
            custom_id="code",
            placeholder="digits only, e.g. 213",
            min_length=1,
            max_length=12,
        )
    )
    form.stop()
    return form


async def on_form_submit(interaction: Interaction) -> None:
    """Play a submitted code form (an ``on_interaction`` listener)."""
    if interaction.type is not discord.InteractionType.modal_submit:
        return
    data: dict[str, Any] = dict(interaction.data or {})
    found = FORM_TEMPLATE.fullmatch(str(data.get("custom_id", "")))
    if found is None:
        return
    press = Press.from_match(found)
    guess = press.verb == Verb.GUESS
    bot = _parlor(interaction)
    user, text = interaction.user.id, _text_input(list(data.get("components") or []))
    version = press.version if guess else None
    answering = None if guess else {Ask.SECRET}

    async def submit() -> Report:
        return await bot.service.submit(
            press.match_id, user, text, expected_version=version, answering=answering
        )

    await bot.delivery.run(interaction, submit, stale=press)


def _text_input(components: list[Any]) -> str:
    """The value of the first text input in a submitted form's components."""
    for component in components:
        if component.get("type") == discord.ComponentType.text_input.value:
            return str(component.get("value") or "")
        inner = [*component.get("components", []), *filter(None, [component.get("component")])]
        value = _text_input(inner)
        if value:
            return value
    return ""
