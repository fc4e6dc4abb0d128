"""A finished match's review as Discord shows it, privately: a summary, then move by move.

The summary gives each player's skill and luck (0-99) and their best and worst moves; the
details walk through each move: what the player knew, the best moves, and the mark. Every
secret is public once a match is over, so anyone in the channel may open a review. Buttons
carry what they show in their ``custom_id`` (``details:<match>:<move>``; move 0 is the
summary), so a review left open pages on after a restart. A review's texts are phrases
(``games.review.phrasing``), worded here in the reader's language.
"""

from __future__ import annotations

import discord

from bot.chat.boards.render import COLOUR, fit, mention
from bot.i18n import N_, _, formats, n_
from bot.i18n.names import mark_name, reason_name
from bot.service.replays import ReviewShown
from games.review import Mark, MoveReview, PlayerSummary
from games.review.phrasing import word

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
    "moves": N_("moves still needed"),
    "outcome": N_("result under best play"),
    "chance": N_("chance to win"),
}


def details_id(match_id: int, move: int, tag: str) -> str:
    return f"{DETAILS}:{match_id}:{max(move, 0)}:{tag}"


def page_buttons(shown: ReviewShown, move: int) -> list[tuple[str, str, bool]]:
    """``(label, custom_id, disabled)`` of the review's buttons on page ``move`` (0: summary)."""
    match_id, last = shown.match.id, len(shown.review.moves)
    if move == 0:
        return [(_("Details"), details_id(match_id, 1, "details"), last == 0)]
    return [
        (_("Summary"), details_id(match_id, 0, "summary"), False),
        (_("Prev"), details_id(match_id, move - 1, "prev"), move <= 1),
        (_("Next"), details_id(match_id, min(move + 1, last), "next"), move >= last),
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
    embed = discord.Embed(
        title=_("Review · {game} · match #{id}", game=_(shown.title), id=match.id), colour=COLOUR
    )
    winner = review.outcome.winner
    reason = reason_name(review.outcome.reason.value)
    if winner is None:
        embed.description = _("A draw ({reason}).", reason=reason)
    else:
        winner_name = mention(match.players[winner])
        embed.description = _("{player} won ({reason}).", player=winner_name, reason=reason)
    for summary in review.players:
        embed.add_field(
            name=_("Seat {number}", number=summary.seat + 1),
            value=fit(_player_text(shown, summary), 1024),
            inline=False,
        )
    exact = (
        _("Every value is exact.")
        if review.exact
        else _("Some values are the built-in player's estimates, not exact.")
    )
    walk = _("Press {details} to walk through every move.", details=_("Details"))
    embed.set_footer(text=f"{exact} {walk}")
    return embed


def _player_text(shown: ReviewShown, summary: PlayerSummary) -> str:
    moves = {move.number: move for move in shown.review.moves}
    lines = [mention(shown.match.players[summary.seat])]
    skill = _score(summary.skill, summary.skill_note)
    luck = _score(summary.luck, summary.luck_note)
    lines.append(_("Skill {skill} · luck {luck}", skill=skill, luck=luck))
    if summary.best_move is not None:
        lines.append(_("Best move: {move}", move=_move_line(moves[summary.best_move])))
    if summary.worst_move is not None:
        lines.append(_("Worst move: {move}", move=_move_line(moves[summary.worst_move])))
    elif summary.moves:
        lines.append(_("Worst move: none, every move was best."))
    counts = [
        f"{summary.count(mark)} {mark_name(mark.value)}" for mark in Mark if summary.count(mark)
    ]
    if counts:
        lines.append(" · ".join(counts))
    return "\n".join(lines)


def _score(score: int | None, note: str | None) -> str:
    """A 0-99 score in bold, or why there is none."""
    if score is not None:
        return f"**{score}**"
    return word(note) if note else "-"


def _move_line(move: MoveReview) -> str:
    return (
        f"#{move.number} {word(move.move)} ({MARK_SIGNS[move.mark]} {mark_name(move.mark.value)})"
    )


def move_embed(shown: ReviewShown, move: MoveReview) -> discord.Embed:
    """One move: who played it, what they knew, the best moves, and its mark."""
    total = len(shown.review.moves)
    embed = discord.Embed(
        title=_(
            "Move {number} of {total} · {game} · match #{id}",
            number=move.number,
            total=total,
            game=_(shown.title),
            id=shown.match.id,
        ),
        colour=COLOUR,
    )
    who = mention(shown.match.players[move.seat])
    embed.description = _(
        "{player} played **{move}**: {sign} {mark}.",
        player=who,
        move=word(move.move),
        sign=MARK_SIGNS[move.mark],
        mark=mark_name(move.mark.value),
    )
    embed.add_field(
        name=_("What they knew"), value=fit(word(move.knowledge.text), 1024), inline=False
    )
    best = ", ".join(map(word, move.best)) or "-"
    more = move.best_count - len(move.best)
    if more > 0:
        best = n_("{best} and {n} more", "{best} and {n} more", more, best=best)
    embed.add_field(name=_("Best"), value=fit(best, 1024), inline=False)
    unit = _(UNITS[shown.review.unit]) if shown.review.unit in UNITS else shown.review.unit
    values = {"best": formats.number(move.before), "played": formats.number(move.after)}
    if move.exact:
        value = _("{unit}: best {best}, played {played}", unit=unit, **values)
    else:
        value = _("{unit}: best {best}, played {played} (estimate)", unit=unit, **values)
    embed.add_field(name=_("Value"), value=value, inline=False)
    return embed
