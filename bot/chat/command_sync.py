"""Registering the slash commands with Discord, only when they changed.

With ``DEV_GUILD_ID`` they go to that server only, at once, from the process that runs its
shard. Otherwise they are synced globally, but only when they changed since the last sync (a
hash of the payload is kept in the database): Discord limits how often commands may be created
each day. Processes sharing the database take turns, so the first one syncs and the others find
the commands unchanged.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import discord
from discord import app_commands

from bot.fleet import Fleet
from bot.service.servers import ServerService

log = logging.getLogger(__name__)

COMMAND_HASH_KEY = "command_tree_hash"


def command_hash(tree: app_commands.CommandTree[Any]) -> str:
    """A digest of the global command payload, to tell whether it changed."""
    payload = [command.to_dict(tree) for command in tree.get_commands()]
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
        log.info("Synced %d commands to server %s", len(synced), dev_guild_id)
        return
    digest = command_hash(tree)
    async with fleet.turn("commands"):
        if await memory.remembered(COMMAND_HASH_KEY) == digest:
            log.info("Commands unchanged since the last sync: not syncing")
            return
        synced = await tree.sync()
        await memory.remember(COMMAND_HASH_KEY, digest)
    log.info("Synced %d global commands", len(synced))
