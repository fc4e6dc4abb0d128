"""Answers typed by DM while the bot was away: what it still awaits, and each DM taken once.

When the bot asks a member by DM (a secret, a hint, a trap), the prompt's DM channel and message
are noted. At its next start the Discord side reads each awaited prompt's channel after the
prompt, and takes what the member typed meanwhile as if it had just arrived. Every typed DM is
taken by its message id, live or read at a start, exactly once: a second start, or the live
event of a DM a start already read, plays nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.lookups import Lookups
from bot.service.match_state import Clock
from db.connection import session_transaction
from db.dm_answers import (
    KEPT,
    forget_answers,
    forget_prompt,
    note_prompt,
    prompts,
    take_answer,
)
from db.models import utcnow


@dataclass(frozen=True)
class Awaited:
    """A prompt the bot asked by DM whose answer its match still waits for."""

    match_id: int
    user_id: int
    channel_id: int
    message_id: int


class AwaitedAnswers:
    """The prompts awaited by DM, and the typed DMs taken, each in a transaction of its own."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], lookups: Lookups, *, clock: Clock = utcnow
    ) -> None:
        self.sessions = sessions
        self.lookups = lookups
        self.clock = clock

    async def asked(self, match_id: int, user_id: int, channel_id: int, message_id: int) -> None:
        """The bot asked ``user_id`` for ``match_id`` in DM message ``message_id``."""
        async with session_transaction(self.sessions) as session:
            await note_prompt(session, match_id, user_id, channel_id, message_id, self.clock())

    async def awaited(self) -> list[Awaited]:
        """The prompts whose matches still wait for their member; the others are forgotten,
        and so are DMs taken longer ago than a start reads."""
        async with session_transaction(self.sessions) as session:
            await forget_answers(session, self.oldest())
            noted = [
                Awaited(row.match_id, row.user_id, row.channel_id, row.message_id)
                for row in await prompts(session)
            ]
        waiting: dict[int, set[int]] = {}
        still = []
        for prompt in noted:
            if prompt.user_id not in waiting:
                matches = await self.lookups.waiting_for(prompt.user_id)
                waiting[prompt.user_id] = {match.id for match in matches}
            if prompt.match_id in waiting[prompt.user_id]:
                still.append(prompt)
            else:
                async with session_transaction(self.sessions) as session:
                    await forget_prompt(session, prompt.match_id, prompt.user_id)
        return still

    async def take(self, message_id: int) -> bool:
        """Take the typed DM ``message_id``: ``True`` the first time only."""
        async with session_transaction(self.sessions) as session:
            return await take_answer(session, message_id, self.clock())

    def oldest(self) -> datetime:
        """The oldest a DM read at a start may be: older ones are not known to be untaken."""
        return self.clock() - KEPT
