"""The outbox: what a use case must show with a bot-token call is saved with the use case, and is
delivered later by whichever process finds it undone, once."""

from __future__ import annotations

import asyncio

from bot.service.lines import Happened, Members, Say, Saying, Titled, kept_lines, kept_sayings
from bot.service.match_parts import MatchParts
from bot.service.match_state import DELIVERY_GRACE
from bot.service.notices import MatchSnapshot
from bot.service.outbox import Outbox
from games.base import Event
from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock, outbox_for


async def started_crown(service: MatchParts) -> int:
    report = await service.challenges.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB, game="crown"
    )
    await service.challenges.accept(report.match.id, BOB)
    return report.match.id


class InTheResponse:
    """A caller whose interaction response carries the board."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def rides_on_response(self, snap: MatchSnapshot) -> bool:
        self.asked.append(snap.version)
        return True


async def test_a_use_case_leaves_its_board_and_dms_in_the_outbox_until_shown(
    service: MatchParts, clock: Clock
) -> None:
    match_id = await started_crown(service)
    outbox = outbox_for(service)
    assert await outbox.due() == []  # the use case's own process goes first
    clock.advance(seconds=DELIVERY_GRACE.total_seconds())
    due = await outbox.due()
    assert sorted((item.kind, item.user_id) for item in due) == [
        ("board", None),  # the challenge
        ("board", None),  # the accepted match
        ("prompt", ALICE),
        ("prompt", BOB),
    ]
    assert all(item.match_id == match_id for item in due)
    assert await outbox.due() == []  # claimed: no other process takes them


async def test_a_board_the_response_carries_writes_no_outbox_entry(
    service: MatchParts, clock: Clock
) -> None:
    route = InTheResponse()
    report = await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger_id=ALICE,
        opponent_id=BOB,
        game="crystal",
        board=route,
    )
    accepted = await service.challenges.accept(report.match.id, BOB, board=route)
    await service.play.submit(report.match.id, ALICE, "5", board=route)
    assert route.asked == [0, 1, 2]  # asked once per use case, with the version it saves
    assert accepted.match.version == 1
    clock.advance(minutes=5)
    assert await outbox_for(service).due() == []


async def test_a_board_whose_response_failed_is_owed_after_the_grace(
    service: MatchParts, clock: Clock
) -> None:
    """The response that was to carry the board failed: its board is written then, and due
    after the grace as a use case's own entry would be."""
    route = InTheResponse()
    report = await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger_id=ALICE,
        opponent_id=BOB,
        game="crystal",
        board=route,
    )
    outbox = outbox_for(service)
    await outbox.owe_board(report.match.id, report.match.version)
    assert await outbox.due() == []
    clock.advance(seconds=DELIVERY_GRACE.total_seconds())
    (owed,) = await outbox.due()
    assert (owed.match_id, owed.version, owed.kind) == (report.match.id, 0, "board")


async def test_what_was_shown_is_forgotten_in_one_flush(service: MatchParts, clock: Clock) -> None:
    match_id = await started_crown(service)
    outbox = outbox_for(service)
    report = await service.play.submit(match_id, ALICE, "1 1")
    outbox.board_shown(match_id, report.match.version)
    outbox.sent(match_id, 1, "prompt", ALICE)
    outbox.sent(match_id, 1, "prompt", BOB)
    await outbox.flush()
    assert not outbox.pending
    clock.advance(minutes=5)
    assert await outbox.due() == []


async def test_a_board_shown_never_forgets_a_prompt_still_undelivered(
    service: MatchParts, clock: Clock
) -> None:
    """A prompt DM that failed at one version stays due when a later board is shown."""
    match_id = await started_crown(service)
    outbox = outbox_for(service)
    report = await service.play.submit(match_id, ALICE, "1 1")  # version 2: Alice's secret
    outbox.board_shown(match_id, report.match.version)
    outbox.sent(match_id, 1, "prompt", ALICE)  # Bob's prompt (version 1) was never delivered
    await outbox.flush()
    clock.advance(seconds=DELIVERY_GRACE.total_seconds())
    [left] = await outbox.due()
    assert (left.kind, left.user_id, left.version) == ("prompt", BOB, 1)


async def test_shutting_down_during_a_write_loses_nothing_shown(
    service: MatchParts, clock: Clock
) -> None:
    """At shut-down a write in progress finishes (cancelled mid-transaction, what it was
    writing would be lost, and its connection left checked out), then the rest is written."""
    match_id = await started_crown(service)
    outbox = Outbox(service.runner.sessions, clock=service.runner.clock, flush_every=0)
    report = await service.play.submit(match_id, ALICE, "1 1")
    outbox.board_shown(match_id, report.match.version)
    outbox.sent(match_id, 1, "prompt", ALICE)
    for _ in range(3):
        await asyncio.sleep(0)  # the write has begun
    outbox.sent(match_id, 1, "prompt", BOB)  # shown meanwhile: the last write's
    await outbox.close()
    assert not outbox.pending
    clock.advance(minutes=5)
    assert await outbox.due() == []


async def test_a_board_that_moved_is_remembered(service: MatchParts) -> None:
    match_id = await started_crown(service)
    outbox = outbox_for(service)
    outbox.board_moved(match_id, 4242)
    await outbox.flush()
    assert (await service.lookups.snapshot(match_id)).message_id == 4242


async def test_a_failed_delivery_comes_back_later_and_a_made_one_never(
    service: MatchParts, clock: Clock
) -> None:
    await started_crown(service)
    outbox: Outbox = outbox_for(service)
    clock.advance(seconds=DELIVERY_GRACE.total_seconds())
    board, *others = await outbox.due()
    await outbox.retry_later(board)
    for item in others:
        await outbox.forget(item)
    clock.advance(seconds=4)
    assert await outbox.due() == []  # backing off: 5 s after a first failure
    clock.advance(seconds=2)
    [again] = await outbox.due()
    assert (again.id, again.attempts) == (board.id, board.attempts + 1)
    await outbox.forget(again)
    clock.advance(hours=1)
    assert await outbox.due() == []


def test_the_lines_kept_for_a_press_are_the_service_lines_as_they_were_said() -> None:
    """A board entry outside servers keeps the service's own lines as data, every kind of
    value they hold (a game by its title, members together, a line within a line), and
    leaves the game's events to the board's log."""
    stands = Saying.of(
        Say.CHALLENGE_STANDS,
        opponent="<@2>",
        challenger="<@1>",
        game=Titled.of("crown", {"size": 4}),
    )
    reset = Saying.of(
        Say.CLOCK_RESET, deadline="setup", away=1, minutes=900, time=300, members=Members(("<@2>",))
    )
    heading = Saying.of(Say.MOVES_FIRST, heading=Saying.of(Say.ROUND, id=3, round=2), player="<@1>")
    event = Happened(
        Event("attack", "{p0} attacks (1,1): Miss.", None, {}, "crown"), ("<@1>", "<@2>")
    )
    kept = kept_lines([stands, event, reset, heading])
    assert kept_sayings(kept) == [stands, reset, heading]
    assert kept_lines([event]) is None and kept_sayings(None) == []
