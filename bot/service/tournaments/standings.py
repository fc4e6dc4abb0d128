"""Tournament standings: points, then the format's tie-breaks, then a shared rank.

Points: 1 a win, 0.5 a draw, 1 a bye; games without a result count nothing anywhere.

Swiss tie-breaks, in order:
- Buchholz: the sum of the points of every opponent met at the board.
- Sonneborn-Berger: the points of each opponent beaten, plus half those of each opponent drawn.

Round-robin tie-breaks, in order:
- head-to-head: the points scored in games against the players level on points (a mini-league
  of everyone tied, so it settles ties of two or more);
- Sonneborn-Berger, as above.

A bye has no opponent, so it adds its point to the score and nothing to Buchholz,
Sonneborn-Berger or head-to-head. Opponents count with all their points, withdrawn or not.
Players equal on points and every tie-break share a rank (1, 2, 2, 4), listed by rating.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bot.service.tournaments.pairing import Entrant, Pairing, points

Format = Literal["swiss", "round_robin"]

TIEBREAKS: dict[Format, tuple[str, ...]] = {
    "swiss": ("Buchholz", "Sonneborn-Berger"),
    "round_robin": ("head-to-head", "Sonneborn-Berger"),
}
"""The names of each format's tie-breaks, in the order of ``TournamentStanding.tiebreaks``."""


@dataclass(frozen=True)
class TournamentStanding:
    """One player's place in a tournament's table: rank, points and tie-breaks (named by
    ``TIEBREAKS[format]``)."""

    rank: int
    player: int
    points: float
    tiebreaks: tuple[float, ...]
    withdrawn: bool = False


def standings(
    format: Format, players: Sequence[Entrant], history: Sequence[Pairing]
) -> list[TournamentStanding]:
    """Every player, best first, with the tie-breaks of ``format``."""
    score = points(players, history)
    buchholz: dict[int, float] = defaultdict(float)
    sonneborn_berger: dict[int, float] = defaultdict(float)
    head_to_head: dict[int, float] = defaultdict(float)
    for game in history:
        if game.seat1 is None or game.score0 is None:
            continue
        for player in (game.seat0, game.seat1):
            opponent = game.opponent(player)
            earned = game.points(player)
            assert opponent is not None and earned is not None
            buchholz[player] += score[opponent]
            sonneborn_berger[player] += earned * score[opponent]
            if score[opponent] == score[player]:
                head_to_head[player] += earned

    def tiebreaks(player: int) -> tuple[float, ...]:
        if format == "swiss":
            return (buchholz[player], sonneborn_berger[player])
        return (head_to_head[player], sonneborn_berger[player])

    ordered = sorted(
        players,
        key=lambda p: (
            (-score[p.user_id], *(-t for t in tiebreaks(p.user_id))),
            *p.seeding,
            p.user_id,
        ),
    )
    table: list[TournamentStanding] = []
    for place, entrant in enumerate(ordered, start=1):
        key = (score[entrant.user_id], tiebreaks(entrant.user_id))
        tied = table and (table[-1].points, table[-1].tiebreaks) == key
        rank = table[-1].rank if tied else place
        table.append(TournamentStanding(rank, entrant.user_id, *key, withdrawn=not entrant.active))
    return table
