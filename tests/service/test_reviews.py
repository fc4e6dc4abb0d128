"""A review is computed once per match however many ask at once, in a worker process of the
pool it is given, and each member starts only so many computations a minute."""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.errors import ReviewsTooOften
from bot.service.match_parts import MatchParts
from bot.service.replays import Replays
from bot.service.reviews import FairUse, Reviewer, review_pool
from db.models import MatchReview
from tests.service.conftest import ALICE, BOB, GUILD, Clock
from tests.service.test_history import crown_won_by_alice
from tests.service.test_random_matches import play_random_match

PRESSES = 30


async def safe_cracker_finished(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession]
) -> int:
    await play_random_match(service, sessions, "safe", {}, random.Random(3))
    return 1  # the first match of a new database


async def reviews_kept(sessions: async_sessionmaker[AsyncSession]) -> int:
    async with sessions() as session:
        return int(await session.scalar(select(func.count()).select_from(MatchReview)) or 0)


async def test_thirty_presses_at_once_compute_the_review_once(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    match_id = await safe_cracker_finished(service, sessions)
    replays = Replays(sessions, clock=clock)
    members = range(1000, 1000 + PRESSES)  # thirty members, each within their fair use
    shown = await asyncio.gather(*(replays.review(GUILD, match_id, m) for m in members))
    assert replays.reviewer.computed == 1
    assert all(s.review == shown[0].review for s in shown) and shown[0].review.moves
    assert await reviews_kept(sessions) == 1
    # Asked again, it is shown from memory: nothing computed, nothing counted.
    again = await asyncio.gather(*(replays.review(GUILD, match_id, ALICE) for _ in members))
    assert replays.reviewer.computed == 1 and again[0].review == shown[0].review
    assert ALICE not in replays.fair_use.started


@pytest.fixture
async def pool() -> AsyncIterator[Reviewer]:
    executor = review_pool(1)
    try:
        yield Reviewer(executor)
    finally:
        await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)


async def test_the_review_is_computed_in_a_worker_process(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession], clock: Clock, pool: Reviewer
) -> None:
    match_id = await crown_won_by_alice(service, clock)
    replays = Replays(sessions, clock=clock, reviewer=pool)
    shown, other = await asyncio.gather(
        replays.review(GUILD, match_id, ALICE), replays.review(GUILD, match_id, BOB)
    )
    assert pool.computed == 1 and list(pool.pids) != [] and os.getpid() not in pool.pids
    assert shown.review == other.review and shown.review.outcome.winner == 0
    assert str(shown.review.moves[0].move) == "attack (2,2)"


async def test_a_member_over_the_fair_use_limit_is_refused_and_nothing_changes(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    first = await crown_won_by_alice(service, clock)
    second = await crown_won_by_alice(service, clock)
    third = await crown_won_by_alice(service, clock)
    replays = Replays(sessions, clock=clock, fair_use=FairUse(1, clock=clock))
    asked_at = clock()
    await replays.review(GUILD, first, ALICE)
    clock.advance(seconds=20)
    with pytest.raises(ReviewsTooOften) as refused:
        await replays.review(GUILD, second, ALICE)
    assert refused.value == ReviewsTooOften(1, asked_at + timedelta(minutes=1))
    # Nothing was computed, kept or counted for the refusal.
    assert replays.reviewer.computed == 1 and await reviews_kept(sessions) == 1
    assert replays.reviewer.in_flight(second) is None and not replays.kept(second)
    assert len(replays.fair_use.started[ALICE]) == 1
    # A review already made costs nothing; another member has a minute of their own.
    assert (await replays.review(GUILD, first, ALICE)).review.moves
    await replays.review(GUILD, second, BOB)
    assert replays.reviewer.computed == 2
    # A minute after her first, Alice may start another.
    clock.advance(seconds=40)
    assert (await replays.review(GUILD, third, ALICE)).review.moves
    assert replays.reviewer.computed == 3
