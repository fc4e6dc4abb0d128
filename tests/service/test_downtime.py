"""Deadlines that pass while the bot is away start again when it is back (hand-wound clock)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.deadlines import HEARTBEAT_KEY, Deadlines
from bot.service.match_parts import MatchParts, match_parts
from bot.service.notices import Public
from bot.service.sweeper import Sweeper, away_after
from bot.service.timeouts import Timeouts
from db.bot_meta import set_meta
from db.models import MatchEvent
from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock, deadlines_for
from tests.wording import public_said, said_all

INTERVAL = 5.0
AWAY = away_after(INTERVAL)


class Monotonic:
    """The sweeper's stopwatch, moved by hand like the clock."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def crystal(service: MatchParts, guild: int = GUILD) -> int:
    """A started Crystal Capture match: Alice to move, with the default 10 minutes."""
    report = await service.challenges.challenge(
        guild_id=guild, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB, game="crystal"
    )
    started = await service.challenges.accept(report.match.id, BOB)
    assert started.match.deadline_kind == "turn"
    return report.match.id


async def clock_resets(sessions: async_sessionmaker[AsyncSession], match_id: int) -> int:
    async with sessions() as session:
        rows = await session.scalars(
            select(MatchEvent).where(
                MatchEvent.match_id == match_id, MatchEvent.kind == "clock_reset"
            )
        )
        return len(list(rows))


async def test_a_first_start_on_an_empty_database_has_nothing_to_give_back(
    service: MatchParts, clock: Clock
) -> None:
    deadlines = deadlines_for(service)
    assert await deadlines.resume(AWAY) == []
    assert await deadlines.last_heard() == {0: clock.now}


async def test_an_upgrade_from_a_release_without_heartbeat_gives_the_time_back(
    service: MatchParts, clock: Clock
) -> None:
    """The last sign of the old release at work is its newest event: a turn that came due
    during the upgrade starts again instead of being lost on time."""
    match_id = await crystal(service)
    clock.advance(minutes=15)
    [report] = await deadlines_for(service).resume(AWAY)
    assert report.match.id == match_id and report.match.status == "active"
    assert report.match.deadline == clock.now + timedelta(minutes=10)
    assert await deadlines_for(service).sweep() == []


async def test_an_earlier_releases_single_heartbeat_is_taken_over(
    service: MatchParts, clock: Clock, sessions: async_sessionmaker[AsyncSession]
) -> None:
    match_id = await crystal(service)
    async with sessions.begin() as session:
        await set_meta(session, HEARTBEAT_KEY, clock.now.isoformat(), clock.now)
    clock.advance(minutes=15)
    [report] = await deadlines_for(service).resume(AWAY)
    assert report.match.id == match_id


