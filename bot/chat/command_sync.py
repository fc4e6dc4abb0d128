"""Registering the slash commands with Discord, only when they changed.

With ``DEV_GUILD_ID`` they go to that server only, at once, from the process that runs its
shard. Otherwise they are synced globally, but only when they changed since the last sync (a
hash of the payload is kept in the database): Discord limits how often commands may be created
each day. Processes sharing the database take turns, so the first one syncs and the others find
the commands unchanged.

The payload holds each command's names and descriptions in every language the tree's
translator gives (``bot.chat.command_translator``), so an edited ``commands.po`` is synced too.
After a sync, or when the commands are unchanged, the commands' IDs are handed to
``bot.i18n.mentions``: texts then name a command with Discord's mention.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import discord
from discord import app_commands

from bot.fleet import Fleet
from bot.i18n import mentions
from bot.service.servers import ServerService

log = logging.getLogger(__name__)

COMMAND_HASH_KEY = "command_tree_hash"


async def command_payload(tree: app_commands.CommandTree[Any]) -> list[dict[str, Any]]:
    """The global commands as ``tree.sync()`` sends them: translated, when the tree has a
    translator."""
    commands = tree.get_commands()
    translator = tree.translator
    if translator is None:
        return [command.to_dict(tree) for command in commands]
    return [await command.get_translated_payload(tree, translator) for command in commands]


async def command_hash(tree: app_commands.CommandTree[Any]) -> str:
    """A digest of the global command payload, to tell whether it changed."""
    payload = await command_payload(tree)
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


async def sync_commands(
    tree: app_commands.CommandTree[Any],
    dev_guild_id: int | None,
    fleet: Fleet,
    memory: ServerService,
) -> None:
    """Sync ``tree`` to the development server, or globally when it changed (the last synced
    digest is in ``memory``)."""
    if dev_guild_id and not fleet.runs(dev_guild_id):
        return
    if dev_guild_id:
        guild = discord.Object(dev_guild_id)
        tree.copy_global_to(guild=guild)
        synced = await tree.sync(guild=guild)
        mentions.remember((command.name, command.id) for command in synced)
        log.info("Synced %d commands to server %s", len(synced), dev_guild_id)
        return
    digest = await command_hash(tree)
    async with fleet.turn("commands"):
        unchanged = await memory.remembered(COMMAND_HASH_KEY) == digest
        if not unchanged:
            synced = await tree.sync()
            await memory.remember(COMMAND_HASH_KEY, digest)
    if unchanged:
        log.info("Commands unchanged since the last sync: not syncing")
        await _read_ids(tree)
        return
    mentions.remember((command.name, command.id) for command in synced)
    log.info("Synced %d global commands", len(synced))


async def _read_ids(tree: app_commands.CommandTree[Any]) -> None:
    """The registered commands' IDs, for mentions; without them commands read ``/name``."""
    try:
        registered = await tree.fetch_commands()
    except discord.HTTPException:
        log.warning("Reading the registered commands failed: texts name commands as /name")
        return
    mentions.remember((command.name, command.id) for command in registered)
