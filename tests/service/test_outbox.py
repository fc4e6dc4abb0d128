"""The outbox: what a use case must show with a bot-token call is saved with the use case, and is
delivered later by whichever process finds it undone, once."""

from __future__ import annotations

from bot.service.matches import DELIVERY_GRACE, MatchService
from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock


async def started_crown(service: MatchService) -> int:
    report = await service.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB, game="crown"
    )
    await service.accept(report.match.id, BOB)
    return report.match.id


async def test_a_use_case_leaves_its_board_and_dms_in_the_outbox_until_shown(
    service: MatchService, clock: Clock
) -> None:
    match_id = await started_crown(service)
    assert await service.due_deliveries() == []  # the use case's own process goes first
    clock.advance(seconds=DELIVERY_GRACE.total_seconds())
    due = await service.due_deliveries()
    assert sorted((item.kind, item.user_id) for item in due) == [
        ("board", None),  # the challenge
        ("board", None),  # the accepted match
        ("prompt", ALICE),
        ("prompt", BOB),
    ]
    assert all(item.match_id == match_id for item in due)
    assert await service.due_deliveries() == []  # claimed: no other process takes them


async def test_what_was_shown_is_forgotten(service: MatchService, clock: Clock) -> None:
    match_id = await started_crown(service)
    report = await service.submit(match_id, ALICE, "1 1")
    await service.delivered(match_id, report.match.version)
    clock.advance(minutes=5)
    assert await service.due_deliveries() == []


async def test_a_failed_delivery_comes_back_later_and_a_made_one_never(
    service: MatchService, clock: Clock
) -> None:
    await started_crown(service)
    clock.advance(seconds=DELIVERY_GRACE.total_seconds())
    board, *others = await service.due_deliveries()
    await service.finish_delivery(board, delivered=False)
    for item in others:
        await service.finish_delivery(item, delivered=True)
    clock.advance(seconds=4)
    assert await service.due_deliveries() == []  # backing off: 5 s after a first failure
    clock.advance(seconds=2)
    [again] = await service.due_deliveries()
    assert (again.id, again.attempts) == (board.id, board.attempts + 1)
    await service.finish_delivery(again, delivered=True)
    clock.advance(hours=1)
    assert await service.due_deliveries() == []
