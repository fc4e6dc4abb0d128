"""Every game from challenge to result on one board message, edited in place.

Each game is played twice: its public moves once with the board's buttons, once with slash
commands. At every step the channel holds exactly one message for the match (the command's
answer to the challenge, the same message id throughout), the member reads it as Discord shows
it (content, embed, buttons), and the step made no bot-token call in the channel: the board is
edited in the response to the press, or through the token of the interaction that last answered
with it. DMs (prompts, replies to typed answers) take bot-token calls of their own, counted apart.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING

import pytest

from bot.chat.components import Verb

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeInteraction, FakeMember, FakeMessage

pytest_plugins = ("tests.e2e.bot_fixtures",)

MODES = ("buttons", "commands")
DM_POST = "POST /channels/{channel_id}/messages"


class OneBoard:
    """Alice's match against Bob (match #1), checked at every step."""

    def __init__(self, table: Table, alice: FakeMember, bob: FakeMember) -> None:
        self.table = table
        self.alice = alice
        self.bob = bob
        self._board: FakeMessage | None = None

    @property
    def board(self) -> FakeMessage:
        assert self._board is not None, "no challenge yet"
        return self._board

    def your_move(self, who: FakeMember) -> str:
        return f"<@{who.id}>, your move."

    async def challenge(self, command: str, **options: object) -> FakeMessage:
        """Alice's challenge: the command's public answer, which will be the board."""
        requests = self.table.request_mark()
        answered = await self.table.slash(self.alice, command, opponent=self.bob, **options)
        (challenge,) = answered.messages
        assert not challenge.ephemeral
        assert challenge.content.startswith(f"<@{self.bob.id}>, <@{self.alice.id}> challenges you")
        self._board = challenge
        assert self.table.board_of(1) is challenge
        assert not self.table.bot_calls(requests).board
        return challenge

    async def step(
        self, act: Callable[[], Awaitable[object]], shows: str, content: str
    ) -> FakeMessage:
        """Do ``act``; the board, edited in place, shows ``shows`` and says ``content``."""
        requests = self.table.request_mark()
        mark = self.table.checkpoint()
        await act()
        board = await self.table.posted(shows, after=mark)
        assert board is self.board, "the board moved to another message"
        assert self.table.board_of(1) is board, "the match has more than one message"
        assert board.content == content
        calls = self.table.bot_calls(requests)
        assert not calls.board, f"bot-token calls in the channel: {calls.board}"
        assert not calls.other, f"bot-token calls elsewhere: {calls.other}"
        return board

    async def press(
        self, who: FakeMember, verb: str, arg: str, shows: str, content: str
    ) -> FakeMessage:
        """A press on the board, answered by the board's edit (an update, nothing private)."""
        pressed: list[FakeInteraction] = []

        async def act() -> None:
            pressed.append(await self.table.click(who, self.board, verb, arg))

        board = await self.step(act, shows, content)
        (interaction,) = pressed
        assert interaction.original is board and not interaction.messages
        return board

    async def command(
        self, who: FakeMember, command: str, shows: str, content: str, **options: object
    ) -> FakeMessage:
        """A slash command's move: the board is edited, the command answered privately."""
        answered: list[FakeInteraction] = []

        async def act() -> None:
            answered.append(await self.table.slash(who, command, **options))

        board = await self.step(act, shows, content)
        (interaction,) = answered
        (played,) = interaction.messages
        assert played.ephemeral and played.content.startswith("Played: ")
        assert played.content.endswith(f"/{self.table.channel.id}/{board.id}")
        return board

    async def prompt(self, who: FakeMember, text: str, after: int) -> FakeMessage:
        return await self.table.posted(text, after=after, where=who)

    async def answer_prompt(
        self, who: FakeMember, prompt: FakeMessage, verb: str, arg: str, shows: str, content: str
    ) -> FakeMessage:
        """A press in a DM prompt: the prompt is closed with what came of it; the board is
        edited through the stored interaction token."""
        board = await self.step(
            lambda: self.table.click(who, prompt, verb, arg), shows=shows, content=content
        )
        await self.table.closed(prompt)
        # What came of it: the private line, or (a hint has none) a link to the board.
        last = prompt.content.splitlines()[-1]
        assert last.startswith("Match #1: ") or last == f"Done: {self.link()}", last
        return board

    async def typed(self, who: FakeMember, text: str, shows: str, content: str) -> FakeMessage:
        """A typed DM answer: a DM reply, and the board edited."""
        replies: list[FakeMessage] = []

        async def act() -> None:
            replies.append(await self.table.dm(who, text))

        board = await self.step(act, shows, content)
        (reply,) = replies
        played = f"Played in match #1: {self.link()}"
        assert reply.content.startswith("Match #1: ") or reply.content == played, reply.content
        return board

    def link(self) -> str:
        """The board's address, as the bot's links give it."""
        channel = self.table.channel
        return f"https://discord.com/channels/{channel.guild_id}/{channel.id}/{self.board.id}"

    def check_dms(self, since: int) -> None:
        """Every bot-token post outside the channel since ``since`` is a DM the players got."""
        calls = self.table.bot_calls(since)
        assert not calls.board and not calls.other
        fake = self.table.fake
        dms = [m for who in (self.alice, self.bob) for m in fake.dms(who) if m.author is fake.bot]
        assert calls.dms[DM_POST] == len(dms)
        assert not set(calls.dms) - {DM_POST, "POST /users/@me/channels", "GET /users/{user_id}"}


