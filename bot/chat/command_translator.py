"""Slash commands in each member's client language: discord.py's ``Translator`` reading
``bot/i18n/locales/<locale>/commands.po``.

Discord keeps a command's names and descriptions in every language it was given and shows each
member those of their client; discord.py asks the translator for each of them, in every Discord
locale, when the tree is synced. An entry's ``msgctxt`` says what the English is, so a command
``challenge`` and an option ``challenge`` can read differently, and a name never meets a
description:

- ``command``: a command's, subcommand's or group's name (lower case, no spaces);
- ``option``: an option's name (lower case, no spaces);
- ``choice``: an option choice's name, as the member reads it in the list;
- ``description``: any description.

A locale Parlor does not ship, and English, get ``None``: Discord shows them the English.
"""

from __future__ import annotations

from functools import cache

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Location

from bot.i18n import DEFAULT, normalise, read_catalog

COMMAND = "command"
OPTION = "option"
CHOICE = "choice"
DESCRIPTION = "description"

CONTEXTS: dict[Location, str] = {
    Location.command_name: COMMAND,
    Location.group_name: COMMAND,
    Location.parameter_name: OPTION,
    Location.choice_name: CHOICE,
    Location.command_description: DESCRIPTION,
    Location.group_description: DESCRIPTION,
    Location.parameter_description: DESCRIPTION,
}
"""Where discord.py found a string → the ``msgctxt`` of its catalog entry."""

NAME_CONTEXTS = frozenset({COMMAND, OPTION})
"""Entries that are names: Discord's naming rule holds for their translations."""


@cache
def command_texts(locale: str) -> dict[tuple[str, str], str]:
    """The translations of a shipped locale's command texts: (context, English) → text.

    Fuzzy and empty entries are left out, so Discord shows those in English."""
    catalog = read_catalog(locale)
    texts: dict[tuple[str, str], str] = {}
    for message in catalog:
        context = message.context
        if context in CONTEXTS.values() and message.string and not message.fuzzy:
            texts[(str(context), str(message.id))] = str(message.string)
    return texts


def shipped(locale: discord.Locale) -> str | None:
    """The shipped language Discord's ``locale`` reads (es-419 reads es-ES); ``None`` for
    English and for the locales Parlor does not ship."""
    language = normalise(locale)
    return None if language == DEFAULT else language


def translated(context: str, english: str, locale: discord.Locale) -> str | None:
    """``english`` (a name, choice or description, per ``context``) in ``locale``, if
    translated."""
    language = shipped(locale)
    if language is None:
        return None
    return command_texts(language).get((context, english))


class CommandTranslator(app_commands.Translator):
    """Command, group, option and choice names and descriptions from ``commands.po``."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        kind = CONTEXTS.get(context.location)
        if kind is None:
            return None
        return translated(kind, string.message, locale)
