"""Every game outside servers: a whole match in a group DM between two members who share no
server with the bot, secrets chosen privately, the bot restarted in the middle (no token of the
earlier process is known after it: each press lends its own), and the record it leaves in
``/stats`` in the DM with the bot; and a whole match against the bot in its DM."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

import games
from bot.chat.components import Verb

from .anywhere import (
    assert_no_bot_token_call,
    assert_no_secret_leaked,
    challenge,
    choose,
    pick_trap,
    submit_form,
)

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeChannel, FakeDiscord, FakeMessage, FakeUser

pytest_plugins = ("tests.e2e.bot_fixtures", "tests.e2e.anywhere_fixtures")

Hidden = Callable[[], None]
"""Asserts that no secret of the match is public or logged yet."""
Step = Callable[["Table", "FakeUser", "FakeUser", "FakeMessage", Hidden], Awaitable[None]]


async def play(group: Table, who: FakeUser, board: FakeMessage, move: str, seen: str) -> None:
    """``who`` presses ``move`` on the match's message, which then shows ``seen``."""
    mark = group.checkpoint()
    await group.click(who, board, Verb.PLAY, move)
    assert await group.posted(seen, after=mark) is board


@dataclass(frozen=True)
class Script:
    """A whole match of one game by Dora and Eli: before the restart, and after it."""

    before: Step
    after: Step
    secrets: tuple[str, ...] = ()
    """The secrets as the board shows them at the end, never before."""
    typed: tuple[str, ...] = ()
    """The secrets as typed, never logged."""
    revealed: tuple[str, ...] = ()
    """What the message shows once the match is over: its result, the secrets not found."""


async def crown_before(
    group: Table, dora: FakeUser, eli: FakeUser, board: FakeMessage, hidden: Hidden
) -> None:
    await choose(group, dora, board, Verb.SECRET, "3 1")


async def crown_after(
    group: Table, dora: FakeUser, eli: FakeUser, board: FakeMessage, hidden: Hidden
) -> None:
    mark = group.checkpoint()
    await choose(group, eli, board, Verb.SECRET, "2 3")
    assert await group.posted("Both Crowns are placed", after=mark) is board
    await play(group, dora, board, "1 1", "attacks (1,1): Miss")
    await choose(group, eli, board, Verb.PLAY, "row")
    await group.posted("the Crown's row is greater than 1", after=mark)
    hidden()
    await play(group, eli, board, "3 1", "Hit")


async def claim_turns(group: Table, dora: FakeUser, eli: FakeUser, board: FakeMessage) -> None:
    """Each plays the first number the message offers, Dora first, until none is left or four
    numbers were taken since the last restart."""
    for turn in itertools.count():
        cells = [p.arg for p in group.presses(board) if p.verb == Verb.PLAY]
        if not cells or (turn == 4 and len(cells) == 9 - 4):
            return
        player = dora if len(cells) % 2 == 1 else eli  # 9 cells: Dora first
        await play(group, player, board, cells[0], f"claims {cells[0]} at")


async def claim_before(
    group: Table, dora: FakeUser, eli: FakeUser, board: FakeMessage, hidden: Hidden
) -> None:
    await claim_turns(group, dora, eli, board)


async def claim_after(
    group: Table, dora: FakeUser, eli: FakeUser, board: FakeMessage, hidden: Hidden
) -> None:
    await claim_turns(group, dora, eli, board)
    assert [p.verb for p in group.presses(board)] == [Verb.REMATCH, Verb.REVIEW]


async def crystal_before(
    group: Table, dora: FakeUser, eli: FakeUser, board: FakeMessage, hidden: Hidden
) -> None:
    await play(group, dora, board, "9", "captures crystal 9: 9 points")


async def crystal_after(
    group: Table, dora: FakeUser, eli: FakeUser, board: FakeMessage, hidden: Hidden
) -> None:
    await play(group, eli, board, "1", "captures crystal 1: 1 point.")
    await play(group, dora, board, "6", "wins with exactly 15 points")


async def flag_before(
    group: Table, dora: FakeUser, eli: FakeUser, board: FakeMessage, hidden: Hidden
) -> None:
    mark = group.checkpoint()
    await pick_trap(group, dora, board, "TRAP 4 4")
    await group.posted(f"<@{dora.id}> placed a trap (1 left)", after=mark)


async def flag_after(
    group: Table, dora: FakeUser, eli: FakeUser, board: FakeMessage, hidden: Hidden
) -> None:
    mark = group.checkpoint()
    await pick_trap(group, eli, board, "TRAP 2 2")
    await group.posted(f"<@{eli.id}> placed a trap (1 left)", after=mark)
    hidden()
    moves = [
        (dora, "MOVE 2 2", "Trap triggered at (2,2)!"),
        (eli, "MOVE 4 4", "Trap triggered at (4,4)!"),
        (dora, "MOVE 2 2", "moves to (2,2)"),
        (eli, "MOVE 4 5", "moves to (4,5)"),
        (dora, "MOVE 3 3", "moves to (3,3)"),
        (eli, "MOVE 3 5", "moves to (3,5)"),
        (dora, "MOVE 4 4", "moves to (4,4)"),
        (eli, "MOVE 2 5", "moves to (2,5)"),
        (dora, "MOVE 5 5", "captures the flag at (5,5) and wins"),
    ]
    for player, move, seen in moves:
        await play(group, player, board, move, seen)


async def safe_before(
    group: Table, dora: FakeUser, eli: FakeUser, board: FakeMessage, hidden: Hidden
) -> None:
    await submit_form(group, dora, board, Verb.ASK, "213")


