"""Claiming due matches: the longest overdue first, the ones tried left out, and on PostgreSQL a
match another transaction holds passed over rather than waited for."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from db import deadlines
from db.matches import load_match
from db.models import MatchStatus
from tests.db.test_repository import NOW, Sessions, add_match


async def due_ids(sessions: Sessions) -> list[int]:
    """Ids in deadline order: the third is not due yet, the fourth is finished."""
    found = []
    for minutes, status in ((-5, MatchStatus.ACTIVE), (-9, MatchStatus.SETUP)):
        match = await add_match(sessions, status=status, deadline=NOW + timedelta(minutes=minutes))
        found.append(match.id)
    await add_match(sessions, status=MatchStatus.ACTIVE, deadline=NOW + timedelta(minutes=1))
    await add_match(sessions, status=MatchStatus.FINISHED, deadline=NOW - timedelta(hours=1))
    return found[::-1]


async def test_the_longest_overdue_match_is_claimed_first(sessions: Sessions) -> None:
    first, second = await due_ids(sessions)
    async with sessions.begin() as session:
        assert await claimed_id(session, NOW) == first
        assert await claimed_id(session, NOW, [first]) == second
        assert await claimed_id(session, NOW, [first, second]) is None


async def test_a_match_another_transaction_holds_is_passed_over(
    engine: AsyncEngine, sessions: Sessions
) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("row locks are PostgreSQL's; SQLite has one writer at a time")
    first, second = await due_ids(sessions)
    async with sessions.begin() as holder:
        assert await claimed_id(holder, NOW) == first
        async with sessions.begin() as other:
            assert await claimed_id(other, NOW) == second
            async with sessions.begin() as third:
                assert await claimed_id(third, NOW) is None
    # Once the holders are done, the matches can be claimed again (nothing acted on them).
    async with sessions.begin() as session:
        assert await claimed_id(session, NOW) == first


async def test_a_match_read_for_a_move_is_passed_over(
    engine: AsyncEngine, sessions: Sessions
) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("row locks are PostgreSQL's; SQLite has one writer at a time")
    first, second = await due_ids(sessions)
    async with sessions.begin() as moving:
        assert await load_match(moving, first, for_update=True) is not None
        async with sessions.begin() as sweeping:
            assert await claimed_id(sweeping, NOW) == second


async def claimed_id(
    session: AsyncSession, now: datetime, passed: Sequence[int] = ()
) -> int | None:
    """The id of the match ``claim_due_match`` claims, or ``None``."""
    due = await deadlines.claim_due_match(session, now, passed)
    return None if due is None else due.match_id
