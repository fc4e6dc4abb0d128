"""Tournaments as members see them: sign-up with buttons, rounds posted with a thread each, every
pairing an ordinary match on its own board, results moving the event on, the winner announced,
and a restart in the middle of a round."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import pytest

from bot.chat.components import Verb

from .fake_discord.permissions import CREATE_PUBLIC_THREADS, EMBED_LINKS
from .fake_discord.records import THREAD_CREATED
from .fake_discord.state import MANAGE_GUILD

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeMember, FakeMessage

pytest_plugins = ("tests.e2e.bot_fixtures",)

CRYSTAL_WIN = ("9", "1", "6")
"""The first to move takes 9, then 6: exactly 15, a win."""
CRYSTAL_LOSS = ("1", "9", "2", "6")
"""The second to move reaches 15 first."""
CRYSTAL_DRAW = ("1", "5", "6", "9", "7")
"""Neither can take a crystal without going over 15: a draw."""
DEFERRED_WITH_SOURCE = 5
"""The interaction response that shows "thinking" until the answer follows."""
YOUR_MOVE = re.compile(r"<@(\d+)>, your move\.")


@pytest.fixture
def organizer(fake_discord: FakeDiscord, guild: FakeGuild) -> FakeMember:
    """A member with the Manage Server permission."""
    role = fake_discord.add_role(guild, "mods", permissions=MANAGE_GUILD)
    return fake_discord.add_member(guild, fake_discord.add_user("organizer"), roles=(role,))


@pytest.fixture
def players(
    fake_discord: FakeDiscord, guild: FakeGuild, alice: FakeMember, bob: FakeMember
) -> list[FakeMember]:
    """Eight members who accept DMs, Alice and Bob first."""
    others = [
        fake_discord.add_member(guild, fake_discord.add_user(name))
        for name in ("carol2", "dave", "erin", "frank", "grace", "heidi")
    ]
    return [alice, bob, *others]


@pytest.fixture
async def hall(
    idle_table: Table, organizer: FakeMember, players: list[FakeMember]
) -> AsyncIterator[Table]:
    """The table with everyone in the server before the bot starts."""
    async with idle_table.running():
        yield idle_table


async def sign_up(
    table: Table, organizer: FakeMember, players: list[FakeMember], **options: object
) -> FakeMessage:
    """Create a tournament and have every player press Join; the sign-up message."""
    answered = await table.slash(organizer, "tournament create", **options)
    (signup,) = answered.messages
    assert not signup.ephemeral and "Press **Join** to enter." in signup.text
    for player in players:
        await press(table, player, signup, "join")
    assert f"Entrants ({len(players)})" in signup.text
    return signup


async def press(table: Table, who: FakeMember, signup: FakeMessage, verb: str) -> None:
    """Press Join or Leave on the sign-up message and wait for the answer."""
    interaction = await table.fake.click(who, signup, signup_button(signup, verb))
    await table.fake.wait_for_response(interaction)


def signup_button(message: FakeMessage, verb: str) -> str:
    found = [c for c in message.custom_ids if c.startswith("tournament:") and c.endswith(verb)]
    assert len(found) == 1, message.custom_ids
    return found[0]


async def round_thread(fake: FakeDiscord, post: FakeMessage) -> FakeChannel:
    """The thread started from a round's post, once started."""
    await fake.wait_until(lambda: post.id in fake.state.channels, what="the round's thread")
    return fake.state.channel(post.id)


async def boards_in(table: Table, thread: FakeChannel, count: int) -> list[FakeMessage]:
    """The thread's ``count`` boards, once all are posted."""

    def boards() -> list[FakeMessage]:
        return [m for m in table.fake.messages(thread) if _is_board(m)]

    await table.fake.wait_until(lambda: len(boards()) >= count, what=f"{count} boards")
    found = boards()
    assert len(found) == count
    return found


def _is_board(message: FakeMessage) -> bool:
    return any("· match #" in embed.get("title", "") for embed in message.embeds)


async def play(
    table: Table, board: FakeMessage, moves: tuple[str, ...], by: dict[int, FakeMember]
) -> None:
    """Play ``moves`` with the board's buttons, each by the member it asks to move."""
    for move in moves:
        found = YOUR_MOVE.search(board.content)
        assert found, board.content
        await table.click(by[int(found.group(1))], board, Verb.PLAY, move)


