"""What a tournament does next, from its entrants and games: pure functions over plain data.

- A match's end becomes a game's result (``result_of``): a win, a draw (half a point each), a
  loss for the player who resigned or failed to act in time, or no result when neither acted
  or the match was called off.
- A player who ran out of time in two games in a row is withdrawn (``lapsed_twice``): losing on
  time, or failing to choose a secret in time. Byes do not break the run.
- When every game of the round has ended, the next round is paired (``advance``): Swiss and
  round robin by ``pairing``, knockouts by ``knockout``; a knockout match that is drawn (or has
  no result) is played again first, seats swapped after a draw. The event ends after its last
  round, or when fewer than two players are still paired.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from bot.service.tournaments.knockout import (
    knockout_bracket,
    knockout_next_entrants,
    knockout_next_game,
    knockout_round,
    knockout_winner,
)
from bot.service.tournaments.pairing import (
    Entrant,
    Pairing,
    round_robin_schedule,
    swiss_round,
    swiss_round_count,
)
from bot.service.tournaments.standings import TournamentStanding, standings

Format = Literal["swiss", "round_robin", "knockout"]
FORMATS: tuple[Format, ...] = ("swiss", "round_robin", "knockout")

TIMEOUTS = "timeouts"
"""Why a player who ran out of time twice in a row was withdrawn."""
LEFT = "left"
"""Why a player who left was withdrawn."""


@dataclass(frozen=True)
class MatchEnd:
    """How a match ended, as the match service stored it."""

    status: str
    """``finished`` or ``aborted``."""
    winner_seat: int | None
    end_reason: str | None
    acted: frozenset[int]
    """The seats that acted at least once."""
    called_off_by: int | None = None
    """The member who called the match off before it started (a resignation), if one did."""


def result_of(pairing: Pairing, end: MatchEnd) -> Pairing:
    """The pairing ended with what its match's end means for the event."""
    lapsed = [False, False]
    score0: float | None
    if end.status == "finished":
        if end.winner_seat is None:
            score0 = 0.5
        else:
            score0 = 1.0 if end.winner_seat == 0 else 0.0
            lapsed[1 - end.winner_seat] = end.end_reason == "timeout"
    elif end.called_off_by is not None and pairing.seat_of(end.called_off_by) is not None:
        score0 = 0.0 if pairing.seat_of(end.called_off_by) == 0 else 1.0
    elif end.end_reason == "timeout":
        failed = [seat not in end.acted for seat in (0, 1)]
        lapsed = failed
        score0 = None if all(failed) or not any(failed) else (0.0 if failed[0] else 1.0)
    else:
        score0 = None
    return replace(pairing, ended=True, score0=score0, lapsed=(lapsed[0], lapsed[1]))


def lapsed_twice(entrants: Sequence[Entrant], pairings: Sequence[Pairing]) -> set[int]:
    """The players still paired whose last two games ended with them out of time."""
    runs: dict[int, int] = {e.user_id: 0 for e in entrants if e.active}
    for pairing in sorted(pairings, key=lambda p: (p.round, p.replay, p.board)):
        if not pairing.ended or pairing.is_bye:
            continue
        for seat, user_id in enumerate((pairing.seat0, pairing.seat1)):
            if user_id in runs:
                runs[user_id] = runs[user_id] + 1 if pairing.lapsed[seat] else 0
    return {user_id for user_id, run in runs.items() if run >= 2}


def round_count(format: Format, entrants: Sequence[Entrant], asked: int | None) -> int:
    """How many rounds the event has with these entrants (Swiss: ``asked``, by default
    ceil(log2(players)))."""
    players = len(entrants)
    if format == "swiss":
        return asked or max(1, swiss_round_count(players))
    if format == "round_robin":
        return players - 1 if players % 2 == 0 else players
    return max(1, math.ceil(math.log2(players)))


@dataclass
class Progress:
    """What ``advance`` decided: results recorded, withdrawals, new rounds and games, the end."""

    round: int
    pairings: list[Pairing]
    """Every pairing, the new ones (without an id) included."""
    withdrawn: dict[int, str] = field(default_factory=dict)
    brackets: dict[int, tuple[int | None, ...]] = field(default_factory=dict)
    """Each new round's bracket (knockout), or an empty tuple."""
    over: bool = False
    winner: int | None = None

    @property
    def new_pairings(self) -> list[Pairing]:
        return [p for p in self.pairings if p.id is None]


