"""The quick-pair queue through the service: joining, waves by rating, the bot's offer, leaving,
and several processes pairing each member once."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from sqlalchemy import BigInteger, func, literal, select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.service.errors import Limit, LimitReached, WaitTooLong
from bot.service.limits import MAX_PLAYING
from bot.service.match_parts import MatchParts, match_parts
from bot.service.notices import Public, Report
from bot.service.quick_pair import WAVE_AT, NotQueued, QuickPair
from db import queue as db_queue
from db.models import PlayerStats
from db.queue import Spot
from tests.service.conftest import CHANNEL, GUILD, Clock, outbox_for, servers_for
from tests.service.processes import at_once, postgresql_only
from tests.wording import said

BOT = 99
SPOT = Spot(GUILD, CHANNEL, "crystal")


@pytest.fixture
def parts(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> MatchParts:
    return match_parts(
        sessions, clock=clock, seeds=iter(range(1, 10**6)).__next__, mention=lambda u: f"@{u}",
        bot_user_id=BOT,
    )  # fmt: skip


@pytest.fixture
def queue(parts: MatchParts) -> QuickPair:
    return parts.queue


SETTLED = 60.0
"""A deviation well under provisional: these members are paired by the gap alone."""


async def rate(queue: QuickPair, ratings: Mapping[int, float], game: str = "crystal") -> None:
    async with queue.runner.sessions.begin() as session:
        for user, rating in ratings.items():
            session.add(
                PlayerStats(
                    guild_id=GUILD, game=game, user_id=user, rating=rating, deviation=SETTLED
                )
            )


async def join_all(queue: QuickPair, users: list[int], spot: Spot = SPOT) -> None:
    for user in users:
        await queue.join(spot.guild_id, spot.channel_id, spot.game, user)


def pairs_of(reports: list[Report]) -> set[frozenset[int]]:
    return {frozenset(report.match.players) for report in reports}


async def test_a_wave_pairs_by_rating_and_starts_each_match_at_once(
    parts: MatchParts, queue: QuickPair, clock: Clock
) -> None:
    ratings = {1: 1210, 2: 1500, 3: 1830, 4: 1250, 5: 1790, 6: 1480}
    await rate(queue, ratings)
    await join_all(queue, list(ratings))
    assert await queue.waiting(SPOT) == 6
    wave = await queue.wave(SPOT)
    assert pairs_of(wave.reports) == {frozenset({1, 4}), frozenset({2, 6}), frozenset({3, 5})}
    assert wave.waiting == 0
    for report in wave.reports:
        assert report.match.status == "active" and report.match.channel_id == CHANNEL
        (start,) = [n for n in report.notices if isinstance(n, Public)]
        assert start.kind == "start" and said(start.lines[0]).startswith("The queue paired")
    clock.advance(seconds=30)
    due = await outbox_for(parts).due()
    assert sorted(d.kind for d in due) == ["board"] * 3  # whoever dies, the boards are shown


async def test_members_far_apart_wait_for_their_gap_to_widen(
    queue: QuickPair, clock: Clock
) -> None:
    await rate(queue, {1: 1300, 2: 1500})
    await join_all(queue, [1, 2])
    assert (await queue.wave(SPOT)).reports == []
    clock.advance(seconds=5)
    assert pairs_of((await queue.wave(SPOT)).reports) == {frozenset({1, 2})}


async def test_a_provisional_member_is_paired_across_their_uncertainty(
    queue: QuickPair, clock: Clock
) -> None:
    await rate(queue, {1: 1300})
    await join_all(queue, [1, 2])  # 2 has never played: 1500 ± 500
    entry = await queue.place(2)
    assert entry is not None and entry.deviation == 500.0
    assert pairs_of((await queue.wave(SPOT)).reports) == {frozenset({1, 2})}


async def test_the_same_two_are_not_paired_twice_in_a_row_while_others_wait(
    parts: MatchParts, queue: QuickPair, clock: Clock
) -> None:
    await join_all(queue, [1, 2])
    (first,) = (await queue.wave(SPOT)).reports
    await parts.play.resign(first.match.id, 1)  # 1 and 2 are now some 480 apart
    await join_all(queue, [1, 2, 3])
    clock.advance(seconds=5)
    (second,) = (await queue.wave(SPOT)).reports
    assert 3 in second.match.players
    left = ({1, 2} - set(second.match.players)).pop()
    assert (await queue.place(left)) is not None


async def test_a_member_waits_in_one_queue_and_leaves_it(queue: QuickPair) -> None:
    other = Spot(GUILD, CHANNEL + 1, "crown")
    joined = await queue.join(GUILD, CHANNEL, "crystal", 1)
    assert (joined.waiting, joined.moved_from) == (1, None)
    moved = await queue.join(GUILD, other.channel_id, other.game, 1)
    assert moved.moved_from == SPOT and await queue.waiting(SPOT) == 0
    with pytest.raises(NotQueued):
        await queue.leave(1, SPOT)
    assert await queue.leave(1, other) == other
    assert await queue.place(1) is None


async def test_a_full_queue_has_its_wave_at_once(queue: QuickPair) -> None:
    for user in range(1, WAVE_AT):
        assert not (await queue.join(GUILD, CHANNEL, "crystal", user)).wave_now
    assert (await queue.join(GUILD, CHANNEL, "crystal", WAVE_AT)).wave_now


async def test_starting_another_match_takes_a_member_out(
    parts: MatchParts, queue: QuickPair
) -> None:
    await join_all(queue, [1, 2])
    challenge = await parts.challenges.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=3, opponent_id=1, game="crown"
    )
    assert await queue.place(1) is not None  # a challenge alone is no match
    await parts.challenges.accept(challenge.match.id, 1)
    assert await queue.place(1) is None and await queue.waiting(SPOT) == 1


async def test_a_member_at_the_match_limit_cannot_join(parts: MatchParts, queue: QuickPair) -> None:
    for _ in range(MAX_PLAYING):
        await parts.challenges.challenge(
            guild_id=GUILD, channel_id=CHANNEL, challenger_id=1, opponent_id=BOT, game="crown"
        )
    with pytest.raises(LimitReached) as refused:
        await queue.join(GUILD, CHANNEL, "crystal", 1)
    assert refused.value == LimitReached(Limit.PLAYING, MAX_PLAYING)


async def playing(parts: MatchParts, user_id: int) -> int:
    return sum(
        snap.status in ("setup", "active") for snap in await parts.lookups.unfinished(user_id)
    )


async def at_the_limit_in_the_queue(parts: MatchParts, queue: QuickPair, user_id: int) -> None:
    """The member plays ``MAX_PLAYING`` matches and waits in the queue all the same: on
    PostgreSQL their last match can start while a wave holds their place (the start's removal
    waits for it), so a wave finds them there. Here their place is put back as it was."""
    for _ in range(MAX_PLAYING):
        await parts.challenges.challenge(
            guild_id=GUILD, channel_id=CHANNEL, challenger_id=user_id, opponent_id=BOT, game="crown"
        )
    async with queue.runner.sessions.begin() as session:
        await db_queue.put(session, user_id, SPOT, 1500.0, None, queue.runner.clock())
    assert await playing(parts, user_id) == MAX_PLAYING
    assert await queue.place(user_id) is not None


async def test_a_wave_passes_over_a_member_at_the_match_limit(
    parts: MatchParts, queue: QuickPair, clock: Clock
) -> None:
    await rate(queue, {2: 1500, 3: 1510})
    await at_the_limit_in_the_queue(parts, queue, 1)  # 1500: the nearest to 2
    await join_all(queue, [2])
    assert (await queue.wave(SPOT)).reports == []  # 2 is not paired with 1
    await join_all(queue, [3])
    clock.advance(seconds=5)
    wave = await queue.wave(SPOT)
    assert pairs_of(wave.reports) == {frozenset({2, 3})}
    assert wave.waiting == 1 and await queue.place(1) is not None  # still waiting, unpaired
    assert await playing(parts, 1) == MAX_PLAYING
    busy = (await parts.lookups.unfinished(1))[0]
    await parts.play.resign(busy.id, 1)  # one match ends: 1 may be paired again
    await join_all(queue, [4])
    clock.advance(seconds=5)
    assert pairs_of((await queue.wave(SPOT)).reports) == {frozenset({1, 4})}


async def test_a_wave_passes_over_a_member_whose_challenge_is_under_way(
    queue: QuickPair, engine: AsyncEngine, database_url: str
) -> None:
    """The wave takes each member's lock, the one a challenge or an accept counts their matches
    under, without waiting for it: a member whose lock another transaction holds waits for the
    next wave, and nobody is paired past the limit by a match starting meanwhile."""
    postgresql_only(database_url)
    await join_all(queue, [1, 2, 3])
    async with engine.connect() as other, other.begin():
        await other.execute(select(func.pg_advisory_xact_lock(literal(1, BigInteger()))))
        wave = await queue.wave(SPOT)
    assert pairs_of(wave.reports) == {frozenset({2, 3})} and await queue.place(1) is not None


async def test_after_the_servers_wait_the_bot_is_offered_once(
    parts: MatchParts, queue: QuickPair, clock: Clock
) -> None:
    await rate(queue, {1: 1800, 2: 1200})
    await join_all(queue, [1, 2])
    assert await queue.offers({1, 2}) == []
    await servers_for(parts).set_options(GUILD, queue_fallback=30)
    clock.advance(seconds=30)
    offers = await queue.offers({1})  # this process answers for member 1 only
    assert [(o.user_id, o.level) for o in offers] == [(1, "hard")]
    assert await queue.offers({1}) == []
    started = await queue.play_bot(1, GUILD)
    snap = started.match
    assert snap.vs_bot and snap.options == {} and set(snap.players) == {1, BOT}
    assert await queue.place(1) is None
    with pytest.raises(NotQueued):
        await queue.play_bot(1, GUILD)


async def test_taking_the_bots_offer_at_the_match_limit_keeps_the_members_place(
    parts: MatchParts, queue: QuickPair, clock: Clock
) -> None:
    await at_the_limit_in_the_queue(parts, queue, 1)
    with pytest.raises(LimitReached) as refused:
        await queue.play_bot(1, GUILD)
    assert refused.value == LimitReached(Limit.PLAYING, MAX_PLAYING)
    assert await queue.place(1) is not None and await playing(parts, 1) == MAX_PLAYING
    busy = (await parts.lookups.unfinished(1))[0]
    await parts.play.resign(busy.id, 1)
    started = await queue.play_bot(1, GUILD)
    assert started.match.vs_bot and await queue.place(1) is None


async def test_nobody_stays_queued_more_than_ten_minutes(queue: QuickPair, clock: Clock) -> None:
    await join_all(queue, [1])
    clock.advance(minutes=9)
    assert await queue.expire() == []
    clock.advance(minutes=1, seconds=1)
    (gone,) = await queue.expire()
    assert (gone.user_id, gone.spot) == (1, SPOT) and await queue.place(1) is None


async def test_the_queue_message_is_edited_when_its_count_changes(queue: QuickPair) -> None:
    assert (await queue.board(SPOT)).message_id is None
    await join_all(queue, [1, 2])
    await queue.board_shown(SPOT, 777, 2)
    assert await queue.stale_boards() == []
    await queue.leave(2)
    (stale,) = await queue.stale_boards({GUILD})
    assert (stale.message_id, stale.shown, stale.waiting) == (777, 2, 1)
    assert await queue.stale_boards({GUILD + 1}) == []


async def test_the_servers_wait_is_at_most_ten_minutes(parts: MatchParts, queue: QuickPair) -> None:
    servers = servers_for(parts)
    with pytest.raises(WaitTooLong) as refused:
        await servers.set_options(GUILD, queue_fallback=601)
    assert refused.value == WaitTooLong(600)
    assert (await servers.set_options(GUILD, threads=True)).threads
    assert await queue.fallback_wait(GUILD) == 60


async def test_two_processes_pair_each_member_once(
    parts: MatchParts, queue: QuickPair, database_url: str
) -> None:
    url = postgresql_only(database_url)
    for _ in range(3):
        users = list(range(1, 41))
        await join_all(queue, users)
        spot = (str(GUILD), str(CHANNEL), "crystal")
        answers = await at_once(url, ("wave", *spot), ("wave", *spot))
        paired = [user for answer in answers for pair in answer["pairs"] for user in pair]
        assert sorted(paired) == users  # every one of them, once
        for answer in answers:
            for pair in answer["pairs"]:
                for user in pair:
                    assert await queue.place(user) is None
        in_play = {snap.id: snap for user in users for snap in await parts.lookups.unfinished(user)}
        for snap in in_play.values():  # the same members again, next round
            await parts.play.resign(snap.id, snap.players[0])