def first_player(board: FakeMessage) -> int:
    found = YOUR_MOVE.search(board.content)
    assert found
    return int(found.group(1))


async def test_an_eight_player_swiss_of_crystal_capture_runs_to_its_winner(
    hall: Table, organizer: FakeMember, players: list[FakeMember]
) -> None:
    table, fake = hall, hall.fake
    by_id = {p.id: p for p in players}
    signup = await sign_up(table, organizer, players, game="crystal", format="swiss")
    mark = table.checkpoint()
    started = await table.slash(organizer, "tournament start")
    assert "has started with 8 players" in table.answer(started)
    await fake.wait_until(lambda: not signup.custom_ids, what="the sign-up to close")
    assert "Sign-up is closed: 8 players" in signup.text

    pairs: Counter[frozenset[int]] = Counter()
    balance: Counter[int] = Counter()  # games moving first minus games moving second
    for number in (1, 2, 3):
        post = await table.posted(f"round {number} of 3", after=mark)
        assert "the matches are in the thread below" in post.text
        if number == 1:
            assert "Round 1 pairings" in post.text
        else:
            assert f"after round {number - 1}" in post.text and "BH " in post.text
        thread = await round_thread(fake, post)
        assert thread.parent_id == table.channel.id
        assert thread.auto_archive_duration == 10080  # a week: a round may take days
        boards = await boards_in(table, thread, 4)
        mark = table.checkpoint()
        for i, board in enumerate(boards):
            assert f"Tournament #1, round {number}:" in board.text
            first = first_player(board)
            mentioned = {int(u) for u in re.findall(r"<@(\d+)>", board.embeds[0]["description"])}
            second = (mentioned - {first}).pop()
            pairs[frozenset((first, second))] += 1
            # The first move goes to whoever has moved first less often so far.
            assert balance[first] <= balance[second]
            balance[first] += 1
            balance[second] -= 1
            # One game a round is drawn; otherwise the first listed member wins.
            await play(table, board, CRYSTAL_DRAW if i == 0 else CRYSTAL_WIN, by_id)
    end = await table.posted("🏆", after=mark)
    assert "final standings" in end.text
    # Twelve games and no pairing twice.
    assert len(pairs) == 12 and set(pairs.values()) == {1}
    winner = int(re.search(r"🏆 <@(\d+)> wins", end.content).group(1))  # type: ignore[union-attr]
    standings = await table.slash(players[0], "tournament standings")
    shown = table.answer(standings)
    assert shown.index(f"1. <@{winner}>") < shown.index("2. <@")
    assert "final standings" in shown


async def crown_match(table: Table, board: FakeMessage, by: dict[int, FakeMember]) -> int:
    """Both players hide their Crown with their DM prompt's buttons, then the first to move
    captures the other's at once; the winner's id."""
    found = re.findall(r"<@(\d+)>", board.content)
    assert "to choose a secret (by DM)" in board.content and len(found) == 2
    first, second = (by[int(u)] for u in found)
    number = board.embeds[0]["title"].rsplit("#", 1)[1]
    for player, cell in ((first, "1 1"), (second, "2 2")):
        prompt = await table.posted(
            lambda m: f"match #{number}" in m.content and bool(m.custom_ids),
            after=0,
            where=player,
        )
        await table.click(player, prompt, Verb.SECRET, cell)
    await table.fake.wait_until(lambda: "your move" in board.content, what="the first move")
    attacker = first_player(board)
    target = "2 2" if attacker == first.id else "1 1"
    await table.click(by[attacker], board, Verb.PLAY, target)
    assert "captures" in board.text or "wins" in board.text
    return attacker


