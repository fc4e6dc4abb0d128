"""Buttons a message carries, and the registered dynamic items that answer their presses.

A message's view only carries its buttons to Discord: a press is matched by its ``custom_id``
against the ``discord.ui.DynamicItem`` classes the composition root registered (``Pressed``
subclasses), each bound to the parts it uses. The carried buttons are not dispatchable, so
sending them neither keeps a view per message nor puts an unbound class in the place of a
registered one.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, Self

import discord

from bot.chat.readers import hear


class Carried(discord.ui.Button[Any]):
    """A button with a ``custom_id`` that no view answers: a registered dynamic item does."""

    def is_dispatchable(self) -> bool:
        return False


def carried_view(*buttons: Carried) -> discord.ui.View:
    """A view that never times out, carrying ``buttons``."""
    view = discord.ui.View(timeout=None)
    for button in buttons:
        view.add_item(button)
    return view


class Pressed(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"(?!)"):
    """A registered button class, built from the pressed button and what its ``custom_id``
    matched of the subclass's template; the press and its answers are in the member's
    language.

    Its own template matches nothing: only the subclasses, each with its template, are
    registered.
    """

    def __init__(self, button: discord.ui.Button[Any], match: re.Match[str]) -> None:
        super().__init__(button)

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        hear(interaction)
        return True

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        assert isinstance(item, discord.ui.Button)
        return cls(item, match)


OnPress = Callable[[discord.Interaction[Any], re.Match[str]], Awaitable[None]]
"""What answers a press: the interaction, and what its ``custom_id`` matched."""


def answered_by(template: str, on_press: OnPress) -> type[Pressed]:
    """A ``Pressed`` class for ``template`` whose presses ``on_press`` answers: for a desk whose
    buttons all go to one method."""

    class AnsweredPress(Pressed, template=template):
        def __init__(self, button: discord.ui.Button[Any], match: re.Match[str]) -> None:
            super().__init__(button, match)
            self.found = match

        async def callback(self, interaction: discord.Interaction[Any]) -> None:
            await on_press(interaction, self.found)

    return AnsweredPress
