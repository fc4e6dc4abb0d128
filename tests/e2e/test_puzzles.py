"""Puzzles through the fake Discord, as a member meets them: ``/puzzle`` answered privately with
the position as its player saw it and the choices as buttons, a right and a wrong answer moving
the member's puzzle rating, a double press counted once, Next puzzle, and ``/stats``."""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING

import games
from bot.chat.components import Verb
from db.models import PUBLIC_POOL
from tests.e2e.fake_discord.state import MANAGE_GUILD
from tests.e2e.test_bot_games import start
from tests.puzzle_values import crown_puzzle, crystal_puzzle

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import (
        FakeDiscord,
        FakeGuild,
        FakeInteraction,
        FakeMember,
        FakeMessage,
        FakeUser,
    )

pytest_plugins = ("tests.e2e.bot_fixtures",)


async def press(
    table: Table, who: FakeMember | FakeUser, message: FakeMessage, label: str
) -> FakeInteraction:
    """Press the button labelled ``label`` and wait for its answer."""
    (custom_id,) = [str(b["custom_id"]) for b in message.buttons if b.get("label") == label]
    interaction = await table.fake.click(who, message, custom_id)
    return await table.fake.wait_for_response(interaction)


def rating_of(text: str) -> int:
    found = re.search(r"Puzzle rating \d+\?? → (\d+)", text)
    assert found is not None, text
    return int(found.group(1))


async def test_a_puzzle_answered_right_then_wrong_moves_the_rating(
    table: Table, alice: FakeMember, carol: FakeMember
) -> None:
    assert table.app is not None and table.channel.guild_id is not None
    guild_id = table.channel.guild_id
    await table.app.puzzles.store(guild_id, None, [crystal_puzzle(1)])
    await table.app.puzzles.store(PUBLIC_POOL, None, [crown_puzzle()])

    asked = await table.slash(alice, "puzzle")
    [shown] = asked.messages
    assert shown.ephemeral and "Puzzle · Crystal Capture" in shown.text
    assert "Your move: which one wins?" in shown.text
    assert "You: 14 points" in shown.text and "Your opponent: 14 points" in shown.text
    assert [b.get("label") for b in shown.buttons] == ["take 1", "take 2", "take 3"]
    assert f"<@{carol.id}>" not in shown.text

    # A double click: both presses reach the bot before either is answered; one counts.
    take_1 = "parlor:puzzle:1:0:any"
    presses = [await table.fake.click(alice, shown, take_1) for _twice in range(2)]
    for pressed in presses:
        await table.fake.wait_for_response(pressed)
    assert all(pressed.original is shown for pressed in presses)
    assert "✅ Right: take 1 is the best move." in shown.text
    assert "1 wins; every other choice loses." in shown.text
    assert [b.get("label") for b in shown.buttons] == ["Next puzzle"]
    assert table.app is not None
    (counted,) = await table.app.puzzles.ratings(alice.id)
    assert counted.tries == 1 and counted.solves == 1 and counted.streak == 1
    first = round(counted.rating.rating)
    assert first > 1500

    # Next puzzle: the public pool's Crown, as the attacker saw it, without Bob's Crown.
    await press(table, alice, shown, "Next puzzle")
    assert "Puzzle · Capture the Crown" in shown.text
    assert "Your Crown:" in shown.text and "👑" in shown.text
    assert shown.text.count("👑") == 2  # her own Crown on the board and in its key, no other
    wrong = await press(table, alice, shown, "take 2 2")
    assert wrong.original is shown
    assert "❌ Not take 2 2: the best move is take 3 3." in shown.text
    # Each game has its own puzzle rating and streak: this one starts at 1500 and falls.
    assert "Puzzle rating 1500? → " in shown.text and rating_of(shown.text) < 1500
    assert "Streak 0 · best 0" in shown.text

    stats = await table.slash(carol, "stats", user=alice)
    assert "Puzzles" in table.answer(stats)
    assert "Capture the Crown: rating" in table.answer(stats)
    assert "Crystal Capture: rating" in table.answer(stats)

    left = await table.slash(alice, "puzzle")
    assert left.messages[0].ephemeral and "No puzzle is left for you here" in table.answer(left)


