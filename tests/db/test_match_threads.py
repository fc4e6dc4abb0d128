"""Settling where a match is played (``db.match_threads``): once per match, a thread only where
the server plays matches in threads, never for a tournament's match; a rematch in a match's own
thread takes that thread as its own."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from db.match_threads import IN_CHANNEL, move_to_thread, place_at_start, settle
from db.matches import load_match
from db.models import Match, MatchPlace, MatchStatus
from db.server_options import set_server_options
from tests.db.test_repository import GUILD, NOW, Sessions, add_match

THREAD = 9_000


async def settled(sessions: Sessions, match_id: int) -> bool:
    async with sessions.begin() as session:
        return await settle(session, match_id)


async def own_thread(session: AsyncSession, match_id: int) -> int | None:
    """The match's own thread, as a snapshot of it names it."""
    found = await session.get(Match, match_id)
    assert found is not None
    return found.thread_id if found.thread_id and found.thread_id == found.channel_id else None


async def threads_on(sessions: Sessions) -> None:
    async with sessions.begin() as session:
        await set_server_options(session, GUILD, NOW, threads=True)


async def test_a_match_settles_in_its_channel_once_and_without_threads_stays_there(
    sessions: Sessions,
) -> None:
    match = await add_match(sessions, status=MatchStatus.ACTIVE)
    assert not await settled(sessions, match.id)  # threads are off
    await threads_on(sessions)
    assert not await settled(sessions, match.id)  # settled already: it does not move mid-match
    async with sessions() as session:
        assert await own_thread(session, match.id) is None


async def test_with_threads_on_one_caller_moves_the_match_to_its_thread(
    engine: AsyncEngine, sessions: Sessions
) -> None:
    await threads_on(sessions)
    match = await add_match(sessions, status=MatchStatus.ACTIVE, message_id=77)
    results = await asyncio.gather(*(settled(sessions, match.id) for _unused in range(3)))
    assert sorted(results) == [False, False, True]  # on both databases, exactly one wins
    async with sessions.begin() as session:
        assert await own_thread(session, match.id) is None  # IN_CHANNEL until it moves
        await move_to_thread(session, match.id, THREAD)
    async with sessions() as session:
        assert await own_thread(session, match.id) == THREAD
    rematch = await add_match(sessions, status=MatchStatus.ACTIVE, channel_id=THREAD)
    assert not await settled(sessions, rematch.id)  # already in a thread: it stays there
    async with sessions() as session:
        assert await own_thread(session, rematch.id) == THREAD


async def test_a_tournament_match_stays_where_its_round_is(sessions: Sessions) -> None:
    await threads_on(sessions)
    match = await add_match(sessions, status=MatchStatus.ACTIVE, tournament_id=5)
    assert not await settled(sessions, match.id)
    async with sessions() as session:
        found = await session.get(Match, match.id)
        assert found is not None and found.thread_id == IN_CHANNEL


async def placed(sessions: Sessions, match_id: int, threads: bool | None = None) -> int | None:
    """Where ``place_at_start`` puts the match, read as it starts."""
    async with sessions.begin() as session:
        found = await load_match(session, match_id, for_update=True)
        assert found is not None
        await place_at_start(session, found.match, threads)
        return found.match.thread_id


async def test_a_match_that_starts_is_settled_in_its_channel_unless_it_may_have_a_thread(
    sessions: Sessions,
) -> None:
    challenged: dict[str, Any] = {"status": MatchStatus.CHALLENGED, "seated": False}
    assert await placed(sessions, (await add_match(sessions, **challenged)).id) == IN_CHANNEL
    await threads_on(sessions)
    assert await placed(sessions, (await add_match(sessions, **challenged)).id) is None
    assert await placed(sessions, (await add_match(sessions, **challenged)).id, False) == 0
    in_tournament = await add_match(sessions, tournament_id=5, **challenged)
    assert await placed(sessions, in_tournament.id) == IN_CHANNEL
    in_a_dm = await add_match(sessions, place=MatchPlace.INTERACTION, **challenged)
    assert await placed(sessions, in_a_dm.id) == IN_CHANNEL
    first = await add_match(sessions, status=MatchStatus.FINISHED)
    async with sessions.begin() as session:
        assert await settle(session, first.id)
        await move_to_thread(session, first.id, THREAD)
    rematch = await add_match(sessions, channel_id=THREAD, **challenged)
    assert await placed(sessions, rematch.id) == THREAD
