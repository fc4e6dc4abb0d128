"""``/puzzle`` and the puzzles' buttons, each answered privately.

``PuzzleDesk`` gets the puzzles' use cases from the composition root and answers every press of
its buttons through one ``DynamicItem`` class bound to it (``PuzzleDesk.items``): a choice, Next
puzzle, and the daily post's Solve, each known from its ``custom_id`` alone, so a puzzle left
open is answered after a restart. Each is asked for the server it comes from (the public pool
alone outside servers): another server's puzzle reads as if it did not exist. The observer
hears how each press ended (``button:puzzle_choice``, ``button:puzzle_next``,
``button:puzzle_solve``), never which puzzle.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import games
from bot.chat.boards.delivery import FAILED
from bot.chat.followups import Followups
from bot.chat.matches.carried import Carried, answered_by, carried_view
from bot.chat.matches.places import playable_anywhere
from bot.chat.puzzles import texts
from bot.chat.refusals import say
from bot.chat.request_outcomes import FAILED_OUTCOME, OK, REFUSED, settle
from bot.chat.request_watch import InteractionObserver, observe_press
from bot.chat.shared_commands import GAME_CHOICES
from bot.i18n import _
from bot.service.errors import REFUSALS
from bot.service.failures import log_failure
from bot.service.puzzles import Puzzles
from games.puzzles import pool as public_pool

log = logging.getLogger(__name__)

Interaction = discord.Interaction[Any]

PUZZLE_GAMES = [choice for choice in GAME_CHOICES if choice.value in public_pool.GAMES]
"""The games that give puzzles (Flag Chase's review is never exact: docs/puzzles.md)."""
TEMPLATE = "|".join(
    f"(?:{template})"
    for template in (texts.OPEN_TEMPLATE, texts.NEXT_TEMPLATE, texts.ANSWER_TEMPLATE)
)


@dataclass
class PuzzleScreen:
    embed: discord.Embed
    buttons: texts.Buttons


class PuzzleDesk:
    """Puzzles shown and answered, each a private answer."""

    def __init__(
        self,
        puzzles: Puzzles,
        busy: Callable[[], AbstractAsyncContextManager[None]],
        followups: Followups,
        observer: InteractionObserver | None = None,
    ) -> None:
        self.puzzles = puzzles
        self.busy = busy
        self.followups = followups
        self.observer = observer
        """Hears how each press of the buttons ended (``None``: nobody)."""
        self.press_class = answered_by(TEMPLATE, self.on_press)

    def items(self) -> tuple[type[discord.ui.DynamicItem[Any]], ...]:
        """The dynamic item to register with ``bot.add_dynamic_items``."""
        return (self.press_class,)

    def view(self, buttons: texts.Buttons) -> discord.ui.View:
        """The buttons to carry; their presses reach the registered ``press_class``."""
        return carried_view(
            *(
                Carried(label=label, custom_id=custom_id, style=style)
                for label, custom_id, style in buttons
            )
        )

    async def next_puzzle(
        self, guild_id: int | None, user_id: int, game: str | None
    ) -> PuzzleScreen:
        shown = await self.puzzles.next_puzzle(guild_id, user_id, game)
        return PuzzleScreen(texts.puzzle_embed(shown), texts.choice_buttons(shown, game))

    async def opened(self, guild_id: int | None, puzzle_id: int) -> PuzzleScreen:
        shown = await self.puzzles.puzzle(guild_id, puzzle_id)
        return PuzzleScreen(texts.puzzle_embed(shown), texts.choice_buttons(shown, None))

    async def answer(
        self, guild_id: int | None, user_id: int, puzzle_id: int, choice: int, asked: str | None
    ) -> PuzzleScreen:
        answered = await self.puzzles.answer(guild_id, user_id, puzzle_id, choice)
        return PuzzleScreen(texts.answer_embed(answered), texts.next_button(asked))

    async def on_press(self, interaction: Interaction, found: re.Match[str]) -> None:
        """Answer a press of a puzzle's button, and tell the observer how it ended."""
        verb, answering = self._pressed(interaction, found.groupdict())
        await observe_press(self.observer, interaction, f"button:puzzle_{verb}", answering)

    def _pressed(
        self, interaction: Interaction, groups: dict[str, str]
    ) -> tuple[str, Awaitable[str]]:
        """What a press does (``solve``, ``next`` or ``choice``), and its answer to await."""
        guild_id, user_id = interaction.guild_id, interaction.user.id
        if groups.get("opened"):
            return "solve", self.show(interaction, self.opened(guild_id, int(groups["opened"])))
        if groups.get("game"):
            game = _game(groups["game"])
            screen = self.next_puzzle(guild_id, user_id, game)
            return "next", self.show(interaction, screen, edit=True)
        puzzle_id, choice = int(groups["puzzle"]), int(groups["choice"])
        answer = self.answer(guild_id, user_id, puzzle_id, choice, _game(groups["asked"]))
        return "choice", self.show(interaction, answer, edit=True)

    async def show(
        self, interaction: Interaction, making: Awaitable[PuzzleScreen], *, edit: bool = False
    ) -> str:
        """Answer privately with what ``making`` builds: a new message, or (``edit``) the
        private puzzle pressed, edited in place; a refusal privately, the message unchanged.
        How the request ended (``OK``, ``REFUSED`` or ``FAILED_OUTCOME``).

        While the public pool may still have to be stored (the first puzzle a process serves),
        the interaction is acknowledged first, within Discord's 3 seconds, and answered after."""
        async with self.busy():
            late = not self.puzzles.pool_ready
            if late:
                await interaction.response.defer(ephemeral=True, thinking=not edit)
            try:
                screen = await making
            except REFUSALS as error:
                await self._say(interaction, say(error))
                return REFUSED
            except Exception:
                log_failure(log, "puzzle request of user %s failed", interaction.user.id)
                await self._say(interaction, _(FAILED))
                return FAILED_OUTCOME
            none = discord.AllowedMentions.none()
            embed, view = screen.embed, self.view(screen.buttons)
            if edit and late:
                await interaction.edit_original_response(
                    embed=embed, view=view, allowed_mentions=none
                )
            elif edit:
                await interaction.response.edit_message(
                    embed=embed, view=view, allowed_mentions=none
                )
            elif late:
                await self.followups.send(
                    interaction, embed=embed, view=view, ephemeral=True, allowed_mentions=none
                )
            else:
                await interaction.response.send_message(
                    embed=embed, view=view, ephemeral=True, allowed_mentions=none
                )
            return OK

    async def _say(self, interaction: Interaction, text: str) -> None:
        if interaction.response.is_done():
            await self.followups.send(interaction, text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)


def _game(named: str) -> str | None:
    """The game a custom id names, or ``None`` for any (and for a name no game has)."""
    return named if named in games.GAMES else None


class PuzzleCommands(commands.Cog):
    """``/puzzle``."""

    def __init__(self, desk: PuzzleDesk) -> None:
        self.desk = desk

    @app_commands.command(description="A puzzle from real games: find the best move.")
    @app_commands.describe(game="Only this game (default: any game).")
    @app_commands.choices(game=PUZZLE_GAMES)
    @playable_anywhere  # outside servers: the public pool's puzzles
    async def puzzle(self, interaction: Interaction, game: str | None = None) -> None:
        making = self.desk.next_puzzle(interaction.guild_id, interaction.user.id, game)
        settle(interaction, await self.desk.show(interaction, making))