async def test_a_five_player_knockout_of_crown_gives_the_top_seeds_byes(
    hall: Table, organizer: FakeMember, players: list[FakeMember]
) -> None:
    table, fake = hall, hall.fake
    entrants = players[:5]
    by_id = {p.id: p for p in entrants}
    await sign_up(table, organizer, entrants, game="crown", format="knockout", hints="auto")
    mark = table.checkpoint()
    await table.slash(organizer, "tournament start")
    seeds = sorted(by_id)  # nobody has a rating yet: seeded by id

    # Round 1: the bracket of 8; seeds 1, 2 and 3 have a bye, 4 meets 5.
    post = await table.posted("round 1 of 3", after=mark)
    assert "The bracket (seeded by rating)" in post.text
    assert f"1. (1) <@{seeds[0]}> v bye" in post.text
    assert f"(4) <@{seeds[3]}> v (5) <@{seeds[4]}>" in post.text
    (board,) = await boards_in(table, await round_thread(fake, post), 1)
    assert "hints: auto" in board.text
    winners = [await crown_match(table, board, by_id)]
    assert winners[0] in (seeds[3], seeds[4])

    # Round 2: seed 1 meets the winner, seed 2 meets seed 3.
    post = await table.posted("round 2 of 3", after=mark)
    boards = await boards_in(table, await round_thread(fake, post), 2)
    mark = table.checkpoint()
    for board in boards:
        winners.append(await crown_match(table, board, by_id))
    # The final.
    post = await table.posted("round 3 of 3", after=mark)
    (board,) = await boards_in(table, await round_thread(fake, post), 1)
    mark = table.checkpoint()
    champion = await crown_match(table, board, by_id)
    end = await table.posted("🏆", after=mark)
    assert f"<@{champion}> wins" in end.content
    assert "Round 1" in end.text and "Byes: " in end.text


async def test_with_a_thread_per_match_a_tournament_keeps_its_matches_in_its_round_threads(
    hall: Table, organizer: FakeMember, players: list[FakeMember]
) -> None:
    """``/settings threads:on`` gives ordinary matches a thread each; a tournament's matches
    are already in their round's thread, and stay there to the winner."""
    table, fake = hall, hall.fake
    entrants = players[:4]
    by_id = {p.id: p for p in entrants}
    saved = table.answer(await table.slash(organizer, "settings", threads="on"))
    assert "Threads: each match is played in its own thread." in saved
    await sign_up(table, organizer, entrants, game="crystal", format="knockout")
    mark = table.checkpoint()
    await table.slash(organizer, "tournament start")
    rounds = []
    for number, matches in ((1, 2), (2, 1)):
        post = await table.posted(f"round {number} of 2", after=mark)
        thread = await round_thread(fake, post)
        rounds.append(thread)
        boards = await boards_in(table, thread, matches)
        mark = table.checkpoint()
        for board in boards:
            await play(table, board, CRYSTAL_WIN, by_id)
            assert "wins" in board.text  # the end shows on the board, in the round's thread
    end = await table.posted("🏆", after=mark)
    assert re.search(r"🏆 <@(\d+)> wins", end.content)
    threads = [c for c in fake.state.channels.values() if c.parent_id == table.channel.id]
    assert sorted(t.id for t in threads) == sorted(t.id for t in rounds)  # none of their own


async def test_a_restart_in_the_middle_of_a_round_loses_nothing_and_pairs_nobody_twice(
    idle_table: Table, organizer: FakeMember, players: list[FakeMember]
) -> None:
    table, fake = idle_table, idle_table.fake
    entrants = players[:4]
    by_id = {p.id: p for p in entrants}
    async with table.running():
        await sign_up(table, organizer, entrants, game="crystal", format="swiss")
        mark = table.checkpoint()
        await table.slash(organizer, "tournament start")
        post = await table.posted("round 1 of 2", after=mark)
        thread = await round_thread(fake, post)
        finished, unfinished = await boards_in(table, thread, 2)
        await play(table, finished, CRYSTAL_WIN, by_id)
        # The other match is one move in when the bot stops.
        await play(table, unfinished, CRYSTAL_LOSS[:1], by_id)
        first_round = [frozenset(p) for p in _pairs_of(fake, thread)]
        assert len(first_round) == 2 and set().union(*first_round) == set(by_id)
    posts_before = len(posts_in(fake, table.channel))

    # While it is down the clock passes the move's deadline. A deadline missed while the bot was
    # away starts again in full: once that one passes too, the new process's sweeper ends the
    # match on time, and the tournament moves on to round 2 by itself.
    table.clock.advance(minutes=11)
    async with table.running():
        await fake.wait_until(lambda: "clock was reset" in unfinished.text, what="the reset")
        table.clock.advance(minutes=11)
        post = await table.posted("round 2 of 2", after=mark)
        assert "ran out of time" in unfinished.text
        boards = await boards_in(table, await round_thread(fake, post), 2)
        assert len(posts_in(fake, table.channel)) == posts_before + 1  # round 2's post alone
        round2 = [frozenset(p) for p in _pairs_of(fake, await round_thread(fake, post))]
        assert not set(round2) & set(first_round)
        mark = table.checkpoint()
        for board in boards:
            await play(table, board, CRYSTAL_WIN, by_id)
        await table.posted("🏆", after=mark)


