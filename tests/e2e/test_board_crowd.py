"""Ten matches at once in one channel, played with buttons: Discord never answers 429.

Every board update rides on the press that caused it, and boards pushed up by the others are
re-posted in the press's response too, so the bot's own rate limits are barely touched.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from bot.chat.components import Verb

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeGuild, FakeMember, FakeMessage

pytest_plugins = ("tests.e2e.bot_fixtures",)

MATCHES = 10


def newest(table: Table, match_id: int) -> FakeMessage | None:
    """The match's newest message in the channel (a re-posted board's old copy may linger)."""
    found = table.boards_of(match_id)
    return found[-1] if found else None


async def play_crystal(table: Table, first: FakeMember, second: FakeMember) -> tuple[int, int]:
    """``first`` challenges ``second`` and wins 9, 1, 6 with buttons; the match's id and its
    challenge message's id."""
    answered = await table.slash(first, "crystal challenge", opponent=second)
    (challenge,) = answered.messages
    match_id = table.presses(challenge)[0].match_id
    steps = (
        (second, Verb.ACCEPT, "", "Coin toss"),
        (first, Verb.PLAY, "9", f"<@{first.id}> captures crystal 9"),
        (second, Verb.PLAY, "1", f"<@{second.id}> captures crystal 1"),
        (first, Verb.PLAY, "6", f"<@{first.id}> wins with exactly 15 points"),
    )
    for who, verb, arg, shows in steps:
        board = newest(table, match_id)
        assert board is not None
        await table.click(who, board, verb, arg)

        def shown(shows: str = shows) -> FakeMessage | None:
            board = newest(table, match_id)
            return board if board is not None and shows in board.text else None

        await table.fake.wait_until(shown, what=f"match #{match_id} to show {shows!r}")
    return match_id, challenge.id


async def test_ten_matches_at_once_in_one_channel_get_no_429(
    idle_table: Table, guild: FakeGuild
) -> None:
    fake = idle_table.fake
    players = [fake.add_member(guild, fake.add_user(f"player{n}")) for n in range(2 * MATCHES)]
    async with idle_table.running():
        requests = idle_table.request_mark()
        played = await asyncio.gather(
            *(play_crystal(idle_table, players[2 * n], players[2 * n + 1]) for n in range(MATCHES))
        )
        assert sorted(match_id for match_id, _ in played) == list(range(1, MATCHES + 1))
        for match_id, _ in played:
            # Each match ends on one board: its old copies, re-posted below, are deleted.

            def one_board(match_id: int = match_id) -> bool:
                return len(idle_table.boards_of(match_id)) == 1

            await fake.wait_until(one_board, what=f"match #{match_id} to keep one board")
            end = idle_table.board_of(match_id)
            assert "wins with exactly 15 points" in end.text
            assert [p.verb for p in idle_table.presses(end)] == [Verb.REMATCH, Verb.REVIEW]
        # The boards buried one another, so they were re-posted below (in the presses' own
        # responses) rather than edited where they were.
        moved = [
            match_id for match_id, first in played if idle_table.board_of(match_id).id != first
        ]
        assert moved
    assert not fake.rate_limit_hits, fake.rate_limit_hits
    calls = idle_table.bot_calls(requests)
    assert not calls.dms and not calls.other
    assert not calls.board, f"bot-token calls for boards: {calls.board}"
