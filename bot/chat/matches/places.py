"""Where a match lives, decided once from the interaction that challenges
(docs/architecture.md, "Where a match lives")."""

from __future__ import annotations

from typing import Any

import discord

from bot.service.notices import MatchPlace, MatchSnapshot

Interaction = discord.Interaction[Any]

__all__ = ["MatchPlace", "in_match_channel", "place_of"]


def place_of(interaction: Interaction) -> MatchPlace:
    """A server channel when the interaction comes from a server that installed the bot (its
    install among the interaction's authorizing owners): the bot's token reaches it. Anywhere
    else (the DM with the bot, a DM or group DM between members, a server without the app),
    only interactions reach the match's message."""
    if interaction.guild_id is not None and interaction.is_guild_integration():
        return MatchPlace.SERVER
    return MatchPlace.INTERACTION


def in_match_channel(interaction: Interaction, snap: MatchSnapshot) -> bool:
    """Whether the interaction comes from the match's channel, on no private message (not a
    DM with the bot about a server's match, not an ephemeral message): its response may be
    the match's message."""
    message = interaction.message
    if interaction.channel_id != snap.channel_id or (message and message.flags.ephemeral):
        return False
    return snap.by_interaction_only or interaction.guild_id is not None
