"""What a tournament does next, from its entrants and games: pure functions over plain data.

- A match's end becomes a game's result (``result_of``): a win, a draw (half a point each), a
  loss for the player who resigned or failed to act in time, or no result when neither acted
  or the match was called off.
- A player who ran out of time in two games in a row is withdrawn (``lapsed_twice``): losing on
  time, or failing to choose a secret in time. Byes do not break the run.
- When every game of the round has ended, the next round is paired (``advance``): Swiss and
  round robin by ``bot.service.pairing``; a knockout match that is drawn (or has no result) is
  played again first, seats swapped after a draw. The event ends after its last round, or when
  fewer than two players are still paired.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from bot.service.pairing import (
    Game,
    Pairing,
    Player,
    Round,
    knockout_bracket,
    knockout_next_entrants,
    knockout_next_game,
    knockout_round,
    knockout_winner,
    round_robin_schedule,
    swiss_round,
    swiss_round_count,
)
from bot.service.standings import Standing, standings

Format = Literal["swiss", "round_robin", "knockout"]
FORMATS: tuple[Format, ...] = ("swiss", "round_robin", "knockout")

TIMEOUTS = "timeouts"
"""Why a player who ran out of time twice in a row was withdrawn."""
LEFT = "left"
"""Why a player who left was withdrawn."""


@dataclass(frozen=True)
class Entrant:
    """A member in the event; ``withdrawn`` says why they are paired no more, if they are not."""

    user_id: int
    rating: float
    withdrawn: str | None = None

    @property
    def player(self) -> Player:
        return Player(self.user_id, self.rating, self.withdrawn is not None)


@dataclass(frozen=True)
class Fixture:
    """One game of a round: two players (seat 0 moves first) or a bye (``seat1`` None).

    ``replay`` counts the earlier games of the same knockout match. Once ``ended``, ``score0``
    is seat 0's points (None: no result) and ``lapsed`` says which seats ran out of time.
    """

    round: int
    board: int
    seat0: int
    seat1: int | None
    replay: int = 0
    ended: bool = False
    score0: float | None = None
    lapsed: tuple[bool, bool] = (False, False)
    match_id: int | None = None
    id: int | None = None

    @property
    def is_bye(self) -> bool:
        return self.seat1 is None

    @property
    def game(self) -> Game:
        """The game as pairing and standings read it: no result until it has ended."""
        return Game(self.round, self.seat0, self.seat1, self.score0 if self.ended else None)

    def seat_of(self, user_id: int) -> int | None:
        return 0 if user_id == self.seat0 else 1 if user_id == self.seat1 else None


@dataclass(frozen=True)
class MatchResult:
    """How a match ended, as the match service stored it."""

    status: str
    """``finished`` or ``aborted``."""
    winner_seat: int | None
    end_reason: str | None
    acted: frozenset[int]
    """The seats that acted at least once."""
    called_off_by: int | None = None
    """The member who called the match off before it started (a resignation), if one did."""


def result_of(fixture: Fixture, end: MatchResult) -> Fixture:
    """The fixture ended with what its match's end means for the event."""
    lapsed = [False, False]
    score0: float | None
    if end.status == "finished":
        if end.winner_seat is None:
            score0 = 0.5
        else:
            score0 = 1.0 if end.winner_seat == 0 else 0.0
            lapsed[1 - end.winner_seat] = end.end_reason == "timeout"
    elif end.called_off_by is not None and fixture.seat_of(end.called_off_by) is not None:
        score0 = 0.0 if fixture.seat_of(end.called_off_by) == 0 else 1.0
    elif end.end_reason == "timeout":
        failed = [seat not in end.acted for seat in (0, 1)]
        lapsed = failed
        score0 = None if all(failed) or not any(failed) else (0.0 if failed[0] else 1.0)
    else:
        score0 = None
    return replace(fixture, ended=True, score0=score0, lapsed=(lapsed[0], lapsed[1]))


def lapsed_twice(entrants: Sequence[Entrant], fixtures: Sequence[Fixture]) -> set[int]:
    """The players still paired whose last two games ended with them out of time."""
    runs: dict[int, int] = {e.user_id: 0 for e in entrants if e.withdrawn is None}
    for fixture in sorted(fixtures, key=lambda f: (f.round, f.replay, f.board)):
        if not fixture.ended or fixture.is_bye:
            continue
        for seat, user_id in enumerate((fixture.seat0, fixture.seat1)):
            if user_id in runs:
                runs[user_id] = runs[user_id] + 1 if fixture.lapsed[seat] else 0
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
    fixtures: list[Fixture]
    """Every fixture, the new ones (without an id) included."""
    withdrawn: dict[int, str] = field(default_factory=dict)
    brackets: dict[int, tuple[int | None, ...]] = field(default_factory=dict)
    """Each new round's bracket (knockout), or an empty tuple."""
    over: bool = False
    winner: int | None = None

    @property
    def new_fixtures(self) -> list[Fixture]:
        return [f for f in self.fixtures if f.id is None]