def advance(
    format: Format,
    total_rounds: int,
    entrants: Sequence[Entrant],
    pairings: Sequence[Pairing],
    current: int,
    brackets: Mapping[int, Sequence[int | None]],
) -> Progress:
    """Move the event on from its recorded results: withdraw players out of time twice in a
    row, replay undecided knockout matches, pair the next round once this one is over, or end.

    ``current`` is the round being played (0 before the first); ``brackets`` are the knockout
    rounds' brackets so far.
    """
    late = lapsed_twice(entrants, pairings)
    withdrawn = {user_id: TIMEOUTS for user_id in late}
    people = [replace(e, withdrawn=TIMEOUTS) if e.user_id in late else e for e in entrants]
    progress = Progress(current, list(pairings), withdrawn)
    known = dict(brackets)
    while True:
        if format == "knockout" and progress.round:
            bracket = known[progress.round]
            progress.pairings += _replays(people, bracket, progress.pairings, progress.round)
        if any(not p.ended for p in progress.pairings if p.round == progress.round):
            return progress
        following = _next_round(format, total_rounds, people, progress, known)
        if following is None:
            progress.over = True
            progress.winner = _winner(format, people, progress, known)
            return progress
        number = progress.round + 1
        if format == "knockout":
            known[number] = progress.brackets[number] = _bracket_of(people, progress, known)
        progress.round = number
        progress.pairings += following


def _next_round(
    format: Format,
    total_rounds: int,
    people: Sequence[Entrant],
    progress: Progress,
    brackets: Mapping[int, Sequence[int | None]],
) -> list[Pairing] | None:
    """The next round's pairings and byes, or ``None`` when the event is over."""
    players, history = people, progress.pairings
    number = progress.round + 1
    if sum(p.active for p in players) < 2:
        return None
    if format == "swiss":
        return swiss_round(players, history, number) if number <= total_rounds else None
    if format == "round_robin":
        schedule = round_robin_schedule(players)
        return schedule[number - 1] if number <= len(schedule) else None
    bracket = _bracket_of(people, progress, brackets)
    if sum(slot is not None for slot in bracket) < 2:
        return None
    return knockout_round(players, bracket, history, number)


def _bracket_of(
    people: Sequence[Entrant], progress: Progress, brackets: Mapping[int, Sequence[int | None]]
) -> tuple[int | None, ...]:
    """The knockout bracket of the round after ``progress.round``: seeded for the first, the
    players through from the last round's matches after that."""
    if progress.round == 0:
        return knockout_bracket(people)
    return knockout_next_entrants(people, brackets[progress.round], progress.pairings)


def _replays(
    people: Sequence[Entrant],
    bracket: Sequence[int | None],
    pairings: Sequence[Pairing],
    number: int,
) -> list[Pairing]:
    """The next game of each knockout match of the round whose games so far left it undecided
    (a draw, or no result) while both players are still in."""
    active = {e.user_id for e in people if e.active}
    replays = []
    for games in _matches_of(pairings, number).values():
        if any(not p.ended for p in games):
            continue
        first = games[0]
        assert first.seat1 is not None
        both = (first.seat0, first.seat1)
        if knockout_winner(people, both, games) is not None:
            continue
        if not set(both) <= active:
            continue
        seats = knockout_next_game(both, games)
        assert seats is not None  # undecided: another game is due
        replays.append(Pairing(number, *seats, board=first.board, replay=len(games)))
    return replays


def _matches_of(pairings: Sequence[Pairing], number: int) -> dict[int, list[Pairing]]:
    """The round's games between two players, by board, in the order played."""
    boards: dict[int, list[Pairing]] = {}
    for pairing in sorted(pairings, key=lambda p: (p.board, p.replay)):
        if pairing.round == number and not pairing.is_bye:
            boards.setdefault(pairing.board, []).append(pairing)
    return boards


def _winner(
    format: Format,
    people: Sequence[Entrant],
    progress: Progress,
    brackets: Mapping[int, Sequence[int | None]],
) -> int | None:
    """The event's winner: the last player through a knockout, else the top of the standings
    (the best still in the event, if any is)."""
    if format == "knockout":
        if progress.round == 0:
            return None
        alive = [slot for slot in _bracket_of(people, progress, brackets) if slot is not None]
        return alive[0] if len(alive) == 1 else None
    table = table_of(format, people, progress.pairings)
    staying = [s.player for s in table if not s.withdrawn]
    return staying[0] if staying else (table[0].player if table else None)


def table_of(
    format: Format, people: Sequence[Entrant], pairings: Sequence[Pairing]
) -> list[TournamentStanding]:
    """The standings of a Swiss or round robin from the games so far."""
    assert format != "knockout", "a knockout has a bracket, not a table"
    return standings(format, people, pairings)
