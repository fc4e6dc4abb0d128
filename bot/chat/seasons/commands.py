"""What ``/stats season:`` and the season options of ``/settings`` check and do, for the shared
commands' cog: the season asked for, the podium channel, the settings saved."""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from bot.chat.refusals import say
from bot.chat.seasons.texts import settings_lines
from bot.i18n import _
from bot.service.errors import NoSeason
from bot.service.season_periods import SeasonLength, SeasonScore
from bot.service.seasons import SeasonBoard, Seasons

log = logging.getLogger(__name__)

CURRENT_SEASON = ("current", "now")
"""What ``/stats season:`` takes for the running season, besides a number."""
SEASON_CHANNEL_NEEDS = ("view_channel", "send_messages", "embed_links")
"""What the bot needs in the channel it posts podiums in."""
FULL, COMPACT = 10, 3
"""Ranked players per game with one game asked for, and with every game."""
SEASON_LENGTH_CHOICES = [
    app_commands.Choice(name="month", value=SeasonLength.MONTH.value),
    app_commands.Choice(name="quarter", value=SeasonLength.QUARTER.value),
    app_commands.Choice(name="half-year", value=SeasonLength.HALF_YEAR.value),
    app_commands.Choice(name="off", value=SeasonLength.OFF.value),
]
SEASON_SCORE_CHOICES = [
    app_commands.Choice(name="rating", value=SeasonScore.RATING.value),
    app_commands.Choice(name="points", value=SeasonScore.POINTS.value),
]


class SeasonRefused(Exception):
    """A ``/stats season:`` the member reads a refusal for (its text, already worded)."""


def parse_season(text: str) -> int | None:
    """The season ``/stats season:`` names: ``None`` for the running one, else its number.

    Raises ``ValueError`` naming what is accepted."""
    cleaned = text.strip().lstrip("#").casefold()
    if cleaned in CURRENT_SEASON:
        return None
    if cleaned.isdecimal() and cleaned.isascii() and int(cleaned) >= 1:
        return int(cleaned)
    raise ValueError(
        _(
            "{text} is not a season: write current, or a season's number such as 1.",
            text=repr(text.strip()[:12]),
        )
    )


async def season_asked(
    seasons: Seasons, guild_id: int | None, text: str, game: str | None, member_too: bool
) -> SeasonBoard:
    """The season ``/stats season:text`` asks for in the server, or the refusal to read."""
    if guild_id is None:
        raise SeasonRefused(_("Seasons belong to a server: ask in one."))
    if member_too:
        raise SeasonRefused(_("Choose a season or a member, not both."))
    try:
        number = parse_season(text)
        return await seasons.board(guild_id, number, game, FULL if game else COMPACT)
    except ValueError as error:
        raise SeasonRefused(str(error)) from None
    except NoSeason as error:
        raise SeasonRefused(say(error)) from None


def season_channel_refusal(channel: discord.TextChannel | None, *, clear: bool) -> str | None:
    """What is wrong with the podium channel asked for (``None``: nothing)."""
    if channel is None:
        return None
    if clear:
        return _("Set the season channel or clear it, not both.")
    me = channel.guild.me
    if me is None:
        return None  # the bot's own member is not known here: Discord will say at the post
    allowed = channel.permissions_for(me)
    if all(getattr(allowed, name) for name in SEASON_CHANNEL_NEEDS):
        return None
    return _(
        "I cannot post podiums in {channel}: I need View Channel, Send Messages and Embed "
        "Links there. Give me them, or choose another channel.",
        channel=channel.mention,
    )


SeasonAnswers = tuple[str | None, str | None, discord.TextChannel | None, bool]
"""``/settings``' season options as given: length, score, channel, and whether to clear it."""


async def season_settings(seasons: Seasons, guild_id: int, given: SeasonAnswers) -> str:
    """Set what was given of the server's season settings; the lines that show them."""
    length, score, channel, clear = given
    options = await seasons.set_options(
        guild_id,
        length=None if length is None else SeasonLength(length),
        score=None if score is None else SeasonScore(score),
        channel_id=None if channel is None else channel.id,
        clear_channel=clear,
    )
    if length is not None or score is not None or channel is not None or clear:
        log.info("server %s: season settings changed", guild_id)
    return settings_lines(options)
