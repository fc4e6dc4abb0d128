"""Rank roles: which roles a member's ratings reach, a server's ranks, and the updates owed."""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.service.match_parts import MatchParts
from bot.service.ranks import (
    BEST,
    MOST_RANKS,
    NoSuchRank,
    Rank,
    RankRoles,
    RankTaken,
    RoleChange,
    TooManyRanks,
    owe_season_update,
    wanted_roles,
)
from db.models import PlayerStats, RankUpdate
from tests.db.plans import plans_recorded
from tests.service.conftest import ALICE, BOB, CAROL, GUILD, Clock
from tests.service.test_matches import crown_started

BRONZE, SILVER, GOLD, CHAMPION, SAFE_ACE = 101, 102, 103, 104, 105
CROWN_RANKS = [Rank(BRONZE, "crown", 1400), Rank(SILVER, "crown", 1600), Rank(GOLD, "crown", 1800)]


@pytest.fixture
def ranks(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> RankRoles:
    return RankRoles(sessions, clock=clock)


async def rate(
    sessions: async_sessionmaker[AsyncSession],
    user: int,
    game: str,
    rating: float,
    deviation: float = 60.0,
    at: datetime | None = None,
) -> None:
    """The member's rating in ``game``, as rated matches would have left it (last at ``at``)."""
    async with sessions.begin() as session:
        row = await session.get(PlayerStats, (GUILD, game, user, False))
        if row is None:
            session.add(PlayerStats(guild_id=GUILD, game=game, user_id=user, vs_bot=False))
            await session.flush()
            row = await session.get(PlayerStats, (GUILD, game, user, False))
        assert row is not None
        row.rating, row.deviation, row.volatility = rating, deviation, 0.06
        if at is not None:
            row.rated_at = row.deviation_at = at


async def owed(sessions: async_sessionmaker[AsyncSession]) -> list[tuple[int, int]]:
    async with sessions() as session:
        rows = await session.execute(select(RankUpdate.guild_id, RankUpdate.user_id))
        return sorted((guild, user) for guild, user in rows)


# ---------------------------------------------------------------------- which roles


def test_a_member_holds_the_highest_rank_their_rating_reaches_in_each_game() -> None:
    ranks = [*CROWN_RANKS, Rank(SAFE_ACE, "safe", 1550), Rank(CHAMPION, BEST, 1700)]
    assert wanted_roles(ranks, {"crown": 1650.0}) == {SILVER}
    assert wanted_roles(ranks, {"crown": 1800.0, "safe": 1500.0}) == {GOLD, CHAMPION}
    assert wanted_roles(ranks, {"crown": 1399.0, "safe": 1720.0}) == {SAFE_ACE, CHAMPION}
    assert wanted_roles(ranks, {}) == set()


# ---------------------------------------------------------------------- a server's ranks


async def test_setting_a_rank_lists_it_and_setting_its_role_again_moves_it(
    ranks: RankRoles,
) -> None:
    await ranks.set(GUILD, Rank(SILVER, "crown", 1600))
    listed = await ranks.set(GUILD, Rank(GOLD, "crown", 1800, season=True))
    assert listed == [Rank(SILVER, "crown", 1600), Rank(GOLD, "crown", 1800, season=True)]
    assert await ranks.set(GUILD, Rank(SILVER, BEST, 1650)) == [
        Rank(SILVER, BEST, 1650),
        Rank(GOLD, "crown", 1800, season=True),
    ]
    assert await ranks.ranks(GUILD + 1) == []  # another server's are its own


async def test_two_roles_for_one_step_and_too_many_ranks_are_refused(ranks: RankRoles) -> None:
    await ranks.set(GUILD, Rank(SILVER, "crown", 1600))
    with pytest.raises(RankTaken) as taken:
        await ranks.set(GUILD, Rank(GOLD, "crown", 1600))
    assert (taken.value.game, taken.value.rating, taken.value.role_id) == ("crown", 1600, SILVER)
    for n in range(MOST_RANKS - 1):
        await ranks.set(GUILD, Rank(1000 + n, "safe", 1000 + n))
    with pytest.raises(TooManyRanks):
        await ranks.set(GUILD, Rank(GOLD, "crown", 1900))
    await ranks.set(GUILD, Rank(SILVER, "crown", 1700))  # moving one is still allowed
    assert len(await ranks.ranks(GUILD)) == MOST_RANKS


async def test_clearing_takes_one_role_or_a_whole_game(ranks: RankRoles) -> None:
    for rank in (*CROWN_RANKS, Rank(CHAMPION, BEST, 1700)):
        await ranks.set(GUILD, rank)
    assert await ranks.clear(GUILD, role_id=SILVER) == [Rank(SILVER, "crown", 1600)]
    assert await ranks.clear(GUILD, game="crown") == [CROWN_RANKS[0], CROWN_RANKS[2]]
    with pytest.raises(NoSuchRank):
        await ranks.clear(GUILD, game="crown")
    with pytest.raises(NoSuchRank):
        await ranks.clear(GUILD + 1, role_id=CHAMPION)  # another server's: as if none
    assert await ranks.ranks(GUILD) == [Rank(CHAMPION, BEST, 1700)]


# ---------------------------------------------------------------------- updates owed


async def test_setting_a_rank_owes_the_members_it_reaches_and_its_holders(
    ranks: RankRoles, sessions: async_sessionmaker[AsyncSession]
) -> None:
    await rate(sessions, ALICE, "crown", 1700)
    await rate(sessions, BOB, "crown", 1550)
    await rate(sessions, BOB, "safe", 1800, deviation=200)  # provisional: reaches nothing
    await rate(sessions, CAROL, "safe", 1650)
    await ranks.set(GUILD, Rank(SILVER, "crown", 1600))
    assert await owed(sessions) == [(GUILD, ALICE)]
    [update] = await ranks.due()
    await ranks.applied(update, [SILVER], [])

    await ranks.set(GUILD, Rank(SILVER, "crown", 1750))  # moved above Alice: she is owed
    await ranks.set(GUILD, Rank(CHAMPION, BEST, 1600))  # best: any game's rating
    assert await owed(sessions) == [(GUILD, ALICE), (GUILD, CAROL)]


async def test_a_rated_match_owes_its_players_an_update_only_where_ranks_are_set(
    service: MatchParts, ranks: RankRoles, sessions: async_sessionmaker[AsyncSession]
) -> None:
    match_id = await crown_started(service, "1 1", "3 3")
    await service.play.submit(match_id, ALICE, "3 3")
    assert await owed(sessions) == []

    await ranks.set(GUILD, Rank(SILVER, "crown", 1600))
    match_id = await crown_started(service, "1 1", "3 3")
    report = await service.play.submit(match_id, ALICE, "3 3")
    assert report.match.status == "finished"
    assert await owed(sessions) == [(GUILD, ALICE), (GUILD, BOB)]


async def test_an_update_gives_the_rank_reached_and_takes_those_parlor_gave(
    ranks: RankRoles, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    for rank in CROWN_RANKS:
        await ranks.set(GUILD, rank)
    await rate(sessions, ALICE, "crown", 1650)
    await ranks.refresh(GUILD, [ALICE])
    [update] = await ranks.due()
    assert await ranks.due() == []  # claimed: no other process takes it meanwhile
    assert await ranks.change(update) == RoleChange(GUILD, ALICE, frozenset({SILVER}), frozenset())
    await ranks.applied(update, [SILVER], [])
    assert await owed(sessions) == []

    await rate(sessions, ALICE, "crown", 1820)
    await ranks.refresh(GUILD, [ALICE])
    [update] = await ranks.due()
    change = await ranks.change(update)
    assert change.give == {GOLD} and change.take == {SILVER}
    await ranks.applied(update, [GOLD], [SILVER])

    await rate(sessions, ALICE, "crown", 1820, deviation=150)  # provisional again
    await ranks.refresh(GUILD, [ALICE])
    [update] = await ranks.due()
    assert (await ranks.change(update)).take == {GOLD}


async def test_a_rating_left_alone_grows_uncertain_and_loses_its_rank(
    ranks: RankRoles, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    await ranks.set(GUILD, Rank(SILVER, "crown", 1600))
    await rate(sessions, ALICE, "crown", 1650, at=clock())
    await ranks.refresh(GUILD, [ALICE])
    [update] = await ranks.due()
    await ranks.applied(update, [SILVER], [])

    clock.advance(days=400)  # Glicko-2's periods without games: 60 grows past 110 in a year
    await ranks.refresh(GUILD, [ALICE])
    [update] = await ranks.due()
    assert await ranks.change(update) == RoleChange(GUILD, ALICE, frozenset(), frozenset({SILVER}))


async def test_an_update_owed_again_while_one_runs_is_kept(
    ranks: RankRoles, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    await ranks.set(GUILD, Rank(SILVER, "crown", 1600))
    await ranks.refresh(GUILD, [ALICE])
    [update] = await ranks.due()
    clock.advance(seconds=1)
    await ranks.refresh(GUILD, [ALICE])  # another match ended meanwhile
    await ranks.applied(update, [], [])
    assert await owed(sessions) == [(GUILD, ALICE)]
    [again] = await ranks.due()
    assert again.attempts == 0


async def test_a_failed_update_is_tried_again_later(
    ranks: RankRoles, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    await ranks.refresh(GUILD, [ALICE])
    [update] = await ranks.due()
    await ranks.retry_later(update)
    assert await ranks.due() == []
    clock.advance(seconds=5)
    [again] = await ranks.due()
    assert again.attempts == 1


async def test_a_seasons_end_owes_the_holders_of_its_ranks(
    ranks: RankRoles, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    await ranks.set(GUILD, Rank(SILVER, "crown", 1600, season=True))
    await ranks.set(GUILD, Rank(CHAMPION, BEST, 1700))
    for user, role in ((ALICE, SILVER), (BOB, CHAMPION), (CAROL, SILVER)):
        await ranks.refresh(GUILD, [user])
        [update] = await ranks.due()
        await ranks.applied(update, [role], [])
    async with sessions.begin() as session:
        await owe_season_update(session, GUILD, clock())
    assert await owed(sessions) == [(GUILD, ALICE), (GUILD, CAROL)]


async def test_no_statement_of_rank_roles_scans_a_table(
    engine: AsyncEngine,
    service: MatchParts,
    ranks: RankRoles,
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("query plans are SQLite's (a file)")
    with plans_recorded(engine) as plans:
        await ranks.set(GUILD, Rank(SILVER, "crown", 1600, season=True))
        await ranks.set(GUILD, Rank(CHAMPION, BEST, 1700))
        match_id = await crown_started(service, "1 1", "3 3")
        await service.play.submit(match_id, ALICE, "3 3")
        for update in await ranks.due():
            change = await ranks.change(update)
            await ranks.applied(update, change.give | {SILVER}, change.take)
        async with sessions.begin() as session:
            await owe_season_update(session, GUILD, clock())
        [update, _bob] = await ranks.due()
        await ranks.retry_later(update)
        await ranks.left(_bob)
        await ranks.ranks(GUILD)
        await ranks.clear(GUILD, game="crown")
    assert not plans.scans, "\n".join(f"{line}: {statement}" for line, statement in plans.scans)