def posts_in(fake: FakeDiscord, channel: FakeChannel) -> list[FakeMessage]:
    """The channel's messages, less Discord's notices that a thread was started."""
    return [m for m in fake.messages(channel) if m.type != THREAD_CREATED]


def _pairs_of(fake: FakeDiscord, thread: FakeChannel) -> list[set[int]]:
    return [
        {int(u) for u in re.findall(r"<@(\d+)>", m.embeds[0]["description"].split("\n\n")[0])}
        for m in fake.messages(thread)
        if m.embeds
    ]


async def test_organizers_sign_up_and_cancelling(
    idle_table: Table,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    organizer: FakeMember,
    players: list[FakeMember],
) -> None:
    table = idle_table
    alice, bob = players[0], players[1]
    hosts = fake_discord.add_role(guild, "hosts")
    host = fake_discord.add_member(guild, fake_discord.add_user("host"), roles=(hosts,))
    async with table.running():
        await _organizers_sign_up_and_cancel(table, organizer, host, hosts.id, alice, bob)


async def _organizers_sign_up_and_cancel(
    table: Table,
    organizer: FakeMember,
    host: FakeMember,
    hosts: int,
    alice: FakeMember,
    bob: FakeMember,
) -> None:
    refused = table.answer(
        await table.slash(alice, "tournament create", game="crystal", format="swiss")
    )
    assert "Manage Server permission or the organizer role" in refused
    # A server manager names the organizer role; its members may then run tournaments.
    refused = table.answer(
        await table.slash(host, "tournament create", game="safe", format="swiss")
    )
    assert "Manage Server permission or the organizer role" in refused
    role = next(r for r in table.fake.state.guilds[host.guild_id].roles.values() if r.id == hosts)
    saved = table.answer(await table.slash(organizer, "settings", organizer_role=role))
    assert f"tournament organizers: <@&{hosts}>" in saved
    signup = await sign_up(
        table, host, [alice, bob], game="safe", format="round_robin", digits=4, max_players=4
    )
    assert "Round robin · up to 4 players · digits: 4" in signup.text
    await press(table, bob, signup, "leave")
    assert "Entrants (1):" in signup.text and f"<@{bob.id}>" not in signup.text.split("Entrants")[1]
    again = await table.fake.click(bob, signup, signup_button(signup, "leave"))
    await table.fake.wait_for_response(again)
    assert "You are not playing in tournament #1." in table.answer(again)

    refused = table.answer(await table.slash(alice, "tournament start"))
    assert "or an organizer can start it" in refused
    shown = table.answer(await table.slash(bob, "tournament standings"))
    assert "sign-up" in shown and f"<@{alice.id}>" in shown

    mark = table.checkpoint()
    cancelled = await table.slash(host, "tournament cancel")
    # Answered at once ("thinking", privately), then the work: calling off every match.
    assert cancelled.response_type == DEFERRED_WITH_SOURCE
    assert all(m.ephemeral for m in cancelled.messages)
    assert table.answer(cancelled) == "Tournament #1 is cancelled."
    notice = await table.posted(f"was cancelled by <@{host.id}>", after=mark)
    assert not notice.ephemeral
    await table.fake.wait_until(lambda: not signup.custom_ids, what="the sign-up to close")
    assert "Cancelled." in signup.text

    # Cleared, the role runs tournaments no more.
    cleared = table.answer(await table.slash(organizer, "settings", clear_organizer_role=True))
    assert "tournament organizers" not in cleared and "organizer role is cleared" in cleared
    refused = table.answer(
        await table.slash(host, "tournament create", game="safe", format="swiss")
    )
    assert "Manage Server permission or the organizer role" in refused


