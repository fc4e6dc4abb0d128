"""After the game on Discord: the Review button of a finished board, ``/history`` and
``/replay``, each answered privately, and the names kept with matches as they end.

``AfterGame`` gets the services it uses from the composition root (``bot.chat.app``) and
answers every press of its buttons through one ``DynamicItem`` class bound to it
(``AfterGame.items``), so a review, a history page or a replay left open pages on after a
restart. Each press is answered for the server it comes from: a match of another server is
answered as if it did not exist.
"""

from __future__ import annotations

import io
import logging
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.chat.after_game import pages as texts
from bot.chat.after_game import records
from bot.chat.after_game import review as review_texts
from bot.chat.app import NOT_A_MEMBER
from bot.chat.boards.delivery import FAILED
from bot.chat.followups import Followups
from bot.chat.matches.carried import Carried, answered_by, carried_view
from bot.chat.matches.places import not_a_member, playable_anywhere
from bot.chat.refusals import say
from bot.chat.request_outcomes import FAILED_OUTCOME, OK, REFUSED, settle
from bot.chat.request_watch import InteractionObserver, observe_press
from bot.chat.shared_commands import GAME_CHOICES
from bot.i18n import _
from bot.service.errors import REFUSALS
from bot.service.failures import log_failure
from bot.service.match_state import MAX_MATCH_ID
from bot.service.member_history import HistoryService
from bot.service.replays import Replays

log = logging.getLogger(__name__)

Interaction = discord.Interaction[Any]

BOARD_REVIEW_TEMPLATE = r"[a-z]{1,16}:(?P<board>[0-9]{1,10}):[0-9]{1,9}:review"
"""The Review button on a finished board: ``<game>:<match>:<version>:review``."""
TEMPLATE = "|".join(
    f"(?:{template})"
    for template in (
        BOARD_REVIEW_TEMPLATE,
        review_texts.DETAILS_TEMPLATE,
        texts.HISTORY_TEMPLATE,
        texts.REPLAY_TEMPLATE,
    )
)
NAMES_KEPT = 10_000
"""Members' names a process remembers (the latest seen), for the matches that end."""


class NameBook:
    """Members' display names as their own interactions show them, latest first.

    The bot asks for no privileged intent, so Discord sends no member lists: a player's name
    is known from the interactions they make (a command, a press). It is kept with a match when
    the match ends (``bot.service`` calls ``name``), for the record and the web pages.
    """

    def __init__(self, size: int = NAMES_KEPT) -> None:
        self.size = size
        self.names: OrderedDict[tuple[int, int], str] = OrderedDict()

    def name(self, guild_id: int, user_id: int) -> str | None:
        return self.names.get((guild_id, user_id))

    def saw(self, guild_id: int | None, user: discord.abc.User) -> None:
        if guild_id is None or not isinstance(user, discord.Member):
            return
        key = (guild_id, user.id)
        self.names[key] = user.display_name
        self.names.move_to_end(key)
        while len(self.names) > self.size:
            self.names.popitem(last=False)

    async def on_interaction(self, interaction: Interaction) -> None:
        self.saw(interaction.guild_id, interaction.user)


@dataclass
class Screen:
    """A private message's embed and buttons, or a file to attach."""

    embed: discord.Embed | None = None
    buttons: texts.Buttons = field(default_factory=list)
    file: discord.File | None = None


