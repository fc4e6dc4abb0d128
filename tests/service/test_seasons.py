"""Seasons on the service: rated matches counted in the running season's standings (ranked by
rating or points, provisional players apart), a season's end (closed once, its podium owed, the
next opened, every deviation widened with the rating kept), the settings, and each server seeing
only its own seasons."""

from __future__ import annotations

import asyncio
import math
from datetime import UTC, datetime

import pytest
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.errors import NoSeason
from bot.service.match_parts import MatchParts
from bot.service.ranks import Rank, RankRoles
from bot.service.ratings import PROVISIONAL_DEVIATION, Rating, as_of
from bot.service.season_periods import SOFT_RESET, next_season, period
from bot.service.seasons import PODIUM_ATTEMPTS, Seasons
from bot.service.sweeper import Sweeper
from db.models import (
    PlayerStats,
    RankUpdate,
    Season,
    SeasonLength,
    SeasonPodium,
    SeasonScore,
    SeasonStanding,
)
from tests.service.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, Clock
from tests.service.test_matches import start

OTHER_GUILD = GUILD + 1
PODIUM_CHANNEL = 4242


@pytest.fixture
def seasons(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> Seasons:
    return Seasons(sessions, clock=clock)


async def beaten(service: MatchParts, loser: int = BOB, game: str = "crystal") -> None:
    """A rated match of ``game`` Alice challenged Bob to, which ``loser`` resigns."""
    match_id = await start(service, game)
    report = await service.play.resign(match_id, loser)
    assert report.match.status == "finished"


async def settle(
    sessions: async_sessionmaker[AsyncSession], user_id: int, deviation: float
) -> None:
    """Give a member's crystal rating a settled deviation, as many matches would."""
    async with sessions.begin() as session:
        await session.execute(
            update(PlayerStats)
            .where(PlayerStats.user_id == user_id, PlayerStats.game == "crystal")
            .values(deviation=deviation)
        )


def test_periods_are_calendar_months_quarters_and_half_years_in_utc() -> None:
    moment = datetime(2026, 11, 28, 20, 0, tzinfo=UTC)
    assert period(SeasonLength.MONTH, moment) == (
        datetime(2026, 11, 1, tzinfo=UTC),
        datetime(2026, 12, 1, tzinfo=UTC),
    )
    assert period(SeasonLength.QUARTER, moment) == (
        datetime(2026, 10, 1, tzinfo=UTC),
        datetime(2027, 1, 1, tzinfo=UTC),
    )
    assert period(SeasonLength.HALF_YEAR, moment) == (
        datetime(2026, 7, 1, tzinfo=UTC),
        datetime(2027, 1, 1, tzinfo=UTC),
    )
    # Shortened mid-quarter: the next season begins where the last one ended.
    assert next_season(SeasonLength.QUARTER, moment, datetime(2026, 11, 1, tzinfo=UTC)) == (
        datetime(2026, 11, 1, tzinfo=UTC),
        datetime(2027, 1, 1, tzinfo=UTC),
    )


async def test_a_rated_match_counts_in_the_quarter_it_ends_in(
    service: MatchParts, seasons: Seasons
) -> None:
    with pytest.raises(NoSeason):
        await seasons.board(GUILD, None, None, 10)
    await beaten(service)

    board = await seasons.board(GUILD, None, "crystal", 10)
    assert (board.number, board.open, board.score) == (1, True, SeasonScore.RATING)
    assert (board.starts_at, board.ends_at) == (
        datetime(2026, 1, 1, tzinfo=UTC),
        datetime(2026, 4, 1, tzinfo=UTC),
    )
    (crystal,) = board.games
    # One match each: both still provisional, listed apart and unranked.
    assert crystal.ranked == []
    assert [(x.user_id, x.wins, x.losses, x.points) for x in crystal.provisional] == [
        (ALICE, 1, 0, 1.0),
        (BOB, 0, 1, 0.0),
    ]
    assert crystal.provisional[0].rating.endswith("?")


async def test_standings_rank_by_rating_or_points_with_provisional_players_apart(
    service: MatchParts, seasons: Seasons, sessions: async_sessionmaker[AsyncSession]
) -> None:
    await beaten(service)  # a first win, while both are new: a long way up for Alice
    await settle(sessions, ALICE, 60.0)
    await settle(sessions, BOB, 60.0)
    for _ in range(2):
        await beaten(service, loser=ALICE)  # then Bob wins twice: more points, lower rating
    by_rating = (await seasons.board(GUILD, None, "crystal", 10)).games[0]
    assert [(x.rank, x.user_id, x.points) for x in by_rating.ranked] == [
        (1, ALICE, 1.0),
        (2, BOB, 2.0),
    ]
    assert by_rating.ranked[0].rating_value > by_rating.ranked[1].rating_value
    assert by_rating.provisional == []

    await seasons.set_options(GUILD, score=SeasonScore.POINTS)
    by_points = (await seasons.board(GUILD, None, "crystal", 10)).games[0]
    assert [(x.rank, x.user_id, x.points, x.wins) for x in by_points.ranked] == [
        (1, BOB, 2.0, 2),
        (2, ALICE, 1.0, 1),
    ]


async def test_a_season_ends_once_opens_the_next_and_widens_every_deviation(
    service: MatchParts,
    seasons: Seasons,
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
) -> None:
    await seasons.set_options(GUILD, channel_id=PODIUM_CHANNEL)
    await beaten(service)
    await settle(sessions, ALICE, 50.0)
    async with sessions() as session:
        before = {
            r.user_id: (Rating(r.rating, r.deviation, r.volatility), r.deviation_at)
            for r in await session.scalars(select(PlayerStats).where(PlayerStats.guild_id == GUILD))
        }
    assert await seasons.close_due() == []  # not over yet

    clock.now = datetime(2026, 4, 1, 0, 0, 5, tzinfo=UTC)
    closed = await seasons.close_due()
    assert len(closed) == 1
    assert await seasons.close_due() == []  # once

    async with sessions() as session:
        after = {
            r.user_id: (r.rating, r.deviation, r.deviation_at)
            for r in await session.scalars(select(PlayerStats).where(PlayerStats.guild_id == GUILD))
        }
        rows = list(await session.scalars(select(Season).order_by(Season.number)))
        podiums = list(await session.scalars(select(SeasonPodium)))
    for user, (stored, since) in before.items():
        assert after[user][0] == stored.rating  # the rating is kept
        # The deviation grown until the season's close, then widened: the time is counted once.
        grown = as_of(stored, since, clock.now).deviation
        assert after[user][1] == pytest.approx(min(math.hypot(grown, SOFT_RESET), 500.0))
        assert after[user][2] == clock.now
    assert after[ALICE][1] < PROVISIONAL_DEVIATION  # a settled player stays ranked
    assert [(s.number, s.state) for s in rows] == [(1, "closed"), (2, "open")]
    assert (rows[1].starts_at, rows[1].ends_at) == (
        datetime(2026, 4, 1, tzinfo=UTC),
        datetime(2026, 7, 1, tzinfo=UTC),
    )
    assert [(p.season_id, p.channel_id, p.posted) for p in podiums] == [
        (closed[0], PODIUM_CHANNEL, False)
    ]

    # The ended season is kept: its podium and its standings by number.
    podium = await seasons.podium(closed[0])
    assert podium.number == 1 and not podium.open
    past = await seasons.board(GUILD, 1, "crystal", 10)
    assert [x.user_id for x in past.games[0].provisional + past.games[0].ranked] != []
    current = await seasons.board(GUILD, None, "crystal", 10)
    assert (current.number, current.games[0].ranked, current.games[0].provisional) == (2, [], [])

    # A podium is claimed by one process at a time, and shown once.
    (due,) = await seasons.due_podiums()
    assert due.message_id is None and due.attempts == 0
    assert await seasons.due_podiums() == []
    await seasons.podium_message(due.season_id, 777)
    clock.advance(minutes=2)
    (again,) = await seasons.due_podiums()
    assert again.message_id == 777 and again.attempts == 1  # a retry edits message 777
    await seasons.podium_shown(due.season_id)
    clock.advance(minutes=2)
    assert await seasons.due_podiums() == []


async def test_the_sweeper_closes_a_season_and_a_late_match_counts_in_the_next(
    service: MatchParts, seasons: Seasons, clock: Clock
) -> None:
    await beaten(service)
    clock.now = datetime(2026, 4, 2, tzinfo=UTC)  # ended, not yet swept
    await beaten(service)
    assert (await seasons.board(GUILD, None, None, 10)).number == 2
    sweeper = Sweeper(service.deadlines, 5.0, seasons=seasons)
    await sweeper.round()
    first = await seasons.board(GUILD, 1, "crystal", 10)
    assert not first.open
    assert [x.wins + x.losses for x in first.games[0].provisional] == [1, 1]
    second = await seasons.board(GUILD, 2, "crystal", 10)
    assert second.open and [x.wins + x.losses for x in second.games[0].provisional] == [1, 1]


async def test_settings_shorten_the_next_season_or_turn_seasons_off(
    service: MatchParts, seasons: Seasons, clock: Clock
) -> None:
    options = await seasons.options(GUILD)
    assert (options.length, options.score, options.channel_id) == (
        SeasonLength.QUARTER,
        SeasonScore.RATING,
        None,
    )
    await beaten(service)
    await seasons.set_options(GUILD, length=SeasonLength.MONTH)
    board = await seasons.board(GUILD, None, None, 10)
    assert board.ends_at == datetime(2026, 4, 1, tzinfo=UTC)  # the running season is kept
    clock.now = datetime(2026, 4, 3, tzinfo=UTC)
    await seasons.close_due()
    board = await seasons.board(GUILD, None, None, 10)
    assert (board.number, board.ends_at) == (2, datetime(2026, 5, 1, tzinfo=UTC))

    await seasons.set_options(GUILD, length=SeasonLength.OFF)
    assert await seasons.close_due() != []  # off ends the running season now
    await beaten(service)
    assert (await seasons.board(GUILD, None, None, 10)).number == 2  # none opened
    assert await seasons.numbers(GUILD) == [2, 1]


async def test_a_server_sees_only_its_own_seasons(service: MatchParts, seasons: Seasons) -> None:
    await beaten(service)
    with pytest.raises(NoSeason) as refused:
        await seasons.board(OTHER_GUILD, 1, None, 10)
    assert refused.value.latest is None
    with pytest.raises(NoSeason) as refused:
        await seasons.board(GUILD, 7, None, 10)
    assert (refused.value.number, refused.value.latest) == (7, 1)


async def test_matches_against_the_bot_and_outside_servers_count_in_no_season(
    service: MatchParts, seasons: Seasons
) -> None:
    report = await service.challenges.challenge(
        guild_id=0, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=CAROL, game="crystal"
    )
    await service.challenges.accept(report.match.id, CAROL)
    await service.play.resign(report.match.id, CAROL)
    with pytest.raises(NoSeason):
        await seasons.board(0, None, None, 10)


async def test_a_ranked_player_who_stops_playing_is_listed_apart_as_the_deviation_grows(
    service: MatchParts,
    seasons: Seasons,
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
) -> None:
    await beaten(service)
    await settle(sessions, ALICE, 95.0)
    await settle(sessions, BOB, 95.0)
    await beaten(service)
    clock.advance(days=1)
    crystal = (await seasons.board(GUILD, None, "crystal", 10)).games[0]
    assert [x.user_id for x in crystal.ranked] == [ALICE, BOB]

    clock.now = datetime(2026, 3, 25, tzinfo=UTC)  # nearly three months without a match
    crystal = (await seasons.board(GUILD, None, "crystal", 10)).games[0]
    assert crystal.ranked == []
    assert [x.user_id for x in crystal.provisional] == [ALICE, BOB]
    assert all(x.rating.endswith("?") for x in crystal.provisional)
    # The sweeper marks them, so each list is read from its index again: the same lists.
    assert await seasons.close_due() == []
    async with sessions() as session:
        marked = await session.scalars(
            select(SeasonStanding.provisional).where(SeasonStanding.game == "crystal")
        )
        assert list(marked) == [True, True]
    again = (await seasons.board(GUILD, None, "crystal", 10)).games[0]
    assert again == crystal


async def test_a_podium_discord_keeps_refusing_is_given_up_after_its_attempts(
    service: MatchParts, seasons: Seasons, clock: Clock
) -> None:
    await seasons.set_options(GUILD, channel_id=PODIUM_CHANNEL)
    await beaten(service)
    clock.now = datetime(2026, 4, 1, 0, 1, tzinfo=UTC)
    await seasons.close_due()
    tries = 0
    while await seasons.due_podiums():
        tries += 1
        clock.advance(minutes=1, seconds=1)  # each post failed: tried again when its claim ends
    assert tries == PODIUM_ATTEMPTS
    assert (await seasons.board(GUILD, 1, None, 10)).number == 1  # still kept


async def test_an_ended_season_keeps_its_ranked_players_ranked_for_good(
    service: MatchParts,
    seasons: Seasons,
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
) -> None:
    await beaten(service)
    await settle(sessions, ALICE, 60.0)
    await settle(sessions, BOB, 60.0)
    await beaten(service)
    clock.now = datetime(2026, 4, 1, 0, 1, tzinfo=UTC)
    await seasons.close_due()
    clock.now = datetime(2027, 4, 1, tzinfo=UTC)  # long after: their ratings would have turned
    await seasons.close_due()
    ended = (await seasons.board(GUILD, 1, "crystal", 10)).games[0]
    assert [x.user_id for x in ended.ranked] == [ALICE, BOB] and ended.provisional == []
    async with sessions() as session:
        flags = await session.scalars(
            select(SeasonStanding.provisional).where(SeasonStanding.season_id == 1)
        )
        assert list(flags) == [False, False]


async def test_two_sweepers_at_once_close_a_season_and_widen_deviations_once(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    await beaten(service)
    await settle(sessions, ALICE, 50.0)
    async with sessions() as session:
        settled = await session.get(PlayerStats, (GUILD, "crystal", ALICE, False))
        assert settled is not None
        stored = Rating(settled.rating, settled.deviation, settled.volatility)
        since = settled.deviation_at
    clock.now = datetime(2026, 4, 1, 0, 1, tzinfo=UTC)
    grown = as_of(stored, since, clock.now).deviation
    first, second = Seasons(sessions, clock=clock), Seasons(sessions, clock=clock)
    closed = await asyncio.gather(first.close_due(), second.close_due())
    assert sorted(len(each) for each in closed) == [0, 1]
    async with sessions() as session:
        alice = await session.get(PlayerStats, (GUILD, "crystal", ALICE, False))
        assert alice is not None and alice.deviation == pytest.approx(math.hypot(grown, SOFT_RESET))
    assert await first.numbers(GUILD) == [2, 1]


async def test_a_seasons_end_owes_its_rank_roles_to_their_holders(
    service: MatchParts,
    seasons: Seasons,
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
) -> None:
    """Closing the season asks for the holders of a rank tied to seasons to be brought up to
    date (the soft reset may have made them provisional), in the closing transaction."""
    ranks = RankRoles(sessions, clock=clock)
    tied_role = 4242
    await beaten(service)
    await settle(sessions, ALICE, 50.0)
    await ranks.set(GUILD, Rank(tied_role, "crystal", 1400, season=True))
    await ranks.refresh(GUILD, [ALICE])
    [update] = await ranks.due()
    await ranks.applied(update, [tied_role], [])
    async with sessions() as session:
        assert list(await session.scalars(select(RankUpdate.user_id))) == []

    clock.now = datetime(2026, 4, 1, 0, 1, tzinfo=UTC)
    assert len(await seasons.close_due()) == 1
    async with sessions() as session:
        assert list(await session.scalars(select(RankUpdate.user_id))) == [ALICE]
