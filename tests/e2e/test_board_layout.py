"""The compact board as a member reads it: mentions for names, the emoji board once, what just
happened and a little before it, when the move is due, and the options only when not the
defaults; at the end, the result, the secrets drawn on the board, and Rematch."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from bot.chat.components import Verb

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeMember, FakeMessage


pytest_plugins = ("tests.e2e.bot_fixtures",)

TURN = timedelta(minutes=10)
"""The default turn timeout."""


async def started(
    table: Table, alice: FakeMember, bob: FakeMember, command: str, **options: object
) -> FakeMessage:
    mark = table.checkpoint()
    answered = await table.slash(alice, command, opponent=bob, **options)
    (board,) = answered.messages
    await table.click(bob, board, Verb.ACCEPT)
    assert await table.posted("Coin toss", after=mark) is board
    return board


async def press(table: Table, who: FakeMember, board: FakeMessage, arg: str, shows: str) -> None:
    mark = table.checkpoint()
    await table.click(who, board, Verb.PLAY, arg)
    assert await table.posted(shows, after=mark) is board


def embed(board: FakeMessage) -> dict[str, Any]:
    (only,) = board.embeds
    assert isinstance(only, dict)
    return only


def description(board: FakeMessage) -> str:
    text = embed(board).get("description")
    assert isinstance(text, str)
    return text


def assert_compact(table: Table) -> None:
    """No public message, in any of its versions, has the old board's wording."""
    public = table.public_text()
    for old in ("```", "Player 1", "Player 2", "Enter attack"):
        assert old not in public, f"{old!r} on a public message"


