"""A game's private side on Discord: the interface each game's module fills in.

A game's module in ``bot.chat.games`` holds its command group and, where it needs one, a
``PRIVATE_SIDE``: what its private prompts say and what its own buttons open. The board is the
engine's (``Game.board``), drawn in emoji by ``bot.chat.boards.emoji``, and so are its
buttons (``Game.controls`` and ``Game.choices``, drawn by ``bot.chat.matches.controls``):
public buttons from the public view only, private choices and ``own_secrets`` from the
member's own view.
"""

from __future__ import annotations

from typing import Any

from bot.chat.components import Press
from bot.chat.matches.game_commands import Interaction
from bot.chat.parts import Parts
from bot.i18n import _
from bot.service.notices import MatchSnapshot


class PrivateSide:
    """One game's private texts and the buttons of its own that open something; every method
    has a default."""

    def secret_hint(self, snap: MatchSnapshot) -> str:
        """How to answer the setup ask, for its prompt."""
        return _("Press a button, or type your answer here.")

    def own_secrets(self, view: Any) -> str | None:
        """What the member's own view holds that only they may see, in one line."""
        return None

    async def open(self, interaction: Interaction, press: Press, parts: Parts) -> bool:
        """Answer a press of one of the game's own opening buttons (a trap cell picker, a code
        form) through ``parts``; ``False`` when the press is not one, and the member's prompt
        is shown instead."""
        return False
