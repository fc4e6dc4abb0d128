"""Who reads what language, end to end through discord.py against the fake Discord, whose
interactions carry each member's app language (``locale``) and the server's (``guild_locale``).

Texts are converted to the catalogs part by part, so these tests compare what members see with
what the bot's renderers write in the expected language (``speaking``): they hold for every text,
translated yet or not, and the texts already translated are checked word for word.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import pytest

from bot.chat.boards import render
from bot.chat.components import Layout, Post, Verb
from bot.i18n import speaking
from db.languages import server_language

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeDiscord, FakeGuild, FakeMember, FakeMessage

pytest_plugins = ("tests.e2e.bot_fixtures",)


def labels(layout: Layout) -> list[str]:
    return [button.label for row in layout for button in row]


def shown_labels(message: FakeMessage) -> list[str]:
    return [str(button.get("label")) for button in message.buttons]


def app_of(table: Table) -> Any:
    assert table.app is not None, "the bot is not running"
    return table.app


async def board_in(table: Table, match_id: int, language: str) -> Post:
    """The match's board as the bot writes it now in ``language``."""
    snap = await app_of(table).matches.lookups.snapshot(match_id)
    with speaking(language):
        if snap.status == "challenged":
            return render.challenge_post(snap, [])
        return render.board_post(snap, [])


async def assert_board_in(table: Table, message: FakeMessage, language: str) -> None:
    """``message`` is match #1's board written in ``language``: its title and its buttons."""
    expected = await board_in(table, 1, language)
    if expected.embed is not None:
        assert message.embeds and message.embeds[0]["title"] == expected.embed.title
    assert shown_labels(message) == labels(expected.layout)


def moves_after(table: Table, board: FakeMessage, version: int) -> bool:
    """Whether the board (edited in place) offers moves newer than ``version``."""
    return any(p.verb == Verb.PLAY and p.version > version for p in table.presses(board))


async def prompt_in(table: Table, member: FakeMember, language: str) -> Post:
    """Match #1's prompt to ``member`` as the bot writes it in ``language``."""
    app = app_of(table)
    with speaking(language):  # the prompt's own words too, as the DM words them again
        prompt = await app.matches.lookups.prompt(1, member.id)
        snap = prompt.match
        return render.prompt_post(
            prompt, server=app.dms.server_name(snap.guild_id), board=app.boards.board_url(snap)
        )


@pytest.fixture
async def french_table(
    idle_table: Table, fake_discord: FakeDiscord, guild: FakeGuild, bob: FakeMember
) -> AsyncIterator[Table]:
    """The bot started on a server whose language on Discord is French; Bob's app is in
    German."""
    fake_discord.set_preferred_locale(guild, "fr")
    fake_discord.set_locale(bob.user, "de")
    async with idle_table.running():
        await stored_as(idle_table, guild.id, "fr")
        yield idle_table


async def stored_as(table: Table, guild_id: int, language: str) -> None:
    """Wait until the bot has stored the server's locale, which it does once it is ready
    (a command in the moment before that reads English)."""
    languages = app_of(table).languages
    for _attempt in range(100):
        if await languages.server(guild_id) == language:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the server's language never became {language}")


def owner_of(fake: FakeDiscord, guild: FakeGuild) -> FakeMember:
    member = guild.member(fake.owner.id)
    assert member is not None
    return member


