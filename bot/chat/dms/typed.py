"""Typed answers by DM: a secret ("2 3", "213"), a Crown hint ("row"), a Flag Chase "TRAP 3 4".

DM texts reach the bot without the Message Content intent. The answer goes to the member's match
that waits for them; with several, they start it with the match number: "#12 2 3". The text is
never logged: it may be a secret. Each DM is taken once by its id (``AwaitedAnswers.take``),
whether it arrives live or is read at a start (``missed.py``); one typed while the bot shuts
down is left for its next start.
"""

from __future__ import annotations

import logging
import re

import discord
from discord.ext import commands

import games
from bot.chat.app import Parlor
from bot.chat.boards.delivery import MessageActor
from bot.chat.failures import FAILED
from bot.chat.parts import Parts
from bot.chat.readers import hear_dm
from bot.chat.refusals import say
from bot.i18n import N_, _
from bot.service.dm_answers import AwaitedAnswers
from bot.service.errors import REFUSALS, MatchNotFound
from bot.service.failures import log_failure
from games.base import Ask

RESTARTING = N_(
    "Parlor is restarting: it will read your answer to its question when it is back, in a moment."
)

ANSWERED_ON_THE_MESSAGE = N_(
    "A match outside servers reads no answer typed to me: answer from the match's own "
    "message, with its **Choose my secret** or **Choose my hint** button (a Flag Chase trap: "
    "**Trap**); only you will see it."
)
"""A typed DM for a match reached only through interactions: no DM asked for it (the bot
cannot DM every player there), so, as every input answers only what it was made for, it
plays nothing."""

log = logging.getLogger(__name__)

_NUMBERED = re.compile(r"#\s*(?P<match>\d{1,20})\s+(?P<answer>.+)", re.DOTALL)


def split_answer(text: str) -> tuple[int | None, str]:
    """The match number the text starts with (``#12 ...``), if any, and the answer itself."""
    text = text.strip()
    numbered = _NUMBERED.fullmatch(text)
    if numbered is None:
        return None, text
    return int(numbered["match"]), numbered["answer"].strip()


def private_asks(game: str, text: str) -> frozenset[Ask]:
    """What a typed DM may answer: a secret or a hint, and a move only where the game's moves
    can be secret (a Flag Chase trap): other moves are made in the channel."""
    if games.get(game).is_secret(text):
        return frozenset({Ask.SECRET, Ask.HINT, Ask.ACTION})
    return frozenset({Ask.SECRET, Ask.HINT})


class TypedAnswers(commands.Cog):
    def __init__(self, bot: Parlor, parts: Parts, answers: AwaitedAnswers | None = None) -> None:
        self.bot = bot
        self.parts = parts
        self.matches = parts.matches
        self.answers = answers

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if message.guild is not None or message.author.bot or not message.content.strip():
            return
        if self.bot.closing:  # not taken: the next start reads it
            await message.channel.send(_(RESTARTING))
            return
        await self.take(message)

    async def take(self, message: discord.Message) -> bool:
        """Answer a member's typed DM, unless it was taken already (live or at a start):
        whether it was answered now."""
        async with self.bot.busy():
            try:
                if self.answers is not None and not await self.answers.take(message.id):
                    return False
            except Exception:
                log_failure(log, "typed DM answer of user %s failed", message.author.id)
                await message.channel.send(_(FAILED))
                return False
            await hear_dm(self.parts.languages, message.author.id)
            await self._answer(message)
        return True

    async def _answer(self, message: discord.Message) -> None:
        """Submit a typed DM to the match waiting for it, and deliver what happened."""
        user_id = message.author.id
        match_id, answer = split_answer(message.content)
        try:
            if match_id is None:
                match_id = await self._waiting_match(user_id)
            snap = await self.matches.lookups.snapshot(match_id)
            if snap.by_interaction_only:
                raise MatchNotFound(_(ANSWERED_ON_THE_MESSAGE))
            log.info("match %s: typed DM answer from user %s", match_id, user_id)
            game = snap.game
            report = await self.matches.play.submit(
                match_id, user_id, answer, answering=private_asks(game, answer)
            )
        except REFUSALS as error:
            await message.channel.send(say(error))
            return
        except Exception:
            log_failure(log, "typed DM answer of user %s failed", user_id)
            await message.channel.send(_(FAILED))
            return
        actor = MessageActor(message)
        await self.parts.delivery.deliver(report, actor=actor)
        if not actor.told:
            snap = report.match
            await message.channel.send(
                _(
                    "Played in match #{id}: {board}",
                    id=snap.id,
                    board=self.parts.places.board_url(snap),
                )
            )

    async def _waiting_match(self, user_id: int) -> int:
        """The one match waiting for the user's answer; refused when there are none or several."""
        found = await self.matches.lookups.waiting_for(user_id)
        waiting = [s for s in found if not s.by_interaction_only]  # no DM asked for those
        if len(waiting) == 1:
            return waiting[0].id
        if not waiting and found:
            raise MatchNotFound(_(ANSWERED_ON_THE_MESSAGE))
        if not waiting:
            raise MatchNotFound(
                _("None of your matches is waiting for an answer from you right now.")
            )
        listed = "; ".join(f"#{s.id} {games.get(s.game).title}" for s in waiting)
        raise MatchNotFound(
            _(
                "Several matches wait for you ({matches}): start your answer with the match "
                "number, e.g. `#{id} 2 3`.",
                matches=listed,
                id=waiting[0].id,
            )
        )
