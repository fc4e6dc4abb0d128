"""One-line forms a game's button opens (a Safe Cracker code), answered from their custom_id.

A form's custom_id is the press that opened it, then ``:form``: ``form_listener`` plays what
was typed from that alone, never from discord.py's store of open forms (stopped before it is
sent, a form is not kept there), so that two members' forms never replace each other, and a form
still works after a restart or 15 minutes. A form opened by ``Verb.GUESS`` is a move on the
board it was on (refused once that board is stale); any other is a setup secret.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Coroutine
from typing import Any

import discord

from bot.chat.components import NOT_YOUR_MATCH, OPEN_TEMPLATE, Press, Verb
from bot.chat.matches.game_commands import Interaction
from bot.chat.parts import Parts
from bot.chat.readers import acting_of, hear
from bot.chat.refusals import say
from bot.chat.request_outcomes import OK, REFUSED
from bot.i18n import _
from bot.service.errors import REFUSALS
from bot.service.notices import BoardRoute, Report
from games.base import Ask

FORM_TEMPLATE = re.compile(OPEN_TEMPLATE + ":form")
"""A form's custom_id: the press that opened it, then ``:form``."""


def answer_form(press: Press, *, title: str, label: str, placeholder: str) -> discord.ui.Modal:
    """A form with one short text input, answered by ``form_listener``."""
    form = discord.ui.Modal(title=title, custom_id=f"{press.custom_id}:form")
    form.add_item(
        discord.ui.TextInput(
            label=label,
            custom_id="answer",
            placeholder=placeholder,
            min_length=1,
            max_length=12,
        )
    )
    form.stop()
    return form


async def open_form(
    interaction: Interaction, press: Press, form: discord.ui.Modal, parts: Parts
) -> None:
    """Open ``form`` for the member it is for, and refuse anyone else before it opens; the
    host's metrics count the press by what it opens (``button:guess``, ``button:code``)."""
    async with parts.requests.watched(interaction, press) as ended:
        refusal = await _form_refusal(interaction, press, parts)
        if refusal is not None:
            ended.outcome = REFUSED
            await interaction.response.send_message(refusal, ephemeral=True)
            return
        await interaction.response.send_modal(form)
        ended.outcome = OK


async def _form_refusal(interaction: Interaction, press: Press, parts: Parts) -> str | None:
    """Why the presser may not have the form now, in their words; ``None`` when they may."""
    user = interaction.user.id
    move = press.verb == Verb.GUESS
    try:
        snap = await parts.matches.lookups.snapshot(press.match_id, guild_id=interaction.guild_id)
    except REFUSALS as error:
        return say(error)
    wanted = Ask.ACTION if move else Ask.SECRET
    if user not in snap.players:
        return _(NOT_YOUR_MATCH)
    if snap.asks.get(user) is not wanted:
        return _("That form is not for you right now: nothing is asked of you there.")
    if move and snap.version != press.version:
        return _("That board is out of date: use the buttons on the latest one.")
    return None


def form_listener(parts: Parts) -> Callable[[Interaction], Coroutine[Any, Any, None]]:
    """The ``on_interaction`` listener that plays submitted forms through ``parts``."""

    async def on_form_submit(interaction: Interaction) -> None:
        if interaction.type is not discord.InteractionType.modal_submit:
            return
        data: dict[str, Any] = dict(interaction.data or {})
        found = FORM_TEMPLATE.fullmatch(str(data.get("custom_id", "")))
        if found is None:
            return
        hear(interaction)  # the form's answers in the member's language
        press = Press.from_match(found)
        move = press.verb == Verb.GUESS
        user, text = acting_of(interaction), _text_input(list(data.get("components") or []))
        version = press.version if move else None
        answering = None if move else {Ask.SECRET}

        async def submit(_board: BoardRoute) -> Report:
            return await parts.matches.play.submit(
                press.match_id,
                user,
                text,
                expected_version=version,
                answering=answering,
                guild_id=interaction.guild_id,
            )

        await parts.requests.run(interaction, submit, stale=press)

    return on_form_submit


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
