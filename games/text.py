"""How the engines word what they tell players: names, quoted input, and the end of a game.

Event texts name players only through the placeholders ``{p0}`` and ``{p1}`` (see
``games.base.Event``); descriptions name them "Player 1" and "Player 2".
"""

from __future__ import annotations

from collections.abc import Mapping

from games.base import SEATS, Outcome, Reason, Seat, other


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


# --- the last line of a description ---------------------------------------------------------


def result_line(outcome: Outcome) -> str:
    """How a finished game ended: ``Player 1 wins the game! (capture)``."""
    if outcome.winner is None:
        return f"The game is a draw ({outcome.reason.value})."
    return f"Player {outcome.winner + 1} wins the game! ({outcome.reason.value})"


def winner_line(winner: Seat, reason: Reason, why: Mapping[Reason, str]) -> str:
    """Who won and why: ``Winner: Player 1 (Player 2 resigned).``

    ``why`` words the game's own reasons; resign and timeout are worded here.
    """
    loser = other(winner) + 1
    because = {
        Reason.RESIGN: f"Player {loser} resigned",
        Reason.TIMEOUT: f"Player {loser} ran out of time",
        **why,
    }.get(reason, str(reason))
    return f"Winner: Player {winner + 1} ({because})."


def waiting_line(done: tuple[bool, bool], task: str) -> str:
    """Who setup still waits for: ``Waiting for Player 1 and Player 2 to set their code.``"""
    waiting = " and ".join(f"Player {seat + 1}" for seat in SEATS if not done[seat])
    return f"Waiting for {waiting} to {task}."