class AfterGame:
    """Reviews, history pages and replays, each a private answer."""

    def __init__(
        self,
        replays: Replays,
        histories: HistoryService,
        busy: Callable[[], AbstractAsyncContextManager[None]],
        followups: Followups,
        observer: InteractionObserver | None = None,
    ) -> None:
        self.replays = replays
        self.histories = histories
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
                Carried(label=label, custom_id=custom_id, disabled=disabled)
                for label, custom_id, disabled in buttons
            )
        )

    # ------------------------------------------------------------------ what each shows

    async def review(self, guild_id: int, member_id: int, match_id: int, move: int) -> Screen:
        shown = await self.replays.review(guild_id, match_id, member_id)
        move = max(0, min(move, len(shown.review.moves)))
        return Screen(
            review_texts.review_embed(shown, move), review_texts.page_buttons(shown, move)
        )

    async def history(self, guild_id: int, user_id: int, game: str | None, page: int) -> Screen:
        found = await self.histories.history(guild_id, user_id, game, page)
        return Screen(texts.history_embed(found, guild_id), texts.history_buttons(found))

    async def replay(self, guild_id: int, match_id: int, step: int) -> Screen:
        found = await self.replays.replay(guild_id, match_id)
        return Screen(texts.replay_embed(found, step), texts.replay_buttons(found, step))

    async def download(self, guild_id: int, member_id: int, match_id: int) -> Screen:
        name, text = records.record(await self.replays.review(guild_id, match_id, member_id))
        return Screen(file=discord.File(io.BytesIO(text.encode()), filename=name))

    # ------------------------------------------------------------------ answering

    async def on_press(self, interaction: Interaction, found: re.Match[str]) -> None:
        """Answer a press of one of the after-game buttons, from its ``custom_id`` alone, and
        tell the observer how it ended (``button:review``, ``history``, ``replay`` or
        ``download``)."""
        kind, answering = self._pressed(interaction, found.groupdict())
        await observe_press(self.observer, interaction, f"button:{kind}", answering)

    def _pressed(
        self, interaction: Interaction, groups: dict[str, str]
    ) -> tuple[str, Awaitable[str]]:
        """What a press does, and its answer to await."""
        guild_id, member_id = interaction.guild_id or 0, interaction.user.id
        if groups.get("board"):
            reviewed = int(groups["board"])
            screen = self.review(guild_id, member_id, reviewed, 0)
            return "review", self.answer(interaction, screen, defer=not self.replays.kept(reviewed))
        if groups.get("move") is not None:
            reviewed = int(groups["reviewed"])
            screen = self.review(guild_id, member_id, reviewed, int(groups["move"]))
            kept = self.replays.kept(reviewed)
            return "review", self.answer(interaction, screen, edit=True, defer=not kept)
        if groups.get("page") is not None:
            game = None if groups["game"] == texts.EVERY_GAME else groups["game"]
            screen = self.history(guild_id, int(groups["user"]), game, int(groups["page"]))
            return "history", self.answer(interaction, screen, edit=True)
        if groups.get("step") == texts.FILE:
            replayed = int(groups["replayed"])
            screen = self.download(guild_id, member_id, replayed)
            kept = self.replays.kept(replayed)
            return "download", self.answer(interaction, screen, defer=not kept)
        screen = self.replay(guild_id, int(groups["replayed"]), int(groups["step"]))
        return "replay", self.answer(interaction, screen, edit=True)

    async def answer(
        self,
        interaction: Interaction,
        making: Awaitable[Screen],
        *,
        edit: bool = False,
        defer: bool = False,
    ) -> str:
        """Answer privately with what ``making`` builds: a new message, or (``edit``) the
        private message pressed, edited in place. A refusal is answered privately instead.
        How the request ended (``OK``, ``REFUSED`` or ``FAILED_OUTCOME``).

        ``defer``: acknowledge the interaction first, within Discord's 3 seconds, and answer
        when ``making`` is done (a review that may have to be computed); a refusal then comes
        as a private message of its own, and the message pressed stays as it was."""
        async with self.busy():
            if defer:
                await interaction.response.defer(ephemeral=True, thinking=not edit)
            try:
                screen = await making
            except REFUSALS as error:
                await self._say(interaction, say(error))
                return REFUSED
            except Exception:
                log_failure(log, "request of user %s failed", interaction.user.id)
                await self._say(interaction, _(FAILED))
                return FAILED_OUTCOME
            await self._show(interaction, screen, edit=edit)
            return OK

    async def _say(self, interaction: Interaction, text: str) -> None:
        if interaction.response.is_done():
            await self.followups.send(interaction, text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)

    async def _show(self, interaction: Interaction, screen: Screen, *, edit: bool) -> None:
        """``screen`` as the interaction's answer: the pressed message edited, or a private
        message. After a deferral the edit goes through the original response and the message
        is the first followup, which takes the place of the deferred "thinking" one."""
        none = discord.AllowedMentions.none()
        late = interaction.response.is_done()
        send = (
            partial(self.followups.send, interaction) if late else interaction.response.send_message
        )
        if screen.file is not None or screen.embed is None:
            await send(
                file=screen.file or discord.utils.MISSING, ephemeral=True, allowed_mentions=none
            )
        elif edit:
            change = (
                interaction.edit_original_response if late else interaction.response.edit_message
            )
            await change(embed=screen.embed, view=self.view(screen.buttons), allowed_mentions=none)
        else:
            await send(
                embed=screen.embed,
                view=self.view(screen.buttons),
                ephemeral=True,
                allowed_mentions=none,
            )


class History(commands.Cog):
    """``/history`` and ``/replay``."""

    def __init__(self, desk: AfterGame) -> None:
        self.desk = desk

    @app_commands.command(description="Your finished matches here (or a member's), newest first.")
    @app_commands.describe(user="Whose matches (default: yours).", game="Only this game.")
    @app_commands.choices(game=GAME_CHOICES)
    @playable_anywhere  # outside servers: the matches played outside servers
    async def history(
        self,
        interaction: Interaction,
        user: discord.User | None = None,
        game: str | None = None,
    ) -> None:
        if not_a_member(interaction, user):
            await interaction.response.send_message(_(NOT_A_MEMBER), ephemeral=True)
            settle(interaction, REFUSED)
            return
        whose = (user or interaction.user).id
        screen = self.desk.history(interaction.guild_id or 0, whose, game, 0)
        settle(interaction, await self.desk.answer(interaction, screen))

    @app_commands.command(description="Replay a finished match of this server, move by move.")
    @app_commands.describe(match="The match's number (#N on its board).")
    @playable_anywhere
    async def replay(
        self, interaction: Interaction, match: app_commands.Range[int, 1, MAX_MATCH_ID]
    ) -> None:
        screen = self.desk.replay(interaction.guild_id or 0, match, 0)
        settle(interaction, await self.desk.answer(interaction, screen))
