"""Discord's cap on followups: an interaction only a member's own install authorised (here, in a
group DM the bot is not in) may create 5 followup messages, and the fake refuses the sixth with
400, code 40094, as Discord does. The bot counts what it creates on each interaction, in the one
``Followups`` its composition root builds, and never sends one the cap would refuse."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.chat.components import Verb
from bot.chat.followups import FOLLOWUP_CAP, Followups, capped

from .anywhere import challenge

if TYPE_CHECKING:
    from bot.chat.app import Parlor

    from .bot_fixtures import Table
    from .fake_discord import FakeInteraction, FakeMember, FakeUser

pytest_plugins = ("tests.e2e.bot_fixtures", "tests.e2e.anywhere_fixtures")


def caught(bot: Parlor) -> dict[int, discord.Interaction[Any]]:
    """The interactions the bot is given from now on, by id, as discord.py hands them over."""
    seen: dict[int, discord.Interaction[Any]] = {}

    async def note(interaction: discord.Interaction[Any]) -> None:
        seen[interaction.id] = interaction

    bot.add_listener(note, "on_interaction")
    return seen


def followups(table: Table) -> Followups:
    """The bot's own counting part, the one its commands and buttons create followups with."""
    assert table.app is not None
    return table.app.followups


def refused(table: Table, since: int) -> list[str]:
    """The requests the fake refused since ``since`` (a followup past the cap among them)."""
    return [str(r) for r in table.fake.requests[since:] if (r.status or 0) >= 400]


async def test_a_private_answer_past_the_cap_takes_the_place_of_the_private_response(
    group: Table, dora: FakeUser
) -> None:
    assert group.bot is not None
    seen = caught(group.bot)
    requests = group.request_mark()
    asked: FakeInteraction = await group.slash(dora, "games")  # answered privately
    interaction = seen[asked.id]
    assert capped(interaction) and asked.original is not None and asked.original.ephemeral

    for n in range(1, FOLLOWUP_CAP + 3):
        await followups(group).send(interaction, f"note {n}", ephemeral=True)
    # Five followups, then the answer itself carries the newest note: nothing is refused.
    assert [m.content for m in asked.followups] == [f"note {n}" for n in range(1, 6)]
    assert asked.original.content == f"note {FOLLOWUP_CAP + 2}"
    assert followups(group).sent(interaction) == FOLLOWUP_CAP
    assert not refused(group, requests)


async def test_past_the_cap_a_private_line_never_overwrites_the_match_message(
    group: Table, dora: FakeUser, eli: FakeUser
) -> None:
    assert group.bot is not None
    seen = caught(group.bot)
    board = await challenge(group, dora, eli, "crystal")
    requests = group.request_mark()
    pressed = await group.click(dora, board, Verb.PLAY, "9")
    await group.fake.wait_for_response(pressed)
    interaction = seen[pressed.id]
    shown = board.text
    assert pressed.original is board and "captures crystal 9" in shown

    for n in range(1, FOLLOWUP_CAP + 3):
        await followups(group).send(interaction, f"note {n}", ephemeral=True)
    assert len(pressed.followups) == FOLLOWUP_CAP
    assert all(m.ephemeral for m in pressed.followups)
    assert board.text == shown and "note" not in board.text  # the board stays the board
    assert not refused(group, requests)


async def test_a_servers_own_install_is_not_capped(table: Table, alice: FakeMember) -> None:
    assert table.bot is not None
    seen = caught(table.bot)
    requests = table.request_mark()
    asked = await table.slash(alice, "games")
    interaction = seen[asked.id]
    assert not capped(interaction)
    for n in range(1, FOLLOWUP_CAP + 3):
        await followups(table).send(interaction, f"note {n}", ephemeral=True)
    assert len(asked.followups) == FOLLOWUP_CAP + 2
    assert not refused(table, requests)


async def test_two_parts_built_apart_do_not_share_counts(group: Table, dora: FakeUser) -> None:
    assert group.bot is not None and group.app is not None
    seen = caught(group.bot)
    asked: FakeInteraction = await group.slash(dora, "games")
    interaction = seen[asked.id]
    first, second = Followups(), Followups()

    for n in range(1, 3):
        await first.send(interaction, f"first {n}", ephemeral=True)
    await second.send(interaction, "second 1", ephemeral=True)
    assert (first.sent(interaction), second.sent(interaction)) == (2, 1)
    assert group.app.followups.sent(interaction) == 0  # the bot's own part counted none of them
    assert [m.content for m in asked.followups] == ["first 1", "first 2", "second 1"]


async def test_every_part_of_one_app_counts_in_one_place(group: Table) -> None:
    app = group.app
    assert app is not None
    sharing = (app.parts, app.requests, app.command_errors, app.after_game, app.puzzle_desk)
    assert all(part.followups is app.followups for part in sharing)