async def test_a_new_server_gets_the_public_pool_and_never_another_servers_puzzle(
    table: Table, alice: FakeMember
) -> None:
    assert table.app is not None and table.channel.guild_id is not None
    await table.app.puzzles.store(table.channel.guild_id + 1, None, [crystal_puzzle(1)])

    # The public pool is stored at the first puzzle asked for: several hundred, every game's.
    asked = await table.slash(alice, "puzzle")
    [shown] = asked.messages
    assert shown.ephemeral and "Puzzle #1 " not in shown.text and "from match" not in shown.text
    assert await table.app.puzzles.count(PUBLIC_POOL) > 500
    for game in ("Crystal Capture", "Capture the Crown", "Number Claim", "Safe Cracker"):
        asked = await table.slash(alice, "puzzle", game=game_name(game))
        assert f"Puzzle · {game}" in table.answer(asked)
        assert "Puzzle #1 " not in table.answer(asked)


def game_name(title: str) -> str:
    return next(game.name for game in games.GAMES.values() if game.title == title)


async def test_the_daily_puzzle_is_posted_edited_and_answered_the_next_day(
    table: Table,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: FakeMember,
    bob: FakeMember,
) -> None:
    assert table.app is not None
    await table.app.puzzles.store(guild.id, None, [crystal_puzzle(1)])
    await table.app.puzzles.store(PUBLIC_POOL, None, [crown_puzzle()])
    role = fake_discord.add_role(guild, "mods", permissions=MANAGE_GUILD)
    mod = fake_discord.add_member(guild, fake_discord.add_user("mod"), roles=(role,))

    mark = table.checkpoint()
    saved = await table.slash(mod, "settings", puzzle_channel=table.channel)
    assert f"Daily puzzle: posted in <#{table.channel.id}> each day (UTC)." in table.answer(saved)
    day = table.clock().date().isoformat()
    post = await table.posted(f"Daily puzzle · {day}", after=mark)
    assert "0 tried · 0 solved" in post.text and "Yesterday" not in post.text
    assert [b.get("label") for b in post.buttons] == ["Solve"]
    posted_puzzle = 1 if "Puzzle #1 ·" in post.text else 2
    right, wrong = ("take 1", "take 2") if posted_puzzle == 1 else ("take 3 3", "take 2 2")
    assert right not in post.text and "best move" not in post.text

    # Bob answers wrong, Alice right, each privately from the post's Solve.
    for who, choice in ((bob, wrong), (alice, right)):
        opened = await press(table, who, post, "Solve")
        [mine] = opened.messages
        assert mine.ephemeral and "Your move: which one wins?" in mine.text
        await press(table, who, mine, choice)
        assert ("✅" if choice == right else "❌") in mine.text
    await fake_discord.wait_until(
        lambda: "2 tried · 1 solved" in post.text, what="the daily post's counts edited"
    )
    assert f"First solvers: <@{alice.id}>" in post.text and f"<@{bob.id}>" not in post.text
    assert "best move" not in post.text and "Yesterday" not in post.text
    again = await press(table, alice, post, "Solve")
    await press(table, alice, again.messages[0], right)  # answered already: counted once
    assert "your first answer counts" in again.messages[0].text

    # The next day's post tells the day before's answer.
    mark = table.checkpoint()
    table.clock.advance(days=1)
    tomorrow = table.clock().date().isoformat()
    following = await table.posted(f"Daily puzzle · {tomorrow}", after=mark)
    assert f"Yesterday's answer (puzzle #{posted_puzzle}): {right}." in following.text
    assert "0 tried · 0 solved" in following.text
    assert "2 tried · 1 solved" in post.text  # yesterday's post is left as it was


