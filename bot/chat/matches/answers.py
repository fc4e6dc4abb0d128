"""An interaction's own answer: on time, once, and private unless it is the board.

Discord drops an interaction that is not acknowledged within 3 seconds. Whatever a request waits
on (its use case, the match's board lock held by a bot-token edit sleeping on a rate limit), an
``Exchange`` defers the interaction ``ACK_WITHIN`` seconds after it arrived unless something
answered it by then. Every response goes through ``Exchange.turn``, so the deferral and an
answer never race.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import discord

from bot.chat.boards import render
from bot.chat.components import Post
from bot.chat.followups import Followups
from bot.chat.sending import Interaction, message_kwargs, on_private_message
from bot.i18n import _
from bot.service.notices import MatchSnapshot

ACK_WITHIN = 1.5
"""Seconds after which an unanswered interaction is deferred (Discord allows 3)."""
DEFERRED = frozenset(
    {
        discord.InteractionResponseType.deferred_channel_message,
        discord.InteractionResponseType.deferred_message_update,
    }
)


class Exchange:
    """An interaction being answered, and the timer that defers it when the answer is late.

    ``private``: the answer will be private whatever happens (a picker, a listing), so a
    deferral is a private "thinking"; otherwise a press is deferred as a silent update of the
    pressed message, a command as a private "thinking". ``followups`` creates the
    interaction's followups, counted with the process's others.
    """

    def __init__(
        self, interaction: Interaction, followups: Followups, *, private: bool = False
    ) -> None:
        self.interaction = interaction
        self.followups = followups
        self.private = private
        self._lock = asyncio.Lock()
        self._timer: asyncio.Task[None] | None = None

    def __enter__(self) -> Exchange:
        self._timer = asyncio.ensure_future(self._defer_late())
        return self

    def __exit__(self, *exc: object) -> None:
        if self._timer is not None:
            self._timer.cancel()

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[discord.InteractionResponse[Any]]:
        """Hold the response while answering: the deferral waits, or has happened already
        (``is_done``)."""
        async with self._lock:
            yield self.interaction.response

    @property
    def response_free(self) -> bool:
        """Whether the response may still carry the board: unused, or only deferred."""
        response = self.interaction.response
        return not response.is_done() or response.type in DEFERRED

    async def _defer_late(self) -> None:
        await asyncio.sleep(ACK_WITHIN)
        async with self._lock:
            response = self.interaction.response
            if response.is_done():
                return
            command = self.interaction.type is discord.InteractionType.application_command
            if self.private or command:
                await response.defer(ephemeral=True, thinking=True)
            else:
                await response.defer()  # a silent update of the pressed message

    async def answer_privately(self, answer: str | Post) -> None:
        """Answer the member who acted, ephemerally (in the first response if still free)."""
        post = answer if isinstance(answer, Post) else Post(render.fit(answer))
        kwargs = message_kwargs(post)
        async with self.turn() as response:
            if response.is_done():
                await self.followups.send(self.interaction, ephemeral=True, **kwargs)
            else:
                await response.send_message(ephemeral=True, **kwargs)

    async def finish(self, snap: MatchSnapshot, private_lines: list[str], board_url: str) -> None:
        """Answer the interaction if the board did not: private lines, or where the board is."""
        interaction = self.interaction
        text = "\n".join(private_lines)
        async with self.turn() as response:
            if response.is_done():
                if text:
                    await self.followups.send(interaction, render.fit(text), ephemeral=True)
                elif response.type is discord.InteractionResponseType.deferred_channel_message:
                    # Deferred while the move was slow: the "thinking" answer must say it is done.
                    await interaction.edit_original_response(content=done_text(snap, board_url))
                return
            if on_private_message(interaction) and interaction.message is not None:
                # A DM picker or private prompt that has done its job: keep its text, drop its
                # buttons, and add what came of it.
                done = text or _("Done: {board}", board=board_url)
                content = render.fit(f"{interaction.message.content}\n\n{done}")
                await response.edit_message(content=content, view=None)
                return
            if not text and interaction.type is discord.InteractionType.component:
                await response.defer()  # nothing to say: the board shows it
                return
            await response.send_message(
                render.fit(text or done_text(snap, board_url)), ephemeral=True
            )


def done_text(snap: MatchSnapshot, board: str) -> str:
    if snap.status == "challenged":
        return _("Challenge posted: {board}", board=board)
    return _("Played: {board}", board=board)
