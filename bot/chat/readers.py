"""Which language a text on Discord is written in, decided where it is sent.

- Everything answered to an interaction is in the member's own client locale: ``hear`` sets it
  for the rest of the interaction's task (discord.py runs each interaction in a task of its own)
  as soon as the command tree, a button or a form takes it. The use case it runs is handed the
  member as a value (``acting_of``), and stores their locale for their DMs.
- A public post (a board, an announcement, a tournament post, the queue's message) is written
  inside ``speaking(await languages.server(guild_id))``.
- A DM is written inside ``speaking(await languages.member(user_id, guild_id))``.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from bot.i18n import catalog, normalise, speaking
from bot.service.acting import Acting
from bot.service.languages import Languages
from bot.service.notices import MatchSnapshot
from games.words import read_on

NO_SERVER = 0
"""The server of a DM that names none: its language is English."""


def locale_of(interaction: Any) -> str | None:
    """The member's client locale as Discord names it (``de``, ``es-419``), if it came."""
    locale = getattr(interaction, "locale", None)
    value = getattr(locale, "value", locale)
    return str(value) if value else None


def hear(interaction: Any) -> None:
    """From now on in this interaction's task: texts are in the member's language."""
    read_on(catalog(normalise(locale_of(interaction))))


def acting_of(interaction: Any) -> Acting:
    """The member who made ``interaction``, and their client locale, for the use case it runs."""
    return Acting(interaction.user.id, locale_of(interaction))


async def hear_dm(languages: Languages | None, user_id: int) -> None:
    """From now on in this task (a typed DM's): texts are in the language of the member's DMs,
    the locale they last used with the bot (a DM carries none)."""
    if languages is not None:
        read_on(catalog(await languages.member(user_id, NO_SERVER)))


async def in_server_language(
    languages: Languages | None, guild_id: int
) -> AbstractContextManager[None]:
    """The language of a public post in ``guild_id`` (English when nothing says otherwise)."""
    return speaking(await languages.server(guild_id) if languages is not None else None)


async def in_board_language(
    languages: Languages | None, snap: MatchSnapshot
) -> AbstractContextManager[None]:
    """The language of a match's message: its server's; where it is reached only through
    interactions (a DM or group DM, a server without the bot, whose language the bot never
    hears), its challenger's, as their app last showed it."""
    if snap.by_interaction_only:
        return await in_dm_language(languages, snap.challenger_id, snap.guild_id)
    return await in_server_language(languages, snap.guild_id)


async def in_dm_language(
    languages: Languages | None, user_id: int, guild_id: int
) -> AbstractContextManager[None]:
    """The language of a DM to ``user_id`` about something in ``guild_id``."""
    if languages is None:
        return speaking(None)
    return speaking(await languages.member(user_id, guild_id))
