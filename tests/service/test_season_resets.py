"""A season's soft reset in the rating history: one point per widened rating, written with the
close, drawn on the member's chart and never taken for a match (history pages, records,
streaks, the leaderboards' "rated in the last 30 days")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.match_parts import MatchParts, match_parts
from bot.service.member_history import HistoryService
from bot.service.ratings import Rating, as_of
from bot.service.season_periods import widened
from bot.service.seasons import Seasons
from db.models import PlayerStats, RatingChange
from tests.service.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, Clock, servers_for
from tests.service.test_seasons import beaten, settle

PARLOR = 99
OTHER_GUILD = GUILD + 1
CLOSE = datetime(2026, 4, 1, 0, 0, 7, tzinfo=UTC)


@pytest.fixture
def service(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> MatchParts:
    return match_parts(
        sessions, clock=clock, seeds=lambda: 1, mention=lambda uid: f"@{uid}", bot_user_id=PARLOR
    )


@pytest.fixture
def seasons(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> Seasons:
    return Seasons(sessions, clock=clock)


async def stored(
    sessions: async_sessionmaker[AsyncSession],
) -> dict[tuple[int, str, int, bool], PlayerStats]:
    async with sessions() as session:
        rows = await session.scalars(select(PlayerStats))
        return {(r.guild_id, r.game, r.user_id, r.vs_bot): r for r in rows}


async def reset_rows(
    sessions: async_sessionmaker[AsyncSession], guild_id: int = GUILD
) -> list[RatingChange]:
    async with sessions() as session:
        found = await session.scalars(
            select(RatingChange)
            .where(RatingChange.match_id.is_(None), RatingChange.guild_id == guild_id)
            .order_by(RatingChange.game, RatingChange.user_id)
        )
        return list(found)


async def played(service: MatchParts, sessions: async_sessionmaker[AsyncSession]) -> None:
    """Alice and Bob rated in Crystal (Bob's deviation at its cap) and Claim; Alice against the
    bot; Alice and Carol in another server."""
    await beaten(service, game="crystal")
    await beaten(service, game="claim")
    await settle(sessions, ALICE, 50.0)
    await settle(sessions, BOB, 500.0)  # Crystal: nothing left to widen
    bot = await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger_id=ALICE,
        opponent_id=PARLOR,
        game="crystal",
        opponent_is_bot=True,
    )
    assert (await service.play.resign(bot.match.id, ALICE)).match.over
    elsewhere = await service.challenges.challenge(
        guild_id=OTHER_GUILD,
        channel_id=CHANNEL,
        challenger_id=ALICE,
        opponent_id=CAROL,
        game="crystal",
    )
    await service.challenges.accept(elsewhere.match.id, CAROL)
    await service.play.resign(elsewhere.match.id, CAROL)


async def test_a_seasons_end_writes_one_point_per_widened_rating_at_its_close(
    service: MatchParts,
    seasons: Seasons,
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
) -> None:
    await played(service, sessions)
    before = await stored(sessions)
    clock.now = CLOSE
    assert len(await seasons.close_due()) == 2  # each server's own season
    after = await stored(sessions)

    expected = []
    for key in sorted(k for k in before if k[0] == GUILD and not k[3]):
        old = before[key]
        grown = as_of(Rating(old.rating, old.deviation, old.volatility), old.deviation_at, CLOSE)
        assert after[key].deviation == pytest.approx(widened(grown.deviation))
        if key == (GUILD, "crystal", BOB, False):
            assert after[key].deviation == grown.deviation == 500.0  # at the cap: no point
            continue
        expected.append((key[1], key[2], old.rating, grown.deviation, after[key].deviation))
    rows = await reset_rows(sessions)
    assert [(r.game, r.user_id, r.rating_before) for r in rows] == [e[:3] for e in expected]
    deviations = [d for r in rows for d in (r.deviation_before, r.deviation_after)]
    assert deviations == pytest.approx([d for e in expected for d in e[3:]])
    assert len(rows) == 3  # Alice's Crystal and Claim, Bob's Claim: not the bot's
    for row in rows:
        assert row.rating_after == row.rating_before
        assert row.deviation_after > row.deviation_before
        assert (row.guild_id, row.at) == (GUILD, CLOSE)

    elsewhere = await reset_rows(sessions, OTHER_GUILD)  # by its own season's close
    assert [(r.game, r.user_id) for r in elsewhere] == [("crystal", ALICE), ("crystal", CAROL)]

    assert await seasons.close_due() == []
    assert len(await reset_rows(sessions)) == 3  # closed once, marked once


async def test_the_chart_shows_the_reset_and_no_match_list_or_count_does(
    service: MatchParts,
    seasons: Seasons,
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
) -> None:
    histories = HistoryService(sessions, clock=clock)
    servers = servers_for(service)
    await played(service, sessions)
    async with sessions.begin() as session:  # where a member's history began (migration 0010)
        session.add(
            RatingChange(
                guild_id=GUILD,
                game="crystal",
                user_id=ALICE,
                rating_before=1450.0,
                deviation_before=120.0,
                rating_after=1450.0,
                deviation_after=120.0,
                at=datetime(2025, 12, 1, tzinfo=UTC),
            )
        )
    matches = await histories.history(GUILD, ALICE)
    record = await servers.member_record(GUILD, ALICE)
    before = await stored(sessions)

    clock.now = CLOSE
    assert len(await seasons.close_due()) == 2
    clock.now = CLOSE + timedelta(days=1)

    series = await histories.rating_series(GUILD, ALICE)
    crystal = series["crystal"]
    assert [p.reset for p in crystal] == [False, False, True]  # history began, a match, reset
    began, match, reset = crystal
    assert (reset.at, reset.rating) == (CLOSE, match.rating)
    widened_to = (await stored(sessions))[(GUILD, "crystal", ALICE, False)].deviation
    assert (reset.deviation, began.deviation) == (widened_to, 120.0)
    assert [p.reset for p in series["claim"]] == [False, True]

    # Nothing else reads it as a match: the same pages, records, streaks and listing.
    assert await histories.history(GUILD, ALICE) == matches
    after = await servers.member_record(GUILD, ALICE)
    assert after.recent == record.recent and after.total == record.total
    assert [(x.game, x.wins, x.losses, x.streak) for x in after.lines] == [
        (x.game, x.wins, x.losses, x.streak) for x in record.lines
    ]
    # Their last match is three months old: a reset a day ago is no rated game of the month.
    ladder = (await servers.leaderboards(GUILD, "crystal", 10))["crystal"]
    assert (ladder.ranked, ladder.provisional) == ([], [])
    assert sorted(s.user_id for s in ladder.inactive) == [ALICE, BOB]
    for key, row in (await stored(sessions)).items():
        assert (row.games_played, row.rated_at) == (
            before[key].games_played,
            before[key].rated_at,
        )
