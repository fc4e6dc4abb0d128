"""Every slash command reads in every shipped language, within Discord's rules.

The whole tree is built as the bot builds it at start (every game's group, the shared
commands, tournaments, the queue, history) and turned into the payload ``tree.sync()`` sends,
through the real translator. discord.py checks only the English names; these tests check every
localised name, description and choice, as Discord would refuse them at sync.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

import discord
import pytest
import regex
from discord import app_commands
from pydantic import SecretStr
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.chat.command_sync import command_payload
from bot.chat.command_translator import CommandTranslator, shipped, translated
from bot.i18n import LOCALES
from bot.settings import Settings
from bot.wiring import build

NAME = regex.compile(r"^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$")
"""Discord's rule for a chat-input command's or option's name, in any language."""
TEXT_MAX = 100
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2

READ_AS_SHIPPED = (*LOCALES[1:], "es-419")
"""The Discord locales that get Parlor's translations."""

Payload = Mapping[str, Any]
Commands = list[dict[str, Any]]


@pytest.fixture
async def payload(engine: AsyncEngine) -> AsyncIterator[Commands]:
    """The global commands as the bot syncs them, every language included."""
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, discord_token=SecretStr("unused"), database_url="sqlite+aiosqlite://"
    )
    app = build(settings, engine=engine)
    client = app.client
    async with client:
        await app.load_commands()
        try:
            yield await command_payload(client.tree)
        finally:
            for name in list(client.cogs):
                await client.remove_cog(name)


def nodes(commands: Sequence[Payload]) -> Iterator[tuple[str, Payload, Sequence[Payload]]]:
    """Each command, group, subcommand and option, with where it is and its siblings."""

    def walk(where: str, node: Payload, siblings: Sequence[Payload]) -> Iterator[Any]:
        here = f"{where} {node['name']}".strip()
        yield here, node, siblings
        children = node.get("options") or []
        for child in children:
            yield from walk(here, child, children)

    for command in commands:
        yield from walk("", command, commands)


def test_the_payload_holds_every_command(payload: Commands) -> None:
    names = {command["name"] for command in payload}
    games = {"claim", "crown", "crystal", "flag", "safe"}
    shared = {"stats", "games", "resign", "rules", "settings", "tournament", "play"}
    assert games | shared | {"history", "replay"} <= names


@pytest.mark.parametrize("locale", READ_AS_SHIPPED)
def test_every_name_and_description_is_translated(payload: Commands, locale: str) -> None:
    missing = []
    for where, node, _siblings in nodes(payload):
        for field in ("name", "description"):
            if locale not in (node.get(f"{field}_localizations") or {}):
                missing.append(f"{where}: {field} {node[field]!r}")
        for choice in node.get("choices") or []:
            if locale not in (choice.get("name_localizations") or {}):
                missing.append(f"{where}: choice {choice['name']!r}")
    assert not missing, f"untranslated in {locale}:\n" + "\n".join(missing)


@pytest.mark.parametrize("locale", READ_AS_SHIPPED)
def test_translations_keep_discords_rules(payload: Commands, locale: str) -> None:
    problems = []
    for where, node, siblings in nodes(payload):
        name = str((node.get("name_localizations") or {}).get(locale, node["name"]))
        if not NAME.match(name) or name != name.lower():
            problems.append(f"{where}: name {name!r} breaks Discord's naming rule")
        description = (node.get("description_localizations") or {}).get(locale, "")
        if not 1 <= len(description) <= TEXT_MAX:
            problems.append(f"{where}: description of {len(description)} characters")
        names = [(s.get("name_localizations") or {}).get(locale, s["name"]) for s in siblings]
        if names.count(name) > 1:
            problems.append(f"{where}: name {name!r} is also a sibling's")
        choices = [
            (choice.get("name_localizations") or {}).get(locale, choice["name"])
            for choice in node.get("choices") or []
        ]
        for choice in choices:
            if not 1 <= len(choice) <= TEXT_MAX:
                problems.append(f"{where}: choice {choice!r} of {len(choice)} characters")
            if choices.count(choice) > 1:
                problems.append(f"{where}: choice {choice!r} twice")
    assert not problems, f"in {locale}:\n" + "\n".join(sorted(set(problems)))


def test_english_and_unshipped_locales_read_the_english(payload: Commands) -> None:
    for _where, node, _siblings in nodes(payload):
        for field in ("name", "description"):
            given = set(node.get(f"{field}_localizations") or {})
            assert given == set(READ_AS_SHIPPED)


def test_a_name_and_a_description_never_share_an_entry() -> None:
    # /settings has an option "challenge" (the time to answer one) and each game a subcommand
    # "challenge" (to make one): the same English, read differently.
    german = discord.Locale.german
    assert translated("command", "challenge", german) == "herausfordern"
    assert translated("option", "challenge", german) == "herausforderung"
    assert translated("description", "challenge", german) is None


async def test_latin_american_spanish_reads_spains() -> None:
    translator = CommandTranslator()
    easy = app_commands.Choice(name="easy", value="easy")
    context: app_commands.TranslationContextTypes = app_commands.TranslationContext(
        app_commands.TranslationContextLocation.choice_name, easy
    )
    string = app_commands.locale_str("easy")
    spain = await translator.translate(string, discord.Locale.spain_spanish, context)
    assert spain == "fácil"
    assert (
        await translator.translate(string, discord.Locale.latin_american_spanish, context) == spain
    )
    assert await translator.translate(string, discord.Locale.japanese, context) is None
    assert await translator.translate(string, discord.Locale.american_english, context) is None
    assert shipped(discord.Locale.latin_american_spanish) == "es-ES"
    assert shipped(discord.Locale.british_english) is None
