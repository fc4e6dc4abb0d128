"""Where a match that starts is played, settled in the transaction that starts it: its channel
for good where its server plays no match in threads (nothing is left to settle once its board
shows), a rematch's thread where it was offered in one, and left for the Discord side to settle
where its server plays each match in a thread of its own (``db.match_threads``)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.service.acting import Acting
from bot.service.match_parts import MatchParts
from bot.service.match_threads import ThreadPlaces
from db.match_threads import IN_CHANNEL
from db.models import Match
from db.server_options import set_server_options
from tests.service.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, Clock
from tests.service.test_move_cost import counted

THREAD = 7_000


async def thread_of(sessions: async_sessionmaker[AsyncSession], match_id: int) -> int | None:
    async with sessions() as session:
        found = await session.get(Match, match_id)
        assert found is not None
        return found.thread_id


async def threads_on(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> None:
    async with sessions.begin() as session:
        await set_server_options(session, GUILD, clock(), threads=True)


async def challenged(service: MatchParts, channel: int = CHANNEL, opponent: int = BOB) -> int:
    report = await service.challenges.challenge(
        guild_id=GUILD, channel_id=channel, challenger_id=ALICE, opponent_id=opponent, game="claim"
    )
    return report.match.id


async def test_without_threads_an_accept_settles_the_match_in_its_channel_in_its_own_transaction(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession], engine: AsyncEngine
) -> None:
    match_id = await challenged(service)
    with counted(engine) as cost:
        report = await service.challenges.accept(match_id, Acting(BOB))
    assert cost.commits == 1
    assert not report.match.thread_unsettled  # the board shows: nothing more to settle
    assert await thread_of(sessions, match_id) == IN_CHANNEL
    assert not await ThreadPlaces(sessions).settle(match_id)  # and it never moves


async def test_with_threads_the_match_is_left_for_one_caller_to_move_to_its_thread(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    await threads_on(sessions, clock)
    match_id = await challenged(service)
    report = await service.challenges.accept(match_id, Acting(BOB))
    assert report.match.thread_unsettled
    assert await thread_of(sessions, match_id) is None
    places = ThreadPlaces(sessions)
    assert await places.settle(match_id)  # the one caller who starts its thread
    assert not await places.settle(match_id)
    await places.moved(match_id, THREAD)
    ended = await service.play.resign(match_id, Acting(ALICE))
    assert ended.match.thread_id == THREAD  # its end closes that thread


async def test_a_rematch_offered_in_a_matchs_thread_is_played_there_and_the_bots_match_is_placed(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    await threads_on(sessions, clock)
    first = await challenged(service)
    await service.challenges.accept(first, Acting(BOB))
    places = ThreadPlaces(sessions)
    assert await places.settle(first)
    await places.moved(first, THREAD)
    await service.play.resign(first, Acting(ALICE))
    rematch = await challenged(service, channel=THREAD)
    report = await service.challenges.accept(rematch, Acting(BOB))
    assert not report.match.thread_unsettled
    assert await thread_of(sessions, rematch) == THREAD
    service.runner.know_bot(CAROL)
    against_bot = await challenged(service, opponent=CAROL)  # starts as it is challenged
    assert await thread_of(sessions, against_bot) is None  # left for its thread, as any