async def test_outside_servers_only_the_public_pool_is_offered(
    table: Table, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    assert table.app is not None
    await table.app.puzzles.store(guild.id, None, [crystal_puzzle(1)])
    await table.app.puzzles.store(PUBLIC_POOL, None, [crown_puzzle()])
    dora, eli = fake_discord.add_user("dora"), fake_discord.add_user("eli")
    fake_discord.install_for_user(dora)
    friends = fake_discord.add_group_dm(dora, eli, name="friends")

    asked = await fake_discord.wait_for_response(await fake_discord.slash(dora, friends, "puzzle"))
    [shown] = asked.messages
    assert shown.ephemeral and "Puzzle · Capture the Crown" in shown.text
    assert "Puzzle #2 " in shown.text
    answered = await press(table, dora, shown, "take 3 3")
    assert answered.original is shown and "✅ Right" in shown.text
    nothing = await press(table, dora, shown, "Next puzzle")  # not the server's own puzzle
    assert "No puzzle is left for you here" in table.answer(nothing)
    assert "Puzzle · Capture the Crown" in shown.text and "✅ Right" in shown.text


async def test_a_rated_match_gives_its_server_puzzles_for_those_who_did_not_play_it(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    assert table.app is not None and table.channel.guild_id is not None
    await table.app.puzzles.store(PUBLIC_POOL, None, [crown_puzzle()])  # the pool, held small
    board = await start(table, alice, bob, "crystal challenge")
    for move in ("3", "2", "5", "1", "6", "9"):
        to_act = alice if f"<@{alice.id}>, your move" in board.text else bob
        mark = table.checkpoint()
        await table.click(to_act, board, Verb.PLAY, move)
        board = await table.posted(f"crystal {move}", after=mark)
    assert next(p.verb for p in table.presses(board)) == Verb.REMATCH  # over

    # Searched in the review pool by the puzzles' own sweep, off the event loop.
    guild_id = table.channel.guild_id
    puzzles = table.app.puzzles
    for _poll in range(1200):  # a minute at most: the pool's first process may be slow to spawn
        if await puzzles.count(guild_id):
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the match's puzzles were never stored")
    asked = await table.slash(carol, "puzzle", game="crystal")
    assert "from match #1" in table.answer(asked)
    assert f"<@{alice.id}>" not in table.answer(asked) and f"<@{bob.id}>" not in table.answer(asked)
    for player in (alice, bob):  # never one from a match they played
        mine = await table.slash(player, "puzzle", game="crystal")
        assert "No Crystal Capture puzzle is left for you here" in table.answer(mine)


async def test_a_restart_neither_loses_nor_doubles_the_days_post(
    idle_table: Table, fake_discord: FakeDiscord, guild: FakeGuild, alice: FakeMember
) -> None:
    role = fake_discord.add_role(guild, "mods", permissions=MANAGE_GUILD)
    mod = fake_discord.add_member(guild, fake_discord.add_user("mod"), roles=(role,))
    day = idle_table.clock().date().isoformat()
    async with idle_table.running():
        assert idle_table.app is not None
        await idle_table.app.puzzles.store(guild.id, None, [crystal_puzzle(1)])
        await idle_table.app.puzzles.store(PUBLIC_POOL, None, [crown_puzzle()])
        mark = idle_table.checkpoint()
        await idle_table.slash(mod, "settings", puzzle_channel=idle_table.channel)
        post = await idle_table.posted(f"Daily puzzle · {day}", after=mark)
        opened = await press(idle_table, alice, post, "Solve")
        await press(idle_table, alice, opened.messages[0], opened.messages[0].buttons[0]["label"])
    # The answer's edit may not have been made before the stop: the next start makes it.
    async with idle_table.running():
        await fake_discord.wait_until(
            lambda: "1 tried" in post.text, what="the post edited after the restart"
        )
        await asyncio.sleep(0.3)  # several sweep rounds
    posts = [m for m in fake_discord.messages(idle_table.channel) if "Daily puzzle" in m.text]
    assert posts == [post]