def shard_processes(
    sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> tuple[Deadlines, Deadlines]:
    """The deadlines of two processes, one shard of two each."""
    return tuple(  # type: ignore[return-value]
        match_parts(
            sessions,
            clock=clock,
            seeds=lambda: 1,
            mention=lambda uid: f"@{uid}",
            shards=(shard,),
            shard_count=2,
        ).deadlines
        for shard in (0, 1)
    )


async def test_a_shard_whose_process_is_away_keeps_its_servers_deadlines(
    service: MatchParts, clock: Clock, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """Two processes, one shard each: while shard 1's process restarts, shard 0's sweeper
    forfeits nothing in shard 1's servers, and shard 1 gives the time back when it is back."""
    first, second = shard_processes(sessions, clock)
    here, there = GUILD << 22, (GUILD << 22) | (1 << 22)  # servers on shard 0 and on shard 1
    assert (first.shard_of(here), first.shard_of(there)) == (0, 1)
    await first.beat()
    await second.beat()
    ours = await crystal(service, guild=here)
    theirs = await crystal(service, guild=there)
    clock.advance(minutes=15)  # shard 1's process is down meanwhile
    await first.beat()
    [report] = await first.sweep(heard=await first.heard())
    assert report.match.id == ours and report.match.winner_id == BOB
    [back] = await second.resume(AWAY)
    assert back.match.id == theirs and back.match.status == "active"


async def test_a_secret_asked_by_dm_waits_for_shard_zero_too(
    service: MatchParts, clock: Clock, sessions: async_sessionmaker[AsyncSession]
) -> None:
    first, second = shard_processes(sessions, clock)
    there = (GUILD << 22) | (1 << 22)
    await first.beat()
    await second.beat()
    report = await service.challenges.challenge(
        guild_id=there, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB, game="safe"
    )
    await service.challenges.accept(report.match.id, BOB)  # both asked for their code by DM
    clock.advance(minutes=30)  # shard 0, where DMs arrive, is down
    await second.beat()
    assert await second.sweep(heard=await second.heard()) == []  # nobody could answer the DM


async def test_a_turn_that_came_due_while_away_starts_again(
    service: MatchParts, clock: Clock, sessions: async_sessionmaker[AsyncSession]
) -> None:
    await deadlines_for(service).beat()
    match_id = await crystal(service)
    before = await service.lookups.snapshot(match_id)
    clock.advance(minutes=15)  # a deploy: the turn came due 5 minutes into it

    [report] = await deadlines_for(service).resume(AWAY)
    snap = report.match
    assert snap.id == match_id and snap.status == "active"
    assert snap.deadline == clock.now + timedelta(minutes=10)
    assert snap.version == before.version  # not a move: the board's buttons still work
    [notice] = report.notices
    assert isinstance(notice, Public) and notice.kind == "update"
    assert said_all(notice.lines) == [
        "I was away for 15 minutes, so the clock was reset: @11 has 10 minutes to move."
    ]
    assert await clock_resets(sessions, match_id) == 1
    assert await deadlines_for(service).sweep() == []

    clock.advance(minutes=9)
    assert await deadlines_for(service).sweep() == []
    await service.play.submit(match_id, ALICE, "9", expected_version=before.version)
    clock.advance(minutes=10, seconds=1)
    [ended] = await deadlines_for(service).sweep()
    assert ended.match.winner_id == ALICE  # Bob's own turn, after the restart, ran out


async def test_a_short_restart_gives_nothing_back(service: MatchParts, clock: Clock) -> None:
    match_id = await crystal(service)
    clock.advance(minutes=10)
    await deadlines_for(service).beat()
    clock.advance(seconds=15)  # a restart within the margin: deadlines are as they were
    assert await deadlines_for(service).resume(AWAY) == []
    [report] = await deadlines_for(service).sweep()
    assert report.match.id == match_id and report.match.winner_id == BOB


async def test_only_deadlines_after_the_last_heartbeat_start_again(
    service: MatchParts, clock: Clock
) -> None:
    overdue = await crystal(service)
    clock.advance(minutes=5)
    missed = await crystal(service)
    clock.advance(minutes=5, seconds=1)
    await deadlines_for(
        service
    ).beat()  # the last round: the crash came before it swept the overdue turn
    clock.advance(minutes=30)

    [report] = await deadlines_for(service).resume(AWAY)
    assert report.match.id == missed
    [report] = await deadlines_for(service).sweep()
    assert report.match.id == overdue and report.match.status == "finished"


async def test_every_kind_of_deadline_gets_its_full_time_and_at_least_two_minutes(
    sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    timeouts = Timeouts(challenge=60, setup=60, turn=60, hint=30)
    service = match_parts(
        sessions, clock=clock, seeds=lambda: 1, mention=lambda uid: f"@{uid}", timeouts=timeouts
    )
    await deadlines_for(service).beat()
    challenged = await service.challenges.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB, game="flag"
    )
    setup = await service.challenges.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB, game="safe"
    )
    await service.challenges.accept(setup.match.id, BOB)
    await service.play.submit(setup.match.id, ALICE, "213")
    hint = await service.challenges.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=BOB, opponent_id=ALICE, game="crown"
    )
    await service.challenges.accept(hint.match.id, ALICE)
    await service.play.submit(hint.match.id, ALICE, "1 1")
    await service.play.submit(hint.match.id, BOB, "3 3")
    asked = await service.play.submit(hint.match.id, BOB, "2 2")
    assert asked.match.deadline_kind == "hint"
    clock.advance(minutes=30)

    reports = {r.match.id: r for r in await deadlines_for(service).resume(AWAY)}
    assert set(reports) == {challenged.match.id, setup.match.id, hint.match.id}
    for report in reports.values():
        assert report.match.deadline == clock.now + timedelta(minutes=2)
    [challenge_post] = reports[challenged.match.id].notices
    assert isinstance(challenge_post, Public) and challenge_post.kind == "challenge"
    assert said_all(challenge_post.lines) == [
        "@22, @11 challenges you to Flag Chase.",
        "I was away for 30 minutes, so the clock was reset: the challenge expires in 2 minutes.",
    ]
    assert public_said(reports[setup.match.id]) == [
        "I was away for 30 minutes, so the clock was reset: @22 has 2 minutes to choose."
    ]
    assert public_said(reports[hint.match.id]) == [
        "I was away for 30 minutes, so the clock was reset: @11 has 2 minutes to choose the hint."
    ]
    clock.advance(minutes=2, seconds=1)
    assert len(await deadlines_for(service).sweep()) == 3


async def test_two_processes_coming_back_at_once_reset_a_clock_once(
    service: MatchParts, clock: Clock, sessions: async_sessionmaker[AsyncSession]
) -> None:
    since = clock.now
    match_id = await crystal(service)
    clock.advance(minutes=15)
    other = match_parts(sessions, clock=clock, seeds=lambda: 1, mention=lambda uid: f"@{uid}")
    first, second = await asyncio.gather(
        deadlines_for(service).extend_missed(since), deadlines_for(other).extend_missed(since)
    )
    assert len(first) + len(second) == 1
    assert await clock_resets(sessions, match_id) == 1


async def test_the_sweeper_gives_back_time_when_its_heartbeats_stopped(
    service: MatchParts, clock: Clock
) -> None:
    stopwatch = Monotonic()
    sweeper = Sweeper(deadlines_for(service), INTERVAL, monotonic=stopwatch)
    assert await sweeper.start() == []
    match_id = await crystal(service)

    # The database was unreachable for 15 minutes: no heartbeat was recorded.
    clock.advance(minutes=15)
    stopwatch.now += 15 * 60
    [report] = await sweeper.heartbeat()
    assert report.match.status == "active"
    assert report.match.deadline == clock.now + timedelta(minutes=10)
    assert await sweeper.round() == []

    # Heartbeats on time: the clock moving on is just time passing.
    clock.advance(minutes=10, seconds=1)
    stopwatch.now += INTERVAL
    assert await sweeper.heartbeat() == []
    [report] = await sweeper.round()
    assert report.match.id == match_id and report.match.winner_id == BOB


async def test_a_slow_round_is_not_downtime(service: MatchParts, clock: Clock) -> None:
    """A round that took long (many boards to post) resets no clock: only a heartbeat that
    did not happen counts, and heartbeats keep their own time."""
    stopwatch = Monotonic()
    sweeper = Sweeper(deadlines_for(service), INTERVAL, monotonic=stopwatch)
    await sweeper.start()
    await crystal(service)
    for _ in range(6):  # a 30 s round, with the heartbeat beating beside it
        clock.advance(seconds=INTERVAL)
        stopwatch.now += INTERVAL
        assert await sweeper.heartbeat() == []
    assert await sweeper.round() == []
