"""The bot removed from a server: the server's unfinished matches are called off, no result."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.match_parts import MatchParts
from db.models import PlayerStats
from tests.service.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, deadlines_for

OTHER_GUILD = 1001


async def challenge(service: MatchParts, game: str, guild_id: int = GUILD) -> int:
    report = await service.challenges.challenge(
        guild_id=guild_id, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB, game=game
    )
    return report.match.id


async def records(sessions: async_sessionmaker[AsyncSession]) -> int:
    async with sessions() as session:
        return int(await session.scalar(select(func.count()).select_from(PlayerStats)) or 0)


async def test_the_servers_unfinished_matches_are_called_off_without_a_result(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession]
) -> None:
    finished = await challenge(service, "crystal")
    await service.challenges.accept(finished, BOB)
    await service.play.resign(finished, BOB)
    counted = await records(sessions)
    challenged = await challenge(service, "flag")
    in_setup = await challenge(service, "crown")
    await service.challenges.accept(in_setup, BOB)
    active = await challenge(service, "claim")
    await service.challenges.accept(active, BOB)
    await service.play.submit(active, ALICE, "5")
    elsewhere = await challenge(service, "crystal", OTHER_GUILD)

    reports = await service.organizing.abort_guild(GUILD)
    assert [r.match.id for r in reports] == [challenged, in_setup, active]
    for report in reports:
        assert report.notices == []  # nothing can be posted in a server the bot left
        assert report.match.status == "aborted" and report.match.end_reason == "bot_removed"
        assert report.match.deadline is None
    assert (await service.lookups.snapshot(finished)).status == "finished"
    assert (await service.lookups.snapshot(elsewhere)).status == "challenged"
    assert await records(sessions) == counted  # no result, no rating moved
    assert await service.lookups.unfinished(ALICE, GUILD) == []
    assert await deadlines_for(service).sweep() == []


async def test_servers_the_bot_is_no_longer_in_are_found_at_start(service: MatchParts) -> None:
    here = await challenge(service, "crystal")
    gone = await challenge(service, "crystal", OTHER_GUILD)
    other = await service.challenges.challenge(
        guild_id=OTHER_GUILD, channel_id=CHANNEL, challenger_id=CAROL, opponent_id=BOB, game="flag"
    )
    reports = await service.organizing.abort_absent_guilds({GUILD})
    assert {r.match.id for r in reports} == {gone, other.match.id}
    assert (await service.lookups.snapshot(here)).status == "challenged"
    assert await service.organizing.abort_absent_guilds({GUILD}) == []