async def test_a_board_names_members_and_says_what_happened_and_when_the_move_is_due(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    board = await started(table, alice, bob, "crystal challenge")
    await press(table, alice, board, "9", "captures crystal 9")
    await press(table, bob, board, "1", "captures crystal 1")

    assert board.content == f"<@{alice.id}>, your move."
    assert embed(board)["title"] == "Crystal Capture · match #1"
    assert "footer" not in embed(board)  # a challenge with the default options
    paragraphs = description(board).split("\n\n")
    # The board, then the key to the colours it uses: each player's, beside their name.
    assert paragraphs[0].splitlines() == [
        "Crystals (exactly 15 wins):",
        "🟥1️⃣ ⬜2️⃣ ⬜3️⃣",
        "⬜4️⃣ ⬜5️⃣ ⬜6️⃣",
        "⬜7️⃣ ⬜8️⃣ 🟦9️⃣",
        f"<@{alice.id}>: 9 points",
        f"<@{bob.id}>: 1 point",
        f"🟦 <@{alice.id}> · 🟥 <@{bob.id}>",
    ]
    assert paragraphs[1].startswith(f"**Last:** <@{bob.id}> captures crystal 1:")
    earlier = paragraphs[2].splitlines()
    assert all(line.startswith("· ") for line in earlier)
    assert earlier[-1].startswith(f"· <@{alice.id}> captures crystal 9: ")
    due = int((table.clock.now + TURN).timestamp())
    assert paragraphs[3] == f"⏳ The move is due <t:{due}:R>."

    # Alice has 9 points: 7 and 8 would take her over 15; 1 and 9 are gone.
    labels = [str(b["label"]) for b in board.buttons]
    assert labels == [
        "1 · taken",
        "2",
        "3",
        "4",
        "5",
        "6",
        "7 · over 15",
        "8 · over 15",
        "9 · taken",
    ]
    disabled = {str(b["label"]) for b in board.buttons if b.get("disabled")}
    assert disabled == {"1 · taken", "7 · over 15", "8 · over 15", "9 · taken"}
    assert_compact(table)


async def test_a_board_lists_at_most_four_earlier_events(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    board = await started(table, alice, bob, "claim challenge")
    for turn in range(6):
        who = (alice, bob)[turn % 2]
        number = max(int(p.arg) for p in table.presses(board) if p.verb == Verb.PLAY)
        await press(table, who, board, str(number), f"<@{who.id}> claims {number} at")
    earlier = [line for line in description(board).splitlines() if line.startswith("· ")]
    assert len(earlier) == 4
    assert earlier[-1].startswith(f"· <@{alice.id}> claims 5 at")
    assert_compact(table)


async def test_options_show_in_the_footer_only_when_not_the_defaults(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    sized = await started(table, alice, bob, "claim challenge", size=4)
    assert embed(sized)["footer"]["text"] == "size: 4"
    assert len(sized.buttons) == 16
    history = [str(version) for version in sized.history]
    assert any("Number Claim (size: 4)." in version for version in history)

    # The default size, even when chosen, is not named.
    mark = table.checkpoint()
    answered = await table.slash(alice, "claim challenge", opponent=carol, size=3)
    (challenge,) = answered.messages
    assert "challenges you to Number Claim. The challenge expires" in challenge.content
    await table.click(carol, challenge, Verb.ACCEPT)
    plain = await table.posted("Coin toss", after=mark)
    assert plain is challenge and "footer" not in embed(plain)

    mark = table.checkpoint()
    answered = await table.slash(bob, "safe challenge", opponent=carol, max_guesses=5)
    answered_text = table.answer(answered)
    assert re.search(r"challenges you to Safe Cracker \(max.guesses: 5\)\.", answered_text)
    await table.click(carol, answered.messages[0], Verb.ACCEPT)
    safe = await table.posted("Coin toss", after=mark)
    assert embed(safe)["footer"]["text"] == "max guesses: 5"


async def test_the_end_of_a_crown_match_marks_the_captured_crown_and_the_one_never_found(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    mark = table.checkpoint()
    board = await started(table, alice, bob, "crown challenge")
    for who, cell in ((alice, "3 1"), (bob, "2 3")):
        prompt = await table.posted("Choose your secret", after=mark, where=who)
        await table.click(who, prompt, Verb.SECRET, cell)
    assert await table.posted("Both Crowns are placed", after=mark) is board
    assert "👑" not in board.text and "💥" not in board.text

    await press(table, alice, board, "2 3", "Hit")
    assert board.content == ""
    grids = description(board).split("\n\n")[0]
    assert grids.splitlines() == [
        f"<@{alice.id}>'s Crown:",
        "⬜⬜⬜",
        "⬜⬜⬜",
        "👑⬜⬜",  # Alice's Crown, never found
        f"<@{bob.id}>'s Crown:",
        "⬜⬜⬜",
        "⬜⬜💥",  # Bob's Crown, captured
        "⬜⬜⬜",
        "💥 captured · 👑 Crown",
    ]
    last = next(p for p in description(board).split("\n\n") if p.startswith("**Last:**"))
    last = last.replace("\n", " ")
    assert f"<@{alice.id}> attacks (2,3): Hit." in last
    assert f"<@{alice.id}>'s Crown was at (3,1)" in last
    assert "⏳" not in board.text
    assert [b["label"] for b in board.buttons] == ["Rematch", "Review"]
    assert_compact(table)


async def test_the_end_of_a_claim_match_keeps_every_number_beside_its_owners_colour(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    board = await started(table, alice, bob, "claim challenge")
    claimed: dict[int, str] = {}
    for turn in range(9):
        who = (alice, bob)[turn % 2]
        number = max(int(p.arg) for p in table.presses(board) if p.verb == Verb.PLAY)
        claimed[number] = ("🟦", "🟥")[turn % 2]
        await press(table, who, board, str(number), f"<@{who.id}> claims {number} at")
    grid = description(board).split("\n\n")[0].splitlines()
    cells = [cell for row in grid[:3] for cell in row.split()]
    assert sorted(cells) == sorted(f"{square}{n}\ufe0f\u20e3" for n, square in claimed.items())
    assert grid[3] == f"<@{alice.id}>: 25 · <@{bob.id}>: 20"
    assert grid[4] == f"🟦 <@{alice.id}> · 🟥 <@{bob.id}>"
    assert board.content == ""
    assert f"<@{alice.id}> wins" in board.text
    assert_compact(table)