def advance(
    format: Format,
    total_rounds: int,
    entrants: Sequence[Entrant],
    fixtures: Sequence[Fixture],
    current: int,
    brackets: Mapping[int, Sequence[int | None]],
) -> Progress:
    """Move the event on from its recorded results: withdraw players out of time twice in a
    row, replay undecided knockout matches, pair the next round once this one is over, or end.

    ``current`` is the round being played (0 before the first); ``brackets`` are the knockout
    rounds' brackets so far.
    """
    late = lapsed_twice(entrants, fixtures)
    withdrawn = {user_id: TIMEOUTS for user_id in late}
    people = [replace(e, withdrawn=TIMEOUTS) if e.user_id in late else e for e in entrants]
    progress = Progress(current, list(fixtures), withdrawn)
    known = dict(brackets)
    while True:
        if format == "knockout" and progress.round:
            bracket = known[progress.round]
            progress.fixtures += _replays(people, bracket, progress.fixtures, progress.round)
        if any(not f.ended for f in progress.fixtures if f.round == progress.round):
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
        progress.fixtures += _fixtures(following)


def _next_round(
    format: Format,
    total_rounds: int,
    people: Sequence[Entrant],
    progress: Progress,
    brackets: Mapping[int, Sequence[int | None]],
) -> Round | None:
    """The next round's pairings and byes, or ``None`` when the event is over."""
    players = [e.player for e in people]
    history = [f.game for f in progress.fixtures]
    number = progress.round + 1
    if sum(not p.withdrawn for p in players) < 2:
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
    players = [e.player for e in people]
    if progress.round == 0:
        return knockout_bracket(players)
    history = [f.game for f in progress.fixtures]
    return knockout_next_entrants(players, brackets[progress.round], history)


def _fixtures(round_: Round) -> list[Fixture]:
    """The round's pairings board by board, then its byes (each an ended game, a win)."""
    played = [
        Fixture(round_.number, board, pairing.seat0, pairing.seat1)
        for board, pairing in enumerate(round_.pairings)
    ]
    start = len(played)
    byes = [
        Fixture(round_.number, start + i, player, None, ended=True, score0=1.0)
        for i, player in enumerate(round_.byes)
    ]
    return played + byes


def _replays(
    people: Sequence[Entrant],
    bracket: Sequence[int | None],
    fixtures: Sequence[Fixture],
    number: int,
) -> list[Fixture]:
    """The next game of each knockout match of the round whose games so far left it undecided
    (a draw, or no result) while both players are still in."""
    players = [e.player for e in people]
    active = {e.user_id for e in people if e.withdrawn is None}
    replays = []
    for board_games in _matches_of(fixtures, number).values():
        if any(not f.ended for f in board_games):
            continue
        first = board_games[0]
        assert first.seat1 is not None
        pairing = Pairing(first.seat0, first.seat1)
        games = [f.game for f in board_games]
        if knockout_winner(players, pairing, games) is not None:
            continue
        if not {pairing.seat0, pairing.seat1} <= active:
            continue
        seats = knockout_next_game(pairing, games)
        assert seats is not None  # undecided: another game is due
        replays.append(
            Fixture(number, first.board, seats.seat0, seats.seat1, replay=len(board_games))
        )
    return replays


def _matches_of(fixtures: Sequence[Fixture], number: int) -> dict[int, list[Fixture]]:
    """The round's games between two players, by board, in the order played."""
    boards: dict[int, list[Fixture]] = {}
    for fixture in sorted(fixtures, key=lambda f: (f.board, f.replay)):
        if fixture.round == number and not fixture.is_bye:
            boards.setdefault(fixture.board, []).append(fixture)
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
    table = table_of(format, people, progress.fixtures)
    staying = [s.player for s in table if not s.withdrawn]
    return staying[0] if staying else (table[0].player if table else None)


def table_of(
    format: Format, people: Sequence[Entrant], fixtures: Sequence[Fixture]
) -> list[Standing]:
    """The standings of a Swiss or round robin from the games so far."""
    assert format != "knockout", "a knockout has a bracket, not a table"
    return standings(format, [e.player for e in people], [f.game for f in fixtures])