async def safe_after(
    group: Table, dora: FakeUser, eli: FakeUser, board: FakeMessage, hidden: Hidden
) -> None:
    mark = group.checkpoint()
    await submit_form(group, eli, board, Verb.ASK, "312")
    assert await group.posted("Both codes are set", after=mark) is board
    await submit_form(group, dora, board, Verb.GUESS, "111")
    await group.posted("guesses 1-1-1: 1 exact match", after=mark)
    hidden()
    mark = group.checkpoint()
    await submit_form(group, eli, board, Verb.GUESS, "213")
    assert await group.posted("The safe is cracked!", after=mark) is board


SCRIPTS = {
    "crown": Script(
        crown_before,
        crown_after,
        secrets=("(3,1)", "(2,3)"),
        typed=("3 1", "2 3"),
        revealed=("Hit", "Crown was at (3,1)", "Crown was at (2,3)"),
    ),
    "claim": Script(claim_before, claim_after, revealed=("Total",)),
    "crystal": Script(crystal_before, crystal_after, revealed=("wins with exactly 15 points",)),
    "flag": Script(  # both traps are sprung in play: nothing is left hidden at the end
        flag_before,
        flag_after,
        secrets=("(4,4)", "(2,2)"),
        typed=("4 4", "2 2"),
        revealed=("captures the flag at (5,5) and wins",),
    ),
    "safe": Script(
        safe_before,
        safe_after,
        secrets=("2-1-3", "3-1-2"),
        typed=("213", "312"),
        revealed=("The safe is cracked!", "code was 2-1-3", "code was 3-1-2"),
    ),
}


@pytest.mark.parametrize("game", sorted(SCRIPTS))
async def test_a_whole_match_in_a_group_dm_goes_on_after_a_restart(
    idle_table: Table,
    group_dm: FakeChannel,
    dora: FakeUser,
    eli: FakeUser,
    caplog: pytest.LogCaptureFixture,
    game: str,
) -> None:
    caplog.set_level(logging.INFO)
    script = SCRIPTS[game]
    group = idle_table
    group.channel = group_dm
    requests = group.request_mark()

    def hidden() -> None:
        assert_no_secret_leaked(group, caplog, *script.secrets, typed=script.typed)

    async with group.running():
        board = await challenge(group, dora, eli, game)
        await script.before(group, dora, eli, board, hidden)
        hidden()
    async with group.running():
        await script.after(group, dora, eli, board, hidden)
        for shown in script.revealed:
            assert shown in board.text
        # The match counts on the ladder outside servers: /stats in the DM with the bot.
        dm = group.fake.dm_channel(dora)
        asked = await group.fake.slash(dora, dm, "stats")
        record = group.answer(await group.fake.wait_for_response(asked))
        assert f"{games.get(game).title} vs <@{eli.id}>:" in record
    assert [m for m in group.fake.messages(group.channel) if not m.ephemeral] == [board]
    assert_no_bot_token_call(group, requests)


def codes() -> list[str]:
    """Every Safe Cracker code of the default options, in order: guesses that end a match."""
    return ["".join(code) for code in itertools.product("123", repeat=3)]


async def act_against_the_bot(
    table: Table, dora: FakeUser, board: FakeMessage, game: str, guesses: list[str]
) -> None:
    """Dora's next step on the message: her secret or hint from its private prompt, else a
    move (Flag Chase: towards the bot's flag; Safe Cracker: the next code untried)."""
    presses = table.presses(board)
    verbs = {p.verb for p in presses}
    if Verb.ASK in verbs and game == "safe":
        await submit_form(table, dora, board, Verb.ASK, "111")
    elif Verb.ASK in verbs:
        opened = await table.click(dora, board, Verb.ASK)
        (picker,) = await table.fake.wait_until(
            lambda: opened.ephemeral_messages, what="the private picker"
        )
        first = table.presses(picker)[0]
        chosen = await table.click(dora, picker, first.verb, first.arg)
        await table.fake.wait_for_response(chosen)
    elif Verb.GUESS in verbs:
        await submit_form(table, dora, board, Verb.GUESS, guesses.pop(0))
    else:
        moves = [p.arg for p in presses if p.verb == Verb.PLAY]
        if game == "flag":  # the move nearest the bot's flag at (5,5)
            moves.sort(key=lambda arg: -sum(int(n) for n in arg.split()[1:]))
        await table.click(dora, board, Verb.PLAY, moves[0])


def changed(board: FakeMessage) -> Callable[[], bool]:
    """Whether the message has moved on since now: its buttons carry the match's version."""
    before = tuple(board.custom_ids)
    return lambda: tuple(board.custom_ids) != before


@pytest.mark.parametrize("game", sorted(SCRIPTS))
async def test_a_whole_match_against_the_bot_in_its_dm(
    idle_table: Table, fake_discord: FakeDiscord, dora: FakeUser, game: str
) -> None:
    table = idle_table
    table.channel = fake_discord.dm_channel(dora)
    requests = table.request_mark()
    guesses = codes()
    async with table.running():
        answered = await table.slash(dora, f"{game} challenge", opponent=fake_discord.bot)
        (board,) = answered.messages
        assert not board.ephemeral and "Coin toss" in board.text
        for _ in range(120):
            presses = table.presses(board)
            if Verb.REMATCH in {p.verb for p in presses}:
                break
            moved_on = changed(board)
            await act_against_the_bot(table, dora, board, game, guesses)
            await table.fake.wait_until(moved_on, what="the message to move on")
        assert [p.verb for p in table.presses(board)] == [Verb.REMATCH, Verb.REVIEW]
        assert "DM" not in board.text
    assert [m for m in fake_discord.messages(table.channel) if not m.ephemeral] == [board]
    assert not [
        r for r in fake_discord.requests[requests:] if r.bot_token and "/channels" in r.path
    ]
