"""How the engines word what they tell players: names, quoted input, and the end of a game.

Event texts name players only through the placeholders ``{p0}`` and ``{p1}`` (see
``games.base.Event``).
"""

from __future__ import annotations

from games.base import Outcome, Reason, Seat, other


def player(seat: Seat) -> str:
    """The placeholder that names ``seat``'s player in an event's text: ``{p0}`` or ``{p1}``."""
    return f"{{p{seat}}}"


def quoted(text: str) -> str:
    """The player's input for an error message: stripped, cut after 20 characters, quoted."""
    shown = text.strip()
    return repr(shown if len(shown) <= 20 else shown[:20] + "...")


# --- the end of a game, as announced --------------------------------------------------------


def end_text(outcome: Outcome) -> str:
    """The end of a game stopped from outside its rules, winner first:
    ``{p0} wins: {p1} resigned.`` Each game words its natural ends itself.
    """
    if outcome.winner is None:
        return f"Draw ({outcome.reason})."
    winner, loser = player(outcome.winner), player(other(outcome.winner))
    if outcome.reason is Reason.RESIGN:
        return f"{winner} wins: {loser} resigned."
    if outcome.reason is Reason.TIMEOUT:
        return f"{winner} wins: {loser} ran out of time."
    return f"{winner} wins ({outcome.reason})."
