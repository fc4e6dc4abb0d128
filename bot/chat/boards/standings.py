"""The server's leaderboard and a member's record, as ``/stats`` shows them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import discord

import games
from bot.chat.boards.render import COLOUR, FIELD_VALUE_MAX, RESULTS, fit, mention
from bot.i18n import _
from bot.i18n.names import reason_name
from bot.service.ratings import INACTIVE_AFTER

if TYPE_CHECKING:
    from bot.service.member_history import MemberMatch
    from bot.service.stats import Ladder, MemberRecord, Standing


def leaderboard_embed(tables: dict[str, Ladder], *, compact: bool) -> discord.Embed:
    """The server's leaderboard: one game in full, or every game's top players compactly.

    The ranked players are numbered; the provisional and the inactive follow apart, never in
    the ranking."""
    embed = discord.Embed(title=_("Leaderboard"), colour=COLOUR)
    for game, board in tables.items():
        name = _(games.get(game).title)
        if board.empty:
            embed.add_field(name=name, value=_("No finished matches yet."), inline=False)
        elif compact:
            lines = [
                f"{s.rank}. {mention(s.user_id)} {s.line.rating} "
                f"({s.line.wins}-{s.line.losses}-{s.line.draws})"
                for s in board.ranked
            ] or [_("Nobody is ranked yet.")]
            if board.provisional:
                lines.append(_("Provisional: {members}", members=_apart(board.provisional)))
            if board.inactive:
                lines.append(_("Inactive: {members}", members=_apart(board.inactive)))
            embed.add_field(name=name, value=fit("\n".join(lines), FIELD_VALUE_MAX), inline=False)
        else:
            ranked = "\n".join(
                _(
                    "**{rank}.** {member} · rating {rating} · {record} · streak {streak}",
                    rank=s.rank,
                    member=mention(s.user_id),
                    rating=s.line.rating,
                    record=_record(s.line.wins, s.line.losses, s.line.draws, " "),
                    streak=_streak(s.line.streak),
                )
                for s in board.ranked
            )
            embed.add_field(
                name=name,
                value=fit(ranked or _("Nobody is ranked yet."), FIELD_VALUE_MAX),
                inline=False,
            )
            for title, standings in ((_("Provisional"), board.provisional),
                                     (_("Inactive"), board.inactive)):  # fmt: skip
                if standings:
                    value = "\n".join(_unranked_line(s) for s in standings)
                    embed.add_field(name=title, value=fit(value, FIELD_VALUE_MAX), inline=False)
    embed.set_footer(
        text=_(
            "Ratings are Glicko-2; a ? marks a provisional rating. Provisional players, and "
            "players without a rated match for {days} days, are listed apart.",
            days=INACTIVE_AFTER.days,
        )
    )
    return embed


def _apart(standings: Sequence[Standing]) -> str:
    """Provisional or inactive players on one line: each with their rating, unnumbered."""
    return ", ".join(f"{mention(s.user_id)} {s.line.rating}" for s in standings)


def _unranked_line(standing: Standing) -> str:
    line = standing.line
    return _(
        "{member} · rating {rating} · {record}",
        member=mention(standing.user_id),
        rating=line.rating,
        record=_record(line.wins, line.losses, line.draws, " "),
    )


def record_embed(record: MemberRecord, *, game: str | None) -> discord.Embed:
    """A member's record: per game and overall, rating, streak, and their last 10 matches."""
    title = _("Record in {game}", game=_(games.get(game).title)) if game else _("Record")
    embed = discord.Embed(title=title, colour=COLOUR)
    embed.description = mention(record.user_id)
    if not record.lines:
        embed.description += "\n" + _("No finished matches yet.")
    for line in record.lines:
        name = _(games.get(line.game).title)
        if line.vs_bot:
            name = _("{game} (vs the bot)", game=name)
        value = (
            _record(line.wins, line.losses, line.draws, " · ")
            + "\n"
            + _(
                "Rating {rating} · streak {streak} · best {best}",
                rating=line.rating,
                streak=_streak(line.streak),
                best=line.best_streak,
            )
        )
        embed.add_field(name=name, value=value, inline=True)
    if record.lines and game is None:
        wins, losses, draws = record.total
        embed.add_field(name=_("Overall"), value=_record(wins, losses, draws, " · "), inline=False)
    if record.recent:
        recent = "\n".join(_recent_line(match) for match in record.recent)
        embed.add_field(name=_("Last matches"), value=fit(recent, FIELD_VALUE_MAX), inline=False)
    return embed


def _record(wins: int, losses: int, draws: int, between: str) -> str:
    """``3 W · 1 L · 0 D`` in the reader's letters."""
    return between.join(
        [
            _("{n} W", n=wins),
            _("{n} L", n=losses),
            _("{n} D", n=draws),
        ]
    )


def _recent_line(match: MemberMatch) -> str:
    line = _(
        "{date} {game} vs {opponent}: {result}",
        date=_date(match.finished_at),
        game=_(games.get(match.game).title),
        opponent=mention(match.opponent_id),
        result=_(RESULTS[match.result]),
    )
    return f"{line} ({reason_name(match.end_reason)})" if match.end_reason else line


def _date(moment: datetime | None) -> str:
    return f"<t:{int(moment.timestamp())}:d>" if moment else ""


def _streak(streak: int) -> str:
    if streak > 0:
        return _("{n} W", n=streak)
    if streak < 0:
        return _("{n} L", n=-streak)
    return "0"
