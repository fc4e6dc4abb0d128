"""How the engines word what they tell players: names, quoted input, and the end of a game.

Texts are worded when shown, in the reader's language (``games.words._``), from an event's
kind and data (``Game.tell``); boards name players through the placeholders ``{p0}`` and
``{p1}``, filled by the screen that draws them.
"""

from __future__ import annotations

from collections.abc import Mapping

from games.base import JSON, Reason, Seat, other
from games.words import N_, _


def player(seat: Seat) -> str:
    """The placeholder that names ``seat``'s player in a board's text: ``{p0}`` or ``{p1}``."""
    return f"{{p{seat}}}"


def quoted(text: str) -> str:
    """The player's input for an error message: stripped, cut after 20 characters, quoted."""
    shown = text.strip()
    return repr(shown if len(shown) <= 20 else shown[:20] + "...")


# --- the end of a game, as announced --------------------------------------------------------

REASONS: dict[Reason, str] = {
    Reason.CAPTURE: N_("capture"),
    Reason.TARGET: N_("target reached"),
    Reason.SCORE: N_("score"),
    Reason.RESIGN: N_("resignation"),
    Reason.TIMEOUT: N_("time ran out"),
    Reason.NO_MOVES: N_("no moves left"),
    Reason.MOVE_LIMIT: N_("move limit"),
}
"""Why a game ended, in a few words (translated where shown)."""


def end_words(data: Mapping[str, JSON], names: tuple[str, str]) -> str:
    """The end of a game stopped from outside its rules, winner first:
    ``Ann wins: Bob resigned.`` Each game words its natural ends itself.
    """
    reason = Reason(data["reason"])
    winner = data["winner"]
    if winner is None and reason is Reason.TIMEOUT:
        # Only a setup runs out without a winner: the match is called off, not drawn.
        return _("No result: the secrets were not all chosen in time.")
    if winner is None and reason is Reason.RESIGN:
        return _("No result: the match was called off.")  # before it started, or stopped
    if winner is None:
        return _("Draw ({reason}).", reason=_(REASONS[reason]))
    loser = names[other(winner)]
    if reason is Reason.RESIGN:
        return _("{winner} wins: {loser} resigned.", winner=names[winner], loser=loser)
    if reason is Reason.TIMEOUT:
        return _("{winner} wins: {loser} ran out of time.", winner=names[winner], loser=loser)
    return _("{winner} wins ({reason}).", winner=names[winner], reason=_(REASONS[reason]))


def joined_facts(facts: list[str]) -> str:
    """Facts said in one sentence: ``a; b.``"""
    return "; ".join(facts) + "."
