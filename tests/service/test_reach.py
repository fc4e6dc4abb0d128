"""A channel the bot cannot post in holds its matches' deadlines: nobody loses on time there."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.service.match_parts import MatchParts
from bot.service.notices import Report
from bot.service.reach import Reach
from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock, deadlines_for, outbox_for
from tests.wording import public_said


async def crystal(service: MatchParts, channel: int = CHANNEL) -> int:
    report = await service.challenges.challenge(
        guild_id=GUILD, channel_id=channel, challenger_id=ALICE, opponent_id=BOB, game="crystal"
    )
    await service.challenges.accept(report.match.id, BOB)
    return report.match.id


async def test_an_unreachable_channel_holds_its_deadlines_and_gives_the_time_back(
    service: MatchParts, clock: Clock
) -> None:
    deadlines = deadlines_for(service)
    reach = Reach(service.organizing, deadlines, service.lookups)
    held = await crystal(service)
    elsewhere = await crystal(service, CHANNEL + 1)
    assert await reach.hold(GUILD, CHANNEL)
    assert not await reach.hold(GUILD, CHANNEL)  # already held
    clock.advance(minutes=9)
    clock.advance(minutes=1, seconds=1)  # both turns are due
    [report] = await deadlines.sweep(unreachable=set(await reach.held()))
    assert report.match.id == elsewhere and report.match.winner_id == BOB
    [back] = await reach.release(CHANNEL)
    assert back.match.id == held and back.match.status == "active"
    assert back.match.deadline == clock.now + timedelta(minutes=10)
    assert public_said(back)[0].startswith("I could not post here for 10 minutes")
    assert await reach.release(CHANNEL) == []
    assert await deadlines.sweep(unreachable=set(await reach.held())) == []


async def test_a_sweep_during_a_release_never_finds_a_held_deadline_due(
    service: MatchParts, clock: Clock
) -> None:
    """Another sweep may run at any moment of a release: while the deadlines have not moved
    yet, it must still see the channel held, or it times out a turn nobody could see."""
    deadlines = deadlines_for(service)
    reach = Reach(service.organizing, deadlines, service.lookups)
    match_id = await crystal(service)
    await reach.hold(GUILD, CHANNEL)
    clock.advance(minutes=10, seconds=1)  # the turn fell due while the channel was held
    swept: list[int] = []
    extend = deadlines.extend_in_channel

    async def sweep_first(guild_id: int, channel_id: int, since: datetime) -> list[Report]:
        for report in await deadlines.sweep(unreachable=set(await reach.held())):
            swept.append(report.match.id)
        return await extend(guild_id, channel_id, since)

    deadlines.extend_in_channel = sweep_first  # type: ignore[method-assign]
    [back] = await reach.release(CHANNEL)
    assert swept == []
    assert back.match.id == match_id and back.match.status == "active"
    assert await reach.held() == {}


async def test_a_channel_out_of_reach_for_a_whole_turn_calls_its_matches_off(
    service: MatchParts, clock: Clock
) -> None:
    reach = Reach(service.organizing, service.deadlines, service.lookups)
    match_id = await crystal(service)
    await reach.hold(GUILD, CHANNEL)
    clock.advance(minutes=5)
    assert (await reach.call_off_overdue()).called_off == []
    clock.advance(minutes=5, seconds=1)
    [report] = (await reach.call_off_overdue()).called_off
    assert report.match.id == match_id and report.match.status == "aborted"
    assert report.match.end_reason == "unreachable"
    assert await reach.held() == {}


async def test_a_channel_held_again_after_a_failed_try_keeps_its_first_moment(
    service: MatchParts, clock: Clock
) -> None:
    reach = Reach(service.organizing, service.deadlines, service.lookups)
    match_id = await crystal(service)
    began = clock.now
    await reach.hold(GUILD, CHANNEL)
    clock.advance(minutes=6)
    await reach.release(CHANNEL)  # tried again, and refused again at once
    assert await reach.hold(GUILD, CHANNEL, since=began)
    assert (await reach.held())[CHANNEL].since == began
    clock.advance(minutes=4, seconds=1)  # a whole turn since it first went out of reach
    [report] = (await reach.call_off_overdue()).called_off
    assert report.match.id == match_id and report.match.status == "aborted"


async def test_a_match_played_on_through_interactions_is_not_called_off(
    service: MatchParts, clock: Clock
) -> None:
    """Buttons and commands answer through interactions, which need no permission in the
    channel: a match its players go on playing is not called off with its channel's hold."""
    reach = Reach(service.organizing, service.deadlines, service.lookups)
    playing = await crystal(service)
    idle = await crystal(service)
    await reach.hold(GUILD, CHANNEL)
    clock.advance(minutes=3)
    await service.play.submit(playing, ALICE, "9")
    clock.advance(minutes=7, seconds=1)
    [report] = (await reach.call_off_overdue()).called_off
    assert report.match.id == idle
    assert (await service.lookups.snapshot(playing)).status == "active"
    assert await reach.held() == {}  # its deadlines run again


async def test_a_channel_given_up_forgets_the_boards_it_owes_of_matches_over(
    service: MatchParts, clock: Clock
) -> None:
    """Each try of such a board would be refused and hold the channel again, for another whole
    turn: the boards of a match played on there, and of other channels, stay owed."""
    reach = Reach(service.organizing, service.deadlines, service.lookups)
    resigned, idle, playing = [await crystal(service) for _ in range(3)]
    elsewhere = await crystal(service, channel=CHANNEL + 1)
    await reach.hold(GUILD, CHANNEL)
    await service.play.resign(resigned, BOB)  # its result board is owed, and refused
    clock.advance(minutes=3)
    await service.play.submit(playing, ALICE, "9")
    clock.advance(minutes=7, seconds=1)
    overdue = await reach.call_off_overdue()
    assert [report.match.id for report in overdue.called_off] == [idle]
    assert [snap.id for snap in overdue.unseen_ends] == [resigned]  # its players are told
    clock.advance(hours=1)  # every retry due
    owed = {item.match_id for item in await outbox_for(service).due() if item.kind == "board"}
    assert owed == {playing, elsewhere}
