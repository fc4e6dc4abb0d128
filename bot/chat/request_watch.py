"""How members' requests end, for the host's metrics: each is told once to an observer, with its
kind, its outcome and the seconds it took.

A request that runs through ``Interactions`` (every match command and button, the queue's offer
of a game against the bot, the forms) is told there, where refusals are known; so is each press
of a button answered elsewhere (the queue's Join and Leave, a tournament's sign-up, the review,
history and replay pages, the puzzles'), by its handler (``observed``). Any other slash command
(``/stats``, ``/settings``, ``/rules``, ``/play``, ``/history``, ``/puzzle``, tournaments) is
told by ``CommandWatch``: when discord.py reports it completed, with the outcome the command
``settle``d (a refusal or a failure it answered itself; ``ok`` if it settled none), or when the
command tree's error handler answered it (``COMMAND_ENDED``). A command's time runs from the
command tree's check, a button's from its handler.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import Any, Protocol

import discord
from discord.ext import commands

from bot.chat.components import Press
from bot.chat.request_outcomes import COMMAND_ENDED, TOLD, Ended, began, settled
from bot.chat.sending import Interaction


class InteractionObserver(Protocol):
    """Hears each request handled."""

    def interaction(self, kind: str, outcome: str, seconds: float) -> None:
        """A request of ``kind`` (``kind_of``) ended with ``outcome`` after ``seconds``."""


def kind_of(interaction: Interaction, press: Press | None = None) -> str:
    """A request's kind, from a small set: ``/`` and a command's name, or ``button:`` or
    ``form:`` and what the button does (never a match id or a member's input)."""
    command = interaction.command
    if command is not None:
        return f"/{command.qualified_name}"
    form = interaction.type is discord.InteractionType.modal_submit
    place = "form" if form else "button"
    if press is None and isinstance(interaction.data, dict):
        press = Press.parse(str(interaction.data.get("custom_id", "")))
    return f"{place}:{press.verb}" if press is not None else place


def tell(
    observer: InteractionObserver,
    interaction: Interaction,
    outcome: str,
    press: Press | None = None,
    *,
    kind: str | None = None,
) -> None:
    """Tell ``observer`` how ``interaction`` ended, unless it was told already; ``kind``, when
    given, names a button whose ``custom_id`` is not a match's (``button:queue_join``)."""
    if interaction.extras.get(TOLD):
        return
    interaction.extras[TOLD] = True
    seconds = time.perf_counter() - began(interaction)
    observer.interaction(kind or kind_of(interaction, press), outcome, seconds)


@asynccontextmanager
async def observed(
    observer: InteractionObserver | None,
    interaction: Interaction,
    press: Press | None = None,
    *,
    kind: str | None = None,
) -> AsyncIterator[Ended]:
    """Tell ``observer`` (``None``: nobody) how the block's request ended: the block sets the
    outcome of what it is given, which stays ``failed`` if it never does (an error escaped)."""
    ended = Ended()
    began(interaction)
    try:
        yield ended
    finally:
        if observer is not None:
            tell(observer, interaction, ended.outcome, press, kind=kind)


async def observe_press(
    observer: InteractionObserver | None,
    interaction: Interaction,
    kind: str,
    answering: Awaitable[str],
) -> None:
    """Answer a press whose ``custom_id`` is not a match's by awaiting ``answering`` (its
    outcome), and tell ``observer`` how it ended, as ``kind``."""
    async with observed(observer, interaction, kind=kind) as ended:
        ended.outcome = await answering


class CommandWatch:
    """Tells ``observer`` of the slash commands nothing else told it of (the client's
    listeners: ``on_app_command_completion`` and ``COMMAND_ENDED``)."""

    def __init__(self, observer: InteractionObserver) -> None:
        self.observer = observer

    async def completed(self, interaction: Interaction, _command: Any) -> None:
        tell(self.observer, interaction, settled(interaction))

    async def ended(self, interaction: Interaction, outcome: str) -> None:
        tell(self.observer, interaction, outcome)

    def listen(self, client: commands.AutoShardedBot) -> None:
        client.add_listener(self.completed, "on_app_command_completion")
        client.add_listener(self.ended, f"on_{COMMAND_ENDED}")
