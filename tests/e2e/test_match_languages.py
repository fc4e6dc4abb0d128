"""A match's own words, end to end through the fake Discord: a member's refusals in their app's
language, a board's lines in the server's, a DM prompt in the language of the member it asks,
whoever's action made them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import pytest

from bot.chat.components import Verb

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeDiscord, FakeGuild, FakeMember

pytest_plugins = ("tests.e2e.bot_fixtures",)


@pytest.fixture
async def french_server(
    idle_table: Table, fake_discord: FakeDiscord, guild: FakeGuild, bob: FakeMember
) -> AsyncIterator[Table]:
    """The server's language on Discord is French; Bob's app is in German, Alice's in
    English."""
    fake_discord.set_preferred_locale(guild, "fr")
    fake_discord.set_locale(bob.user, "de")
    async with idle_table.running():
        yield idle_table


async def the_server_speaks(table: Table, language: str) -> None:
    """Wait until the bot has stored the server's preferred locale it reported on start."""
    assert table.app is not None
    languages, guild_id = table.app.languages, table.channel.guild_id or 0
    for _attempt in range(250):
        if await languages.server(guild_id) == language:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the server's language never became {language}")


async def test_a_german_member_is_refused_in_german(
    table: Table, fake_discord: FakeDiscord, alice: FakeMember, bob: FakeMember
) -> None:
    fake_discord.set_locale(alice.user, "de")
    told = table.answer(await table.slash(alice, "crown challenge", opponent=alice))
    assert told == "Du kannst dich nicht selbst herausfordern: Wähle ein anderes Mitglied."
    told = table.answer(await table.slash(alice, "crown attack", row=1, col=1))
    assert told.startswith("Du hast in diesem Kanal keine Partie ")
    assert "Starte eine mit </crown challenge:" in told  # the command's mention
    fake_discord.set_locale(alice.user, "en-US")
    told = table.answer(await table.slash(alice, "crown challenge", opponent=alice))
    assert told == "You cannot challenge yourself: pick another member."


async def test_match_lines_and_prompts_read_in_their_readers_language(
    french_server: Table, alice: FakeMember, bob: FakeMember
) -> None:
    """Alice (English) challenges Bob (German) on a French server: the board says it in French;
    Bob accepts, and each DM prompt asks in its own reader's language."""
    table = french_server
    mark = table.checkpoint()
    await the_server_speaks(table, "fr")
    (challenge,) = (await table.slash(alice, "crown challenge", opponent=bob)).messages
    assert f"{bob.mention}, {alice.mention} te défie à " in challenge.text
    assert "Le défi expire dans 5 minutes." in challenge.text

    await table.click(bob, challenge, Verb.ACCEPT)
    await table.posted(f"{bob.mention} a accepté.", after=mark)
    bob_prompt = await table.posted(lambda m: bool(m.buttons), after=mark, where=bob)
    alice_prompt = await table.posted(lambda m: bool(m.buttons), after=mark, where=alice)
    assert "Wähle dein Geheimnis für " in bob_prompt.content
    assert f" gegen {alice.mention}." in bob_prompt.content
    assert f"Choose your secret for Capture the Crown against {bob.mention}." in (
        alice_prompt.content
    )

    # Bob hides his Crown by DM, then answers again before Alice has chosen: refused in German.
    await table.dm(bob, "2 3")
    reply = await table.dm(bob, "#1 1 1")
    assert reply.content == f"Du bist nicht dran: {alice.mention} wählt noch ein Geheimnis."


async def test_a_german_members_secret_form_fits_discord(
    table: Table, fake_discord: FakeDiscord, alice: FakeMember, bob: FakeMember
) -> None:
    """Bob's app is in German: the form his Safe Cracker prompt opens is worded for him, and
    Discord's limits on a form's title and field hold (the fake checks them as Discord does)."""
    fake_discord.set_locale(bob.user, "de")
    mark = table.checkpoint()
    (challenge,) = (await table.slash(alice, "safe challenge", opponent=bob)).messages
    await table.click(bob, challenge, Verb.ACCEPT)
    prompt = await table.posted(lambda m: bool(m.buttons), after=mark, where=bob)
    assert prompt.content.count("Wähle dein Geheimnis für ") == 1
    opened = await table.click(bob, prompt, Verb.CODE)
    await table.fake.wait_for_response(opened)
    assert opened.modal is not None
    (field,) = opened.modal_text_inputs
    assert 0 < len(str(opened.modal["title"])) <= 45
    assert 0 < len(str(field["label"])) <= 45
    await table.fake.submit_modal(
        bob, opened, opened.modal["custom_id"], {field["custom_id"]: "213"}
    )
    await table.posted("has set their code", after=mark)
