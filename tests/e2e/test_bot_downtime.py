"""A restart after a long downtime: turns that came due meanwhile start again, on the board."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.chat.components import Verb

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeMember

pytest_plugins = ("tests.e2e.bot_fixtures",)


async def test_a_turn_due_while_the_bot_was_down_starts_again(
    idle_table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    table = idle_table
    async with table.running():
        mark = table.checkpoint()
        await table.slash(alice, "crystal challenge", opponent=bob)
        challenge = await table.posted("challenges you", after=mark)
        await table.click(bob, challenge, Verb.ACCEPT)
        before = await table.posted("Coin toss", after=mark)

    table.clock.advance(minutes=15)  # a long deploy: Alice's 10 minutes ran out meanwhile
    mark = table.checkpoint()
    async with table.running():
        reset = await table.posted("the clock was reset", after=mark)
        # The same board, edited in place: what happened, and whose move it is.
        assert reset.id == before.id == table.board_of(1).id
        assert (
            f"**Last:** I was away for 15 minutes, so the clock was reset: <@{alice.id}> has "
            "10 minutes to move." in reset.text
        )
        assert reset.content == f"<@{alice.id}>, your move."
        assert table.presses(reset)

        table.clock.advance(minutes=9)
        await table.click(alice, reset, Verb.PLAY, "9")
        moved = await table.posted("captures crystal 9", after=mark)
        assert moved.id == reset.id and moved.content == f"<@{bob.id}>, your move."
        assert "ran out of time" not in table.public_text()
