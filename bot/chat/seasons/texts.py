"""What members read of a season: its standings (``/stats season:``), its podium post, and the
season lines of ``/settings``. Written in the language the caller speaks in."""

from __future__ import annotations

from datetime import datetime

import discord

import games
from bot.chat.boards.render import COLOUR, FIELD_VALUE_MAX, fit, mention, mention_channel
from bot.i18n import N_, _
from bot.i18n.formats import command, decimal
from bot.service.season_periods import SeasonLength, SeasonScore
from bot.service.seasons import GameSeason, SeasonBoard, SeasonLine, SeasonOptions

LENGTH_NAMES = {
    SeasonLength.MONTH: N_("a calendar month"),
    SeasonLength.QUARTER: N_("a calendar quarter"),
    SeasonLength.HALF_YEAR: N_("half a year"),
}
SCORE_NAMES = {
    SeasonScore.RATING: N_("ranked by rating"),
    SeasonScore.POINTS: N_("ranked by points (1 a win, ½ a draw)"),
}
MEDALS = ("🥇", "🥈", "🥉")


def day(at: datetime) -> str:
    """A date Discord writes in each reader's own language and time zone."""
    return f"<t:{int(at.timestamp())}:D>"


def marker(board: SeasonBoard) -> str:
    """The podium post's footer: the same in every language, so that a later attempt finds
    the post an earlier one made."""
    return f"#{board.number} · {board.starts_at:%Y-%m-%d} to {board.ends_at:%Y-%m-%d}"


def _points(line: SeasonLine) -> str:
    return decimal(line.points)


def _ranked_line(line: SeasonLine, score: SeasonScore) -> str:
    if score == SeasonScore.POINTS:
        return _(
            "**{rank}.** {member} · {points} pts · {wins}-{losses}-{draws} · rating {rating}",
            rank=line.rank,
            member=mention(line.user_id),
            points=_points(line),
            wins=line.wins,
            losses=line.losses,
            draws=line.draws,
            rating=line.rating,
        )
    return _(
        "**{rank}.** {member} · rating {rating} · {wins}-{losses}-{draws}",
        rank=line.rank,
        member=mention(line.user_id),
        rating=line.rating,
        wins=line.wins,
        losses=line.losses,
        draws=line.draws,
    )


def _game_value(standings: GameSeason, score: SeasonScore) -> str:
    if not standings.ranked and not standings.provisional:
        return _("No rated match this season yet.")
    lines = [_ranked_line(line, score) for line in standings.ranked]
    if not standings.ranked:
        lines.append(_("Nobody ranked yet."))
    if standings.provisional:
        names = ", ".join(
            f"{mention(line.user_id)} {line.rating}" for line in standings.provisional
        )
        lines.append(_("Provisional (not ranked yet): {members}", members=names))
    return "\n".join(lines)


def season_embed(board: SeasonBoard) -> discord.Embed:
    """A season's standings per game, ranked players first and provisional ones apart."""
    title = (
        _("Season {number} (running)", number=board.number)
        if board.open
        else _("Season {number} (ended)", number=board.number)
    )
    embed = discord.Embed(title=title, colour=COLOUR)
    embed.description = _(
        "{start} to {end}, {score}.",
        start=day(board.starts_at),
        end=day(board.ends_at),
        score=_(SCORE_NAMES[board.score]),
    )
    for standings in board.games:
        embed.add_field(
            name=_(games.get(standings.game).title),
            value=fit(_game_value(standings, board.score), FIELD_VALUE_MAX),
            inline=False,
        )
    embed.set_footer(
        text=_(
            "Seasons 1 to {latest} are kept: {command} with a number shows one.",
            latest=board.latest,
            command="/stats season:",
        )
    )
    return embed


def podium_post(board: SeasonBoard) -> tuple[str, list[discord.Embed]]:
    """The post of an ended season: a line, and one embed with each game's podium."""
    content = _("Season {number} has ended. Its podium:", number=board.number)
    embed = discord.Embed(
        title=_("Season {number}", number=board.number),
        colour=COLOUR,
        description=_(
            "{start} to {end}, {score}.",
            start=day(board.starts_at),
            end=day(board.ends_at),
            score=_(SCORE_NAMES[board.score]),
        )
        + " "
        + (
            _(
                "Season {number} has begun: every rating is kept, and is a little less certain.",
                number=board.latest,
            )
            if board.latest > board.number
            else _("Every rating is kept, and is a little less certain.")
        ),
    )
    for standings in board.games:
        if standings.ranked:
            value = "\n".join(
                f"{MEDALS[line.rank - 1]} {mention(line.user_id)} · "
                + (
                    _("{points} pts", points=_points(line))
                    if board.score == SeasonScore.POINTS
                    else line.rating
                )
                for line in standings.ranked[: len(MEDALS)]
            )
        elif standings.provisional:
            value = _("Nobody ranked: only provisional ratings played.")
        else:
            value = _("No rated match this season.")
        embed.add_field(name=_(games.get(standings.game).title), value=value, inline=False)
    embed.set_footer(text=marker(board))
    return content, [embed]


def settings_lines(options: SeasonOptions) -> str:
    """The season lines of ``/settings``."""
    if options.length == SeasonLength.OFF:
        head = _("Seasons: off.")
    else:
        head = _(
            "Seasons: {length} each, {score}.",
            length=_(LENGTH_NAMES[options.length]),
            score=_(SCORE_NAMES[options.score]),
        )
    if options.channel_id is None:
        where = _(
            "Podiums: not posted (choose a channel with {command}).",
            command=command("settings season_channel:"),
        )
    else:
        where = _(
            "Podiums: posted in {channel} when a season ends.",
            channel=mention_channel(options.channel_id),
        )
    return f"\n{head}\n{where}"
