"""A finished match's review as Discord shows it, privately: a summary, then move by move.

The summary gives each player's skill and luck (0-99) and their best and worst moves; the
details walk through each move: what the player knew, the best moves, and the mark. Every
secret is public once a match is over, so anyone in the channel may open a review. Buttons
carry what they show in their ``custom_id`` (``details:<match>:<move>``; move 0 is the
summary), so a review left open pages on after a restart.
"""

from __future__ import annotations

import discord

from bot.chat.render import COLOUR, fit, mention
from bot.service.replays import ReviewShown
from games.review import Mark, MoveReview, PlayerSummary

DETAILS = "details"
"""The first part of a review page's ``custom_id``."""
DETAILS_TEMPLATE = (
    rf"{DETAILS}:(?P<reviewed>[0-9]{{1,10}}):(?P<move>[0-9]{{1,4}})(?::[a-z]{{1,8}})?"
)
"""The last part is the button's own word: Summary and Prev on the first move both lead to
page 0, and Discord wants their ids to differ."""

MARK_SIGNS = {
    Mark.BEST: "✅",
    Mark.INACCURACY: "⚠️",
    Mark.MISTAKE: "❓",
    Mark.BLUNDER: "⛔",
}
UNITS = {
    "moves": "moves still needed",
    "outcome": "result under best play",
    "chance": "chance to win",
}


def details_id(match_id: int, move: int, tag: str) -> str:
    return f"{DETAILS}:{match_id}:{max(move, 0)}:{tag}"


def page_buttons(shown: ReviewShown, move: int) -> list[tuple[str, str, bool]]:
    """``(label, custom_id, disabled)`` of the review's buttons on page ``move`` (0: summary)."""
    match_id, last = shown.match.id, len(shown.review.moves)
    if move == 0:
        return [("Details", details_id(match_id, 1, "details"), last == 0)]
    return [
        ("Summary", details_id(match_id, 0, "summary"), False),
        ("Prev", details_id(match_id, move - 1, "prev"), move <= 1),
        ("Next", details_id(match_id, min(move + 1, last), "next"), move >= last),
    ]


def review_embed(shown: ReviewShown, move: int) -> discord.Embed:
    """Page ``move`` of the review: the summary (0), or that move's details."""
    if move == 0 or not shown.review.moves:
        return summary_embed(shown)
    moves = shown.review.moves
    return move_embed(shown, moves[min(move, len(moves)) - 1])


def summary_embed(shown: ReviewShown) -> discord.Embed:
    """Each player's skill and luck, best and worst moves, and how exact the review is."""
    review, match = shown.review, shown.match
    embed = discord.Embed(title=f"Review · {shown.title} · match #{match.id}", colour=COLOUR)
    winner = review.outcome.winner
    result = "A draw" if winner is None else f"{mention(match.players[winner])} won"
    embed.description = f"{result} ({review.outcome.reason.value})."
    for summary in review.players:
        embed.add_field(
            name=f"Seat {summary.seat + 1}",
            value=fit(_player_text(shown, summary), 1024),
            inline=False,
        )
    exact = (
        "Every value is exact."
        if review.exact
        else "Some values are the built-in player's estimates, not exact."
    )
    embed.set_footer(text=f"{exact} Press Details to walk through every move.")
    return embed


def _player_text(shown: ReviewShown, summary: PlayerSummary) -> str:
    moves = {move.number: move for move in shown.review.moves}
    lines = [mention(shown.match.players[summary.seat])]
    skill = f"**{summary.skill}**" if summary.skill is not None else summary.skill_note or "-"
    luck = f"**{summary.luck}**" if summary.luck is not None else summary.luck_note or "-"
    lines.append(f"Skill {skill} · luck {luck}")
    if summary.best_move is not None:
        lines.append(f"Best move: {_move_line(moves[summary.best_move])}")
    if summary.worst_move is not None:
        lines.append(f"Worst move: {_move_line(moves[summary.worst_move])}")
    elif summary.moves:
        lines.append("Worst move: none, every move was best.")
    counts = [f"{summary.count(mark)} {mark.value}" for mark in Mark if summary.count(mark)]
    if counts:
        lines.append(" · ".join(counts))
    return "\n".join(lines)


def _move_line(move: MoveReview) -> str:
    return f"#{move.number} {move.move} ({MARK_SIGNS[move.mark]} {move.mark.value})"


def move_embed(shown: ReviewShown, move: MoveReview) -> discord.Embed:
    """One move: who played it, what they knew, the best moves, and its mark."""
    total = len(shown.review.moves)
    embed = discord.Embed(
        title=f"Move {move.number} of {total} · {shown.title} · match #{shown.match.id}",
        colour=COLOUR,
    )
    who = mention(shown.match.players[move.seat])
    embed.description = f"{who} played **{move.move}**: {MARK_SIGNS[move.mark]} {move.mark.value}."
    embed.add_field(name="What they knew", value=fit(move.knowledge.text, 1024), inline=False)
    best = ", ".join(move.best) or "-"
    more = move.best_count - len(move.best)
    if more > 0:
        best += f" and {more} more"
    embed.add_field(name="Best", value=fit(best, 1024), inline=False)
    unit = UNITS.get(shown.review.unit, shown.review.unit)
    estimate = "" if move.exact else " (estimate)"
    embed.add_field(
        name="Value",
        value=f"{unit}: best {move.before:g}, played {move.after:g}{estimate}",
        inline=False,
    )
    return embed
