"""The PNG charts ``/stats`` attaches: a member's rating over time per game, with its likely
range, and one game's top ten. Drawn in a worker thread (``bot.service.charts.draw``), so the
event loop never waits on matplotlib."""

from __future__ import annotations

import io
from dataclasses import replace

import discord

import games
from bot.i18n import _
from bot.service.charts import draw, leaderboard_chart, rating_chart
from bot.service.member_history import HistoryService

MEMBER_FILE = "rating.png"
TOP_FILE = "top-ratings.png"


async def member_chart(
    histories: HistoryService, guild_id: int, user_id: int, game: str | None, name: str
) -> discord.File | None:
    """The member's rating in each game they were rated in (or in ``game``); None without any."""
    series = await histories.rating_series(guild_id, user_id, game)
    titled = {_(games.get(key).title): points for key, points in series.items()}
    png = await draw(
        rating_chart,
        titled,
        title=_("{name}: rating", name=name),
        y_label=_("Rating"),
        band_label=_("likely range (± 2 deviations)"),
        season_label=_("new season"),
        until=histories.clock(),
    )
    return None if png is None else discord.File(io.BytesIO(png), filename=MEMBER_FILE)


async def top_chart(histories: HistoryService, guild_id: int, game: str) -> discord.File | None:
    """The game's top ten as bars with their likely ranges; None before anyone is rated.

    A member named nowhere yet (every match of theirs ended before names were kept) shows
    by the end of their id, which the leaderboard's text beside it names in full."""
    standings = [
        replace(standing, name=standing.name or _unnamed(standing.user_id))
        for standing in await histories.top_ratings(guild_id, game)
    ]
    title = _("{game}: top ratings", game=_(games.get(game).title))
    png = await draw(leaderboard_chart, standings, title=title, x_label=_("Rating"))
    return None if png is None else discord.File(io.BytesIO(png), filename=TOP_FILE)


def _unnamed(user_id: int) -> str:
    """A member without a kept name, by the last four digits of their id."""
    end = str(user_id % 10000).zfill(4)
    return _("Member …{end}", end=end)