async def fill_in(table: Table, who: FakeMember, opened: FakeInteraction, code: str) -> None:
    """Submit the one-field form ``opened`` showed, with ``code``."""
    assert opened.modal is not None
    (field,) = opened.modal_text_inputs
    await table.fake.submit_modal(
        who, opened, opened.modal["custom_id"], {field["custom_id"]: code}
    )


async def accept(match: OneBoard, content: str) -> FakeMessage:
    board = await match.press(match.bob, Verb.ACCEPT, "", "Coin toss", content)
    assert f"<@{match.bob.id}> accepted." in board.text
    return board


# ---------------------------------------------------------------------- the games


async def crown(match: OneBoard, mode: str) -> FakeMessage:
    alice, bob = match.alice, match.bob
    mark = match.table.checkpoint()
    await match.challenge("crown challenge")
    await accept(match, f"Waiting for <@{alice.id}> and <@{bob.id}> to choose a secret (by DM).")
    alice_prompt = await match.prompt(alice, "Choose your secret", mark)
    bob_prompt = await match.prompt(bob, "Choose your secret", mark)
    waiting = f"Waiting for <@{bob.id}> to choose a secret (by DM)."
    if mode == "buttons":
        await match.answer_prompt(
            alice, alice_prompt, Verb.SECRET, "3 1", "has placed their Crown", waiting
        )
        await match.answer_prompt(
            bob, bob_prompt, Verb.SECRET, "2 3", "Both Crowns are placed", match.your_move(alice)
        )
    else:
        await match.typed(alice, "3 1", "has placed their Crown", waiting)
        await match.typed(bob, "2 3", "Both Crowns are placed", match.your_move(alice))

    async def attack(who: FakeMember, row: int, col: int, shows: str, content: str) -> None:
        if mode == "buttons":
            await match.press(who, Verb.PLAY, f"{row} {col}", shows, content)
        else:
            await match.command(who, "crown attack", shows, content, row=row, col=col)

    async def hint(who: FakeMember, choice: str, shows: str, content: str) -> None:
        prompt = await match.prompt(who, "missed. Choose the hint", mark)
        if mode == "buttons":
            await match.answer_prompt(who, prompt, Verb.PLAY, choice, shows, content)
        else:
            await match.typed(who, choice, shows, content)

    mark = match.table.checkpoint()
    await attack(
        alice, 2, 2, "attacks (2,2): Miss", f"<@{bob.id}>, choose the hint you give (by DM)."
    )
    await hint(bob, "row", "the Crown's row is equal to 2", match.your_move(bob))
    mark = match.table.checkpoint()
    await attack(
        bob, 1, 1, "attacks (1,1): Miss", f"<@{alice.id}>, choose the hint you give (by DM)."
    )
    await hint(alice, "column", "the Crown's column is equal to 1", match.your_move(alice))
    await attack(alice, 2, 3, "Hit", "")
    end = match.board
    shown = end.text
    assert "Crown was at (3,1)" in shown and "Crown was at (2,3)" in shown
    return end


async def claim(match: OneBoard, mode: str) -> FakeMessage:
    alice, bob = match.alice, match.bob
    hidden = mode == "commands"  # commands name cells by row and col, as a hidden grid needs
    board = await match.challenge("claim challenge", **({"hidden": True} if hidden else {}))
    await accept(match, match.your_move(alice))
    for turn in range(9):
        who, then = (alice, bob) if turn % 2 == 0 else (bob, alice)
        content = "" if turn == 8 else match.your_move(then)
        plays = [p.arg for p in match.table.presses(board) if p.verb == Verb.PLAY]
        if mode == "buttons":
            largest = max(plays, key=int)
            await match.press(who, Verb.PLAY, largest, f"<@{who.id}> claims {largest} at", content)
        else:
            row, col = plays[0].split()
            await match.command(
                who, "claim pick", f"claims ({row},{col})", content, row=int(row), col=int(col)
            )
    if hidden:
        assert "The grid was" in board.text
    return board


async def crystal(match: OneBoard, mode: str) -> FakeMessage:
    alice, bob = match.alice, match.bob
    await match.challenge("crystal challenge")
    await accept(match, match.your_move(alice))
    moves = ((alice, 9, match.your_move(bob)), (bob, 1, match.your_move(alice)), (alice, 6, ""))
    for who, crystal, content in moves:
        shows = f"<@{who.id}> captures crystal {crystal}"
        if mode == "buttons":
            await match.press(who, Verb.PLAY, str(crystal), shows, content)
        else:
            await match.command(who, "crystal take", shows, content, crystal=crystal)
    end = match.board
    assert f"<@{alice.id}> wins with exactly 15 points" in end.text
    return end