async def test_a_manager_of_another_server_cannot_read_start_or_cancel_a_tournament(
    idle_table: Table, fake_discord: FakeDiscord, organizer: FakeMember, players: list[FakeMember]
) -> None:
    table, fake = idle_table, fake_discord
    elsewhere = fake.add_guild("Elsewhere")
    lounge = fake.add_text_channel(elsewhere, "lounge")
    admins = fake.add_role(elsewhere, "admins", permissions=MANAGE_GUILD)
    stranger = fake.add_member(elsewhere, fake.add_user("stranger"), roles=(admins,))
    async with table.running():
        signup = await sign_up(table, organizer, players[:2], game="crystal", format="swiss")
        mark = table.request_mark()
        for command in ("tournament standings", "tournament start", "tournament cancel"):
            asked = await fake.slash(stranger, lounge, command, tournament=1)
            await fake.wait_for_response(asked)
            assert table.answer(asked) == "There is no tournament #1.", command
            assert all(m.ephemeral for m in asked.messages)
        # Nothing was posted or edited anywhere, and the sign-up is still open.
        calls = table.bot_calls(mark)
        assert not (calls.board or calls.dms or calls.other), calls
        assert fake.messages(lounge) == []
        assert "Press **Join** to enter." in signup.text and signup.custom_ids


async def test_create_asks_for_the_permissions_a_tournament_needs_in_its_channel(
    hall: Table, fake_discord: FakeDiscord, organizer: FakeMember
) -> None:
    table = hall
    deny = CREATE_PUBLIC_THREADS | EMBED_LINKS
    fake_discord.set_overwrite(table.channel, fake_discord.bot, deny=deny)
    mark = table.request_mark()
    answered = await table.slash(organizer, "tournament create", game="crystal", format="swiss")
    assert all(m.ephemeral for m in answered.messages)
    assert table.answer(answered) == (
        "I need these permissions in this channel to run a tournament here: "
        "Embed Links, Create Public Threads."
    )
    calls = table.bot_calls(mark)
    assert not (calls.board or calls.dms or calls.other), calls
    fake_discord.set_overwrite(table.channel, fake_discord.bot)
    answered = await table.slash(organizer, "tournament create", game="crystal", format="swiss")
    assert "Press **Join** to enter." in table.answer(answered)


async def test_without_threads_matches_go_in_the_channel_and_leaving_resigns(
    hall: Table, fake_discord: FakeDiscord, organizer: FakeMember, players: list[FakeMember]
) -> None:
    table = hall
    entrants = players[:4]
    by_id = {p.id: p for p in entrants}
    await sign_up(table, organizer, entrants, game="crystal", format="swiss", rounds=2)
    # Taken away once the sign-up is open, the permission's round threads give way to the channel.
    fake_discord.set_overwrite(table.channel, fake_discord.bot, deny=CREATE_PUBLIC_THREADS)
    mark = table.checkpoint()
    await table.slash(organizer, "tournament start")
    post = await table.posted("round 1 of 2", after=mark)
    assert "the matches are below" in post.text
    boards = await boards_in(table, table.channel, 2)
    assert all(b.id > post.id for b in boards)

    leaver = by_id[first_player(boards[0])]
    left = table.answer(await table.slash(leaver, "tournament leave"))
    assert "You left tournament #1. Your match #1 is resigned." in left
    await table.fake.wait_until(lambda: "resigned" in boards[0].text, what="the resignation")
    await play(table, boards[1], CRYSTAL_WIN, by_id)
    post = await table.posted("round 2 of 2", after=mark)
    assert (
        "(left)" in post.text
        and f"<@{leaver.id}>" not in post.text.split("pairings")[1].split("after round")[0]
    )
    # Three left: one has the bye, two play; then the organizer cancels the event.
    (board,) = [b for b in await boards_in(table, table.channel, 3) if b not in boards]
    cancelled = await table.slash(organizer, "tournament cancel")
    assert table.answer(cancelled) == "Tournament #1 is cancelled: 1 match called off."
    number = int(board.embeds[0]["title"].rsplit("#", 1)[1])

    def called_off() -> bool:
        # The board may have been re-posted below the messages since.
        shown = table.boards_of(number)
        return len(shown) == 1 and "called off" in shown[0].text

    # Every post and edit here shares the channel's rate limit: the edit may wait its turn.
    await table.fake.wait_until(called_off, what="the match called off", timeout=15)
