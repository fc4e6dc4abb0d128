"""``/ranks set``, ``/ranks list`` and ``/ranks clear``: the roles a server gives by rating.

Only Manage Server may set or clear a rank (checked on the member's permissions in the
interaction, as ``/settings`` is); anyone in the server may list them. Setting a rank checks
first, from the server as the bot last heard of it, what Discord would refuse when the role is
given: Manage Roles, and a role below the bot's highest that is the server's own (not a bot's or
an integration's, nor ``@everyone``); it says which is missing and changes nothing.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.chat.ranks.words import BEST_NAME, game_words, rank_line, role_mention
from bot.chat.refusals import say
from bot.chat.request_outcomes import REFUSED, settle
from bot.chat.shared_commands import GAME_CHOICES
from bot.i18n import _
from bot.i18n.formats import command
from bot.service.ranks import (
    BEST,
    RATING_HIGH,
    RATING_LOW,
    NoSuchRank,
    Rank,
    RankRoles,
    RankTaken,
    TooManyRanks,
)

log = logging.getLogger(__name__)

RANK_GAMES = [*GAME_CHOICES, app_commands.Choice(name=BEST_NAME, value=BEST)]

Interaction = discord.Interaction[Any]


def cannot_give(role: discord.Role, guild: discord.Guild | None) -> str | None:
    """Why Discord would refuse the bot giving ``role``, as the server was last heard of
    (``None``: nothing stands in the way)."""
    me = guild.me if guild is not None else None
    if role.is_default() or role.managed:
        return _(
            "{role} is managed by Discord or by an app, or is @everyone: nobody can give it. "
            "Pick one of the server's own roles.",
            role=role.mention,
        )
    if me is None or not me.guild_permissions.manage_roles:
        return _(
            "I need the Manage Roles permission to give {role}: turn it on for my role in "
            "Server Settings → Roles, then set the rank again.",
            role=role.mention,
        )
    if role >= me.top_role:
        return _(
            "{role} is not below my highest role, {mine}: Discord lets me give only roles "
            "below it. Drag my role above {role} in Server Settings → Roles, or pick a lower "
            "role.",
            role=role.mention,
            mine=me.top_role.mention,
        )
    return None


@app_commands.guild_only()
class Ranks(commands.GroupCog, group_name="ranks"):
    """Roles Parlor gives members by their rating in this server."""

    def __init__(self, ranks: RankRoles) -> None:
        self.ranks = ranks
        super().__init__()

    @app_commands.command(
        name="set", description="Give a role to members whose rating reaches a number."
    )
    @app_commands.describe(
        game="The game, or the best rating over every game.",
        rating=f"The rating a member needs, {RATING_LOW}-{RATING_HIGH}, e.g. 1600.",
        role="The role to give; it must be below my highest role.",
        season="Also brought up to date when a season ends (default: no).",
    )
    @app_commands.choices(game=RANK_GAMES)
    @app_commands.checks.has_permissions(manage_guild=True)
    async def set_rank(
        self,
        interaction: Interaction,
        game: str,
        rating: app_commands.Range[int, RATING_LOW, RATING_HIGH],
        role: discord.Role,
        season: bool = False,
    ) -> None:
        why_not = cannot_give(role, interaction.guild)
        if why_not is not None:
            await interaction.response.send_message(
                why_not, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
            )
            settle(interaction, REFUSED)
            return
        guild_id = interaction.guild_id or 0
        try:
            await self.ranks.set(guild_id, Rank(role.id, game, rating, season))
        except (RankTaken, TooManyRanks, NoSuchRank) as error:
            text = say(error)
            settle(interaction, REFUSED)
        else:
            log.info(
                "server %s: rank %s at %s set by user %s",
                guild_id,
                game,
                rating,
                interaction.user.id,
            )
            text = _(
                "Members whose {game} rating reaches {rating} get {role}: those there now at "
                "once, the others after a rated match; a provisional rating earns no rank.",
                game=game_words(game),
                rating=rating,
                role=role.mention,
            )
        await interaction.response.send_message(
            text, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
        )

    @app_commands.command(
        name="list", description="This server's ranks: the roles given by rating."
    )
    async def list_ranks(self, interaction: Interaction) -> None:
        found = await self.ranks.ranks(interaction.guild_id or 0)
        if not found:
            await interaction.response.send_message(
                _(
                    "This server has no rank: a manager sets one with {command}.",
                    command=command("ranks set"),
                ),
                ephemeral=True,
            )
            return
        # An embed: its description holds MOST_RANKS lines in every language, a message not.
        listing = discord.Embed(
            title=_("Ranks in this server"),
            description="\n".join(f"• {rank_line(rank)}" for rank in found),
        )
        await interaction.response.send_message(embed=listing, ephemeral=True)

    @app_commands.command(
        name="clear", description="Stop giving a rank role, or every rank role of a game."
    )
    @app_commands.describe(role="The rank role to stop giving.", game="Every rank of this game.")
    @app_commands.choices(game=RANK_GAMES)
    @app_commands.checks.has_permissions(manage_guild=True)
    async def clear(
        self,
        interaction: Interaction,
        role: discord.Role | None = None,
        game: str | None = None,
    ) -> None:
        if (role is None) == (game is None):
            text = _("Name one rank role to clear, or one game to clear all its ranks, not both.")
            settle(interaction, REFUSED)
        else:
            guild_id = interaction.guild_id or 0
            try:
                gone = await self.ranks.clear(
                    guild_id, game=game, role_id=None if role is None else role.id
                )
            except NoSuchRank as error:
                text = say(error)
                settle(interaction, REFUSED)
            else:
                log.info(
                    "server %s: %d ranks cleared by user %s",
                    guild_id,
                    len(gone),
                    interaction.user.id,
                )
                text = _(
                    "Cleared: {roles}. I no longer give or take these roles; members who have "
                    "them keep them.",
                    roles=", ".join(role_mention(rank.role_id) for rank in gone),
                )
        await interaction.response.send_message(
            text, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
        )
