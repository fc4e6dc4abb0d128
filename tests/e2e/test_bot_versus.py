"""Matches against the bot itself: ``/<game> challenge opponent:@Parlor level:...``.

The match starts at once (no Accept), the bot answers each move in the same step, its secrets
stay out of the channel until the end, and the result counts on the member's own "vs the bot"
line, never on the server leaderboard.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import pytest

import games
from bot.chat.components import Verb
from db.matches import load_match

if TYPE_CHECKING:
    from games.crown import CrownState

    from .bot_fixtures import Table
    from .fake_discord import FakeMember, FakeMessage, FakeUser

pytest_plugins = ("tests.e2e.bot_fixtures",)

CELLS = [(row, col) for row in (1, 2, 3) for col in (1, 2, 3)]


async def start_versus_bot(
    table: Table, member: FakeMember, command: str, **options: object
) -> FakeMessage:
    """Challenge the bot: the match is on at once, and the command's answer is its board."""
    answered = await table.slash(member, command, opponent=table.fake.bot, **options)
    (started,) = answered.messages
    assert not started.ephemeral and started is table.board_of(1)
    assert "Coin toss" in started.text
    assert "challenges you" not in table.public_text()
    assert all(
        p.verb != Verb.ACCEPT for m in table.fake.messages(table.channel) for p in table.presses(m)
    )
    assert f"<@{table.fake.bot.id}>" in started.text  # the board names the bot as a player
    return started


async def crown_of(table: Table, match_id: int, user_id: int) -> tuple[int, int]:
    """Where ``user_id`` hid their Crown, read from the stored match (as no member can)."""
    assert table.app is not None
    async with table.app.matches.runner.sessions() as session:
        context = await load_match(session, match_id)
    assert context is not None and context.match.state is not None
    state: CrownState = games.get("crown").load(context.match.state)
    cell = state.crowns[context.players.index(user_id)]
    assert cell is not None
    return cell


def never_dmed(table: Table, user: FakeUser | FakeMember) -> bool:
    """Whether the bot never tried to open a DM with ``user``."""
    return not any(
        r.path == "/users/@me/channels"
        and isinstance(r.json, dict)
        and str(r.json.get("recipient_id")) == str(user.id)
        for r in table.fake.requests
    )


async def next_board(table: Table, mark: int) -> FakeMessage:
    """The first board posted or edited since ``mark``."""
    return await table.posted(lambda m: bool(m.embeds), after=mark)


async def test_crystal_capture_against_the_hard_bot(table: Table, alice: FakeMember) -> None:
    bot = table.fake.bot
    opening = await start_versus_bot(table, alice, "crystal challenge", level="hard")
    assert f"<@{alice.id}> plays me at level hard." in opening.text
    assert f"<@{alice.id}>, your move." in opening.content
    for _ in range(9):
        board = table.board()
        moves = [p.arg for p in table.presses(board) if p.verb == Verb.PLAY]
        if not moves:
            break
        mark = table.checkpoint()
        await table.click(alice, board, Verb.PLAY, moves[0])
        assert await next_board(table, mark) is opening
    end = table.board()
    assert end is opening and table.board_of(1) is end
    assert "wins with exactly 15 points" in end.text or "Draw" in end.text
    assert f"<@{bot.id}> captures crystal" in table.public_text()
    assert [p.verb for p in table.presses(end)] == [Verb.REMATCH, Verb.REVIEW]
    assert never_dmed(table, bot)


async def test_crown_against_the_bot_keeps_its_crown_secret_until_the_end(
    table: Table, alice: FakeMember, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    bot = table.fake.bot
    mark = table.checkpoint()
    opening = await start_versus_bot(table, alice, "crown challenge")
    assert f"<@{alice.id}> plays me at level normal." in opening.text
    assert f"<@{bot.id}> has placed their Crown." in opening.text
    prompt = await table.posted("Choose your secret", after=mark, where=alice)
    assert f"against <@{bot.id}>" in prompt.content

    # Alice hides her Crown on the bot's own Crown cell: then any public "(row,col)" naming it
    # before the end is a leak (the bot attacking it there would end the match).
    row, col = await crown_of(table, 1, bot.id)
    secret = f"({row},{col})"
    mark = table.checkpoint()
    await table.click(alice, prompt, Verb.SECRET, f"{row} {col}")
    board, asked = await table.posted("Both Crowns are placed", after=mark), mark

    targets = iter(cell for cell in CELLS if cell != (row, col))
    attacked: set[tuple[int, int]] = set()
    for _ in range(20):
        if [p.verb for p in table.presses(board)] == [Verb.REMATCH, Verb.REVIEW]:
            break
        assert secret not in table.public_text(), f"the Crown at {secret} is public"
        assert secret not in caplog.text, f"the Crown at {secret} was logged"
        mark = table.checkpoint()
        if f"<@{alice.id}>, choose the hint you give" in board.content:
            # The bot missed Alice's Crown: she gives her hint by DM.
            hint = await table.posted("missed. Choose the hint", after=asked, where=alice)
            await table.click(alice, hint, Verb.PLAY, "row")
        else:
            # The attack buttons are every cell not yet attacked, the Crown's among them.
            cells = {p.arg for p in table.presses(board) if p.verb == Verb.PLAY}
            assert cells == {f"{r} {c}" for r, c in CELLS if (r, c) not in attacked}
            assert len({b["style"] for b in board.buttons}) == 1
            target = next(targets)
            attacked.add(target)
            await table.click(alice, board, Verb.PLAY, f"{target[0]} {target[1]}")
        board, asked = await next_board(table, mark), mark
        assert board is opening
    else:
        raise AssertionError("the match did not end")
    assert f"<@{bot.id}> wins" in board.text
    assert f"Crown was at {secret}" in board.text
    assert never_dmed(table, bot) and not never_dmed(table, alice)

    record = table.answer(await table.slash(alice, "stats", user=alice))
    assert "Capture the Crown (vs the bot)" in record
    assert "0 W · 1 L · 0 D" in record
    leaderboard = table.answer(await table.slash(alice, "stats"))
    assert leaderboard.count("No finished matches yet.") == len(games.GAMES)
    assert f"<@{alice.id}>" not in leaderboard and f"<@{bot.id}>" not in leaderboard


async def test_a_level_against_a_member_is_refused(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    answered = await table.slash(alice, "crystal challenge", opponent=bob, level="easy")
    assert answered.messages and all(m.ephemeral for m in answered.messages)
    assert "A level applies only to a match against me" in table.answer(answered)
    assert not table.fake.messages(table.channel)
