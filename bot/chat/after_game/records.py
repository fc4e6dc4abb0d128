"""A finished match as a plain-text record, worded for its reader: the players, the options,
each move with the review's mark, and the result. Its data is the service's (``Replays``)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from bot.i18n import _
from bot.i18n.formats import moment
from bot.i18n.names import mark_name, reason_name
from bot.service.replays import FinishedMatch, Replay, ReviewShown, replay_of
from games import review as reviewing
from games.review import Review
from games.review.phrasing import word

__all__ = ["BOT_NAME", "plain_names", "record", "record_text"]

BOT_NAME = "Parlor"


def record(shown: ReviewShown) -> tuple[str, str]:
    """The reviewed match as a plain-text record, and a file name for it."""
    match = shown.match
    text = record_text(replay_of(match), shown.review)
    return f"parlor-match-{match.id}-{match.game}.txt", text


def plain_names(match: FinishedMatch) -> tuple[str, str]:
    """The players as a plain-text record names them: their name when the match ended, the
    bot's name, or a neutral ``Player 1``/``Player 2`` for matches from before names were kept."""
    shown = []
    for seat, (user_id, name) in enumerate(zip(match.players, match.names, strict=True)):
        if name:
            shown.append(name)
        elif match.vs_bot and user_id != match.challenger_id:
            shown.append(BOT_NAME)  # the bot never challenges
        else:
            shown.append(_("Player {number}", number=seat + 1))
    return shown[0], shown[1]


def record_text(replay: Replay, review: Review) -> str:
    """A finished match as plain text: players, options, each move with its mark, the result,
    worded in the reader's language."""
    match = replay.match
    names = plain_names(match)
    game = replay.game
    marks = _marks(replay, review)
    lines = [
        _("Parlor · {game} · match #{id}", game=_(replay.title), id=match.id),
        _("Finished: {when}", when=_when(match.finished_at)),
        _("Players: {first} (moved first) and {second}", first=names[0], second=names[1]),
        _("Options: {options}", options=_options(review.options)),
        "",
        _("Moves:"),
    ]
    for step, mark in zip(replay.steps[1:], marks, strict=True):
        who = names[step.seat] if step.seat is not None else "—"
        move = "" if step.action is None else game.word(step.action)
        head = f"{step.number:>3}. {who}: {move}" if move else f"{step.number:>3}."
        lines.append(f"{head}  [{mark}]" if mark else head)
        lines.extend(f"       {event.render(names)}" for event in step.events)
    lines += ["", _("Result: {result}", result=_result(match, names))]
    lines += [_("Secrets: {secrets}", secrets=e.render(names)) for e in replay.secrets]
    for summary in review.players:
        lines.append(f"{names[summary.seat]}: {_scores(summary)}")
    return "\n".join(lines) + "\n"


def _marks(replay: Replay, review: Review) -> list[str]:
    """Each step's mark from the review, in order; ``""`` for steps it does not judge."""
    pending = list(review.moves)
    found = []
    for seat, _ask, text in replay.match.actions:
        if pending and pending[0].seat == seat and pending[0].action == text:
            found.append(mark_name(pending.pop(0).mark.value))
        else:
            found.append("")
    found += [""] * (len(replay.steps) - 1 - len(found))
    return found


def _scores(summary: reviewing.PlayerSummary) -> str:
    if summary.skill is None:
        skill = word(summary.skill_note) if summary.skill_note else ""
    else:
        skill = _("skill {score}", score=summary.skill)
    if summary.luck is None:
        luck = word(summary.luck_note) if summary.luck_note else _("no luck score")
    else:
        luck = _("luck {score}", score=summary.luck)
    return f"{skill}; {luck}"


def _result(match: FinishedMatch, names: tuple[str, str]) -> str:
    if match.winner_seat is None:
        result = _("a draw")
    else:
        result = _("{player} won", player=names[match.winner_seat])
    return f"{result} ({reason_name(match.end_reason)})" if match.end_reason else result


def _options(options: Mapping[str, Any]) -> str:
    if not options:
        return _("standard")
    return ", ".join(f"{key} {value}" for key, value in sorted(options.items()))


def _when(at: datetime | None) -> str:
    return _("unknown") if at is None else f"{moment(at)} UTC"