async def test_a_german_member_reads_private_answers_in_german(
    table: Table, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    owner = owner_of(fake_discord, guild)
    fake_discord.set_locale(fake_discord.owner, "de")
    shown = table.answer(await table.slash(owner, "settings"))
    assert (
        "Sprache für Spielbretter und Ankündigungen: Englisch, die Sprache des Servers auf "
        "Discord (eine andere wählst du mit `/settings language:`)." in shown
    )
    shown = table.answer(await table.slash(owner, "settings", language="fr"))
    assert "Sprache für Spielbretter und Ankündigungen: Französisch, hier so gewählt." in shown

    # The same command from an app in Brazilian Portuguese, then in English.
    fake_discord.set_locale(fake_discord.owner, "pt-BR")
    shown = table.answer(await table.slash(owner, "settings"))
    assert "Idioma dos tabuleiros e anúncios: Francês, escolhido aqui." in shown
    fake_discord.set_locale(fake_discord.owner, "en-US")
    shown = table.answer(await table.slash(owner, "settings", language="server"))
    assert "Language of boards and announcements: English, the server's language on" in shown


async def test_a_french_server_plays_a_whole_match_on_french_boards(
    french_table: Table, guild: FakeGuild, alice: FakeMember, bob: FakeMember
) -> None:
    """The server's language on Discord is French; its members' apps are in English and German.
    Every board is French, the one the sweeper posts at the time-out too."""
    table = french_table
    mark = table.checkpoint()
    answered = await table.slash(alice, "crown challenge", opponent=bob)
    (challenge,) = answered.messages
    assert not challenge.ephemeral
    await assert_board_in(table, challenge, "fr")
    assert shown_labels(challenge) != [] and await app_of(table).languages.server(guild.id) == "fr"

    await table.click(bob, challenge, Verb.ACCEPT)
    alice_prompt = await table.posted(lambda m: bool(m.buttons), after=mark, where=alice)
    bob_prompt = await table.posted(lambda m: bool(m.buttons), after=mark, where=bob)
    await assert_board_in(table, challenge, "fr")
    # DMs: Alice's in English, the language she used; Bob's in German.
    assert alice_prompt.content == (await prompt_in(table, alice, "en-US")).content
    assert bob_prompt.content == (await prompt_in(table, bob, "de")).content

    await table.click(alice, alice_prompt, Verb.SECRET, "3 1")
    await table.dm(bob, "2 3")
    await table.fake.wait_until(
        lambda: any(p.verb == Verb.PLAY for p in table.presses(challenge)),
        what="the first move's buttons",
    )
    board = challenge
    await assert_board_in(table, board, "fr")
    board_version = max(p.version for p in table.presses(board))

    mark = table.checkpoint()
    await table.click(alice, board, Verb.PLAY, "2 2")
    hint_prompt = await table.posted(lambda m: bool(m.buttons), after=mark, where=bob)
    assert shown_labels(hint_prompt) == labels((await prompt_in(table, bob, "de")).layout)
    await table.click(bob, hint_prompt, Verb.PLAY, "row")
    await table.fake.wait_until(
        lambda: moves_after(table, challenge, board_version), what="the board after Bob's hint"
    )
    await assert_board_in(table, challenge, "fr")

    # Bob lets his time run out: the sweeper ends the match, with no interaction to read a
    # language from.
    table.clock.advance(minutes=11)
    await table.fake.wait_until(
        lambda: any(p.verb == Verb.REMATCH for p in table.presses(challenge)),
        what="the match to end",
    )
    await assert_board_in(table, challenge, "fr")


async def test_a_german_members_secret_prompt_is_in_german(
    table: Table, fake_discord: FakeDiscord, guild: FakeGuild, alice: FakeMember, bob: FakeMember
) -> None:
    """Bob's app is in German: his DMs are, once he has used the bot, and the server's boards
    stay in the server's language."""
    fake_discord.set_locale(bob.user, "de")
    mark = table.checkpoint()
    (challenge,) = (await table.slash(alice, "crown challenge", opponent=bob)).messages
    await table.click(bob, challenge, Verb.ACCEPT)
    bob_prompt = await table.posted(lambda m: bool(m.buttons), after=mark, where=bob)
    alice_prompt = await table.posted(lambda m: bool(m.buttons), after=mark, where=alice)
    german = await prompt_in(table, bob, "de")
    assert bob_prompt.content == german.content
    assert shown_labels(bob_prompt) == labels(german.layout)
    assert alice_prompt.content == (await prompt_in(table, alice, "en-US")).content
    await assert_board_in(table, challenge, "en-US")
    languages = app_of(table).languages
    assert await languages.member(bob.id, guild.id) == "de"
    assert await languages.member(alice.id, guild.id) == "en-US"


async def test_a_server_that_changes_its_language_on_discord_gets_boards_in_it(
    table: Table, fake_discord: FakeDiscord, guild: FakeGuild, alice: FakeMember, bob: FakeMember
) -> None:
    """GUILD_UPDATE with a new preferred locale: stored, and the next board is written in it."""
    languages = app_of(table).languages
    assert await languages.server(guild.id) == "en-US"
    fake_discord.set_preferred_locale(guild, "es-419")
    for _attempt in range(250):
        async with languages.sessions() as session:
            if await server_language(session, guild.id) == (None, "es-419"):
                break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("the server's new preferred locale was not stored")
    assert await languages.server(guild.id) == "es-ES"  # Latin American Spanish reads Spain's
    (challenge,) = (await table.slash(alice, "crown challenge", opponent=bob)).messages
    await assert_board_in(table, challenge, "es-ES")


def test_the_fake_knows_only_discords_locales(fake_discord: FakeDiscord, guild: FakeGuild) -> None:
    """A user's app language and a server's preferred locale are Discord locales: ``en`` or
    ``pt`` alone is none."""
    for wrong in ("en", "pt", "de-DE", ""):
        with pytest.raises(ValueError):
            fake_discord.add_user("dora", locale=wrong)
        with pytest.raises(ValueError):
            fake_discord.set_preferred_locale(guild, wrong)
    assert guild.preferred_locale == "en-US"
    fake_discord.set_preferred_locale(guild, "es-419")
    assert guild.preferred_locale == "es-419"


async def test_dms_are_in_the_servers_language_until_the_member_uses_the_bot(
    french_table: Table,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: FakeMember,
    bob: FakeMember,
) -> None:
    """A tournament on a French server pairs Alice (her app in English) with Bob (in German):
    joining it is no match of theirs, so their first DM prompts are in the server's French; once
    Bob has hidden his Crown, his DMs are in German."""
    table = french_table
    organizer = owner_of(fake_discord, guild)
    languages = app_of(table).languages
    answered = await table.slash(organizer, "tournament create", game="crown", format="round_robin")
    (signup,) = answered.messages
    for player in (alice, bob):
        join = next(c for c in signup.custom_ids if c.endswith(":join"))
        await table.fake.wait_for_response(await table.fake.click(player, signup, join))
    mark = table.checkpoint()
    await table.slash(organizer, "tournament start")
    alice_prompt = await table.posted(lambda m: bool(m.buttons), after=mark, where=alice)
    bob_prompt = await table.posted(lambda m: bool(m.buttons), after=mark, where=bob)
    assert alice_prompt.content == (await prompt_in(table, alice, "fr")).content
    assert bob_prompt.content == (await prompt_in(table, bob, "fr")).content
    assert await languages.member(bob.id, guild.id) == "fr"

    chosen = await table.click(bob, bob_prompt, Verb.SECRET, "1 1")
    await table.fake.wait_for_response(chosen)
    assert await languages.member(bob.id, guild.id) == "de"
    assert await languages.member(alice.id, guild.id) == "fr"  # Alice has not played yet


async def test_a_game_refuses_each_member_in_their_language(
    table: Table, fake_discord: FakeDiscord, alice: FakeMember, bob: FakeMember
) -> None:
    """Alice's app is in German, Bob's in French: what Safe Cracker refuses, a code typed in a
    DM or a guess given to a command, is explained to each in their language."""
    fake_discord.set_locale(alice.user, "de")
    fake_discord.set_locale(bob.user, "fr")
    mark = table.checkpoint()
    (challenge,) = (await table.slash(alice, "safe challenge", opponent=bob)).messages
    await table.click(bob, challenge, Verb.ACCEPT)
    await table.posted("Coin toss", after=mark)
    for member in (alice, bob):
        await table.posted(lambda m: bool(m.buttons), after=mark, where=member)

    told = await table.dm(alice, "12")
    assert told.content == "'12' hat 2 Ziffern: ein Code hat 3 Ziffern, je 1-3, z. B. '213'."
    told = await table.dm(bob, "1 2 4")
    assert told.content == (
        "'1 2 4' contient le chiffre 4 : un code a 3 chiffres, chacun de 1 à 3, par ex. '213'."
    )
    await table.dm(alice, "123")
    await table.dm(bob, "321")
    await table.posted("Both codes are set", after=mark)

    snap = await app_of(table).matches.lookups.snapshot(1)
    (mover,) = snap.to_act
    member, refusal = (
        (alice, "'1' hat 1 Ziffer: ein Code hat 3 Ziffern, je 1-3, z. B. '213'.")
        if mover == alice.id
        else (bob, "'1' a 1 chiffre : un code a 3 chiffres, chacun de 1 à 3, par ex. '213'.")
    )
    answered = await table.slash(member, "safe guess", code="1")
    assert all(message.ephemeral for message in answered.messages)
    assert table.answer(answered) == refusal