async def flag(match: OneBoard, mode: str) -> FakeMessage:
    alice, bob = match.alice, match.bob
    table = match.table
    await match.challenge("flag challenge")
    await accept(match, match.your_move(alice))
    placed, bobs_move = f"<@{alice.id}> placed a trap (1 left)", match.your_move(bob)
    if mode == "buttons":
        # The board's Trap button opens Alice's picker privately; her pick closes it.
        opened = await table.click(alice, match.board, Verb.TRAP)
        await table.fake.wait_for_response(opened)
        (picker,) = opened.ephemeral_messages
        await match.answer_prompt(alice, picker, Verb.PLAY, "TRAP 3 1", placed, bobs_move)
    else:
        mark = table.checkpoint()
        asked = await table.slash(alice, "flag trap")
        assert "by DM" in table.answer(asked)
        picker = await match.prompt(alice, "pick the cell for a trap", mark)
        await match.answer_prompt(alice, picker, Verb.PLAY, "TRAP 3 1", placed, bobs_move)
    steps = [
        (bob, 4, 5),
        (alice, 2, 2),
        (bob, 3, 5),
        (alice, 3, 3),
        (bob, 2, 5),
        (alice, 4, 4),
        (bob, 2, 4),
        (alice, 5, 5),
    ]
    for index, (who, row, col) in enumerate(steps):
        last = index == len(steps) - 1
        then = bob if who is alice else alice
        content = "" if last else match.your_move(then)
        shows = "captures the flag at (5,5)" if last else f"moves to ({row},{col})"
        if mode == "buttons":
            await match.press(who, Verb.PLAY, f"MOVE {row} {col}", shows, content)
        else:
            await match.command(who, "flag move", shows, content, row=row, col=col)
    end = match.board
    assert "hidden traps: (3,1)" in end.text
    return end


async def safe(match: OneBoard, mode: str) -> FakeMessage:
    alice, bob = match.alice, match.bob
    table = match.table
    mark = table.checkpoint()
    await match.challenge("safe challenge")
    await accept(match, f"Waiting for <@{alice.id}> and <@{bob.id}> to choose a secret (by DM).")
    waiting = f"Waiting for <@{bob.id}> to choose a secret (by DM)."
    codes = (
        (alice, "213", waiting, "has set their code"),
        (bob, "312", None, "Both codes are set"),
    )
    for who, code, content, shows in codes:
        prompt = await match.prompt(who, "Choose your secret", mark)
        expected = content or match.your_move(alice)
        if mode == "buttons":
            # The prompt's button opens a form; its submission edits the DM prompt.
            opened = await table.click(who, prompt, Verb.CODE)
            await table.fake.wait_for_response(opened)
            await match.step(partial(fill_in, table, who, opened, code), shows, expected)
            await table.closed(prompt)
            assert prompt.content.endswith(f"Your code is {'-'.join(code)}.")
        else:
            await match.typed(who, code, shows, expected)

    guesses = ((alice, "111", match.your_move(bob)), (bob, "111", match.your_move(alice)))
    for who, code, content in [*guesses, (alice, "312", "")]:
        shows = "The safe is cracked!" if code == "312" else f"<@{who.id}> guesses 1-1-1"
        if mode == "buttons":
            # The board's Guess button opens a form; its submission edits the board.
            opened = await table.click(who, match.board, Verb.GUESS)
            await table.fake.wait_for_response(opened)
            await match.step(partial(fill_in, table, who, opened, code), shows, content)
        else:
            await match.command(who, "safe guess", shows, content, code=code)
    end = match.board
    assert "code was 2-1-3" in end.text and "code was 3-1-2" in end.text
    return end


GAMES = {"crown": crown, "claim": claim, "crystal": crystal, "flag": flag, "safe": safe}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("game", list(GAMES))
async def test_a_match_lives_on_one_board(
    idle_table: Table, alice: FakeMember, bob: FakeMember, game: str, mode: str
) -> None:
    match = OneBoard(idle_table, alice, bob)
    async with idle_table.running():
        requests = idle_table.request_mark()
        end = await GAMES[game](match, mode)
        # The result: no call to act, the result in the embed, Rematch the only button.
        assert end is idle_table.board_of(1)
        assert end.content == ""
        assert [p.verb for p in idle_table.presses(end)] == [Verb.REMATCH, Verb.REVIEW]
        assert not idle_table.fake.rate_limit_hits
        # No version of any public message had the old board's wording.
        public = idle_table.public_text()
        for old in ("```", "Player 1", "Player 2", "Enter attack"):
            assert old not in public
    # The bot has finished all it was doing: from the challenge to the result, no bot-token
    # call touched the channel, and every other one was for a DM the players got.
    match.check_dms(requests)
