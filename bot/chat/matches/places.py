"""Where a match lives, decided once from the interaction that challenges
(docs/architecture.md, "Where a match lives")."""

from __future__ import annotations

from typing import Any, TypeVar

import discord
from discord import app_commands

from bot.service.notices import MatchPlace, MatchSnapshot

Interaction = discord.Interaction[Any]

__all__ = ["MatchPlace", "in_match_channel", "not_a_member", "place_of", "playable_anywhere"]

T = TypeVar("T")


def place_of(interaction: Interaction) -> MatchPlace:
    """A server channel when the interaction comes from a server that installed the bot (its
    install among the interaction's authorizing owners, or no owner named, as before user
    installs): the bot's token reaches it. Anywhere else (the DM with the bot, a DM or group DM
    between members, a server without the app, where only the member's install authorises),
    only interactions reach the match's message."""
    if interaction.guild_id is None:
        return MatchPlace.INTERACTION
    if interaction.is_guild_integration() or not interaction.is_user_integration():
        return MatchPlace.SERVER  # no owner given at all (an older payload): the server's own
    return MatchPlace.INTERACTION  # a server without the app, through the member's install


def in_match_channel(interaction: Interaction, snap: MatchSnapshot) -> bool:
    """Whether the interaction comes from the match's channel, on no private message (not a
    DM with the bot about a server's match, not an ephemeral message): its response may be
    the match's message."""
    message = interaction.message
    if interaction.channel_id != snap.channel_id or (message and message.flags.ephemeral):
        return False
    return snap.by_interaction_only or interaction.guild_id is not None


def playable_anywhere(command: T) -> T:
    """A command (or a game's command group) offered everywhere: in servers, in the DM with
    the bot, and through a member's own install in DMs and group DMs between members, where a
    match lives on its own message. Only for what works there end to end."""
    command = app_commands.allowed_installs(guilds=True, users=True)(command)
    return app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)(command)


def not_a_member(interaction: Interaction, user: discord.abc.User | None) -> bool:
    """Whether a user option names someone outside the server the command came from (Discord
    resolves them without member data); outside servers anyone may be named."""
    return (
        interaction.guild_id is not None
        and user is not None
        and not isinstance(user, discord.Member)
    )
