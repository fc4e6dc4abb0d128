"""A thread per match: settling where a match is played, once it starts (``db.match_threads``)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db import match_threads
from db.connection import session_transaction


class ThreadPlaces:
    """Where each match is played: its channel, or a thread of its own."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self.sessions = sessions

    async def settle(self, match_id: int) -> bool:
        """Settle a match that just started; whether it should move to a thread of its own
        (the caller then starts it, or leaves the match in its channel)."""
        async with session_transaction(self.sessions) as session:
            return await match_threads.settle(session, match_id)

    async def moved(self, match_id: int, thread_id: int) -> None:
        """The match is now played in its thread ``thread_id``."""
        async with session_transaction(self.sessions) as session:
            await match_threads.move_to_thread(session, match_id, thread_id)
