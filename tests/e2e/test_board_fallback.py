"""A board whose interaction's response fails is still shown: the fallback with the bot token
is owed in the outbox first, so that when it fails too, the redelivery shows the board."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.chat.components import Press, Verb
from bot.service.match_state import DELIVERY_GRACE

from .test_board_delivery import BOT_EDIT, started

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeMember

pytest_plugins = ("tests.e2e.bot_fixtures",)


async def test_a_board_whose_response_and_fallback_fail_is_shown_by_the_redelivery(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    board = await started(table, alice, bob, "crystal challenge")
    fake = table.fake
    # The press's response is refused (too late for Discord), and so is the bot's next call.
    fake.interaction_deadline = 0.0
    fake.outage(requests=1, bot_token=True)
    requests = table.request_mark()
    nine = next(
        c
        for c in board.custom_ids
        if (p := Press.parse(c)) and p.verb == Verb.PLAY and p.arg == "9"
    )
    await fake.click(alice, board, nine)

    def fallback_failed() -> bool:
        return any(
            r.bot_token and r.route_key == BOT_EDIT and r.status == 503
            for r in fake.requests[requests:]
        )

    await fake.wait_until(fallback_failed, what="the fallback's edit to fail")
    callbacks = [r for r in fake.requests[requests:] if r.route.endswith("/callback")]
    assert callbacks and all(r.status == 404 for r in callbacks)
    assert "captures crystal 9" not in board.text

    # The board was owed in the outbox: once its grace has passed, the sweep shows it.
    mark = table.checkpoint()
    table.clock.advance(seconds=DELIVERY_GRACE.total_seconds() + 1)
    assert await table.posted(f"<@{alice.id}> captures crystal 9", after=mark) is board
    assert table.board_of(1) is board
