"""The match service with its transactions in writer processes (``bot.writer_process``).

Whole random matches of every game run through them too (``test_random_matches``); here: the
same refusals, a move applied once however many processes race for it, and a writer that dies
costing nothing but the requests it had not answered.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.errors import AlreadyPlayed, InvalidMove, NotYourTurn
from bot.matches import MatchService
from bot.writer_process import WriterStopped
from db.models import MatchEvent
from db.writer import has_writer
from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock
from tests.service.test_vs_bot import PARLOR, play_out, versus_bot

WRITERS = 2


@pytest.fixture
def sqlite_file(engine: AsyncEngine) -> None:
    if not has_writer(engine):
        pytest.skip("writer processes serve a SQLite file only")


@pytest.fixture
async def service(
    sqlite_file: None, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> AsyncIterator[MatchService]:
    service = MatchService(sessions, clock=clock, seeds=lambda: 1, writer_processes=WRITERS)
    yield service
    await service.close()


async def crown_started(service: MatchService) -> int:
    """A Crown match with both secrets in: Alice (seat 0) to attack."""
    report = await service.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB, game="crown"
    )
    match_id = report.match.id
    await service.accept(match_id, BOB)
    await service.submit(match_id, ALICE, "1 1")
    await service.submit(match_id, BOB, "3 3")
    return match_id


async def count_events(sessions: async_sessionmaker[AsyncSession], match_id: int) -> int:
    async with sessions() as session:
        query = select(func.count()).select_from(MatchEvent).where(MatchEvent.match_id == match_id)
        return int(await session.scalar(query) or 0)


async def test_refusals_come_back_with_their_reasons_and_change_nothing(
    service: MatchService, sessions: async_sessionmaker[AsyncSession]
) -> None:
    match_id = await crown_started(service)
    before = await service.snapshot(match_id)
    events = await count_events(sessions, match_id)

    with pytest.raises(NotYourTurn):
        await service.submit(match_id, BOB, "2 2")
    with pytest.raises(InvalidMove, match="off the grid"):
        await service.submit(match_id, ALICE, "9 9")

    assert await service.snapshot(match_id) == before
    assert await count_events(sessions, match_id) == events
    report = await service.submit(match_id, ALICE, "2 2")
    assert report.match.version == before.version + 1


async def test_fifty_clicks_from_two_bot_processes_apply_once(
    service: MatchService, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    other = MatchService(sessions, clock=clock, seeds=lambda: 1, writer_processes=WRITERS)
    try:
        match_id = await crown_started(service)
        seen = (await service.snapshot(match_id)).version
        events = await count_events(sessions, match_id)

        async def click(through: MatchService) -> str:
            try:
                await through.submit(match_id, ALICE, "2 2", expected_version=seen)
            except AlreadyPlayed as error:
                return str(error)
            return "applied"

        results = await asyncio.gather(*(click((service, other)[n % 2]) for n in range(50)))
    finally:
        await other.close()
    assert results.count("applied") == 1
    assert all("already played" in result for result in results if result != "applied")
    assert (await service.snapshot(match_id)).version == seen + 1
    assert await count_events(sessions, match_id) == events + 2  # the attack and its "Miss"


async def test_a_killed_writer_is_replaced_and_the_match_goes_on(service: MatchService) -> None:
    match_id = await crown_started(service)
    await service.submit(match_id, ALICE, "2 2")
    assert service.writer_pids
    for pid in service.writer_pids:
        os.kill(pid, signal.SIGKILL)

    # A request may still meet a dead writer, and is told so (nothing of it was saved);
    # the next goes to a new one.
    try:
        report = await service.submit(match_id, BOB, "column")
    except WriterStopped:
        report = await service.submit(match_id, BOB, "column")
    assert report.match.to_act == (BOB,)
    report = await service.submit(match_id, BOB, "1 1")
    assert report.match.status == "finished" and report.match.winner_id == BOB


@pytest.mark.parametrize("game", ["crown", "safe"])
async def test_a_match_against_the_bot_plays_out_in_the_writers(
    sqlite_file: None, sessions: async_sessionmaker[AsyncSession], clock: Clock, game: str
) -> None:
    """The built-in player answers inside the writers' transactions, as it does at home."""
    versus = MatchService(
        sessions, clock=clock, seeds=lambda: 1, bot_user_id=PARLOR, writer_processes=WRITERS
    )
    try:
        report = await play_out(versus, sessions, await versus_bot(versus, game, "hard"))
    finally:
        await versus.close()
    assert report.match.status == "finished"


async def test_writers_outlive_the_signals_meant_for_the_bot(service: MatchService) -> None:
    """Ctrl+C or a service manager's stop reach the whole process group: the bot decides when
    its writers stop (``close``)."""
    match_id = await crown_started(service)
    pids = service.writer_pids
    assert pids
    for pid in pids:
        os.kill(pid, signal.SIGINT)
        os.kill(pid, signal.SIGTERM)
    report = await service.submit(match_id, ALICE, "2 2")
    assert report.match.to_act == (BOB,)
    assert service.writer_pids == pids


async def test_starting_brings_every_writer_up_before_the_first_move(
    service: MatchService,
) -> None:
    assert service.writer_pids == []
    await service.start()
    assert len(service.writer_pids) == WRITERS


async def test_closing_ends_the_writers(service: MatchService) -> None:
    await crown_started(service)
    pids = service.writer_pids
    assert pids
    await service.close()
    assert service.writer_pids == []
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


async def test_a_mention_that_cannot_reach_a_writer_is_refused(
    sqlite_file: None, sessions: async_sessionmaker[AsyncSession]
) -> None:
    with pytest.raises(ValueError, match="pickle"):
        MatchService(sessions, mention=lambda uid: f"@{uid}", writer_processes=WRITERS)
