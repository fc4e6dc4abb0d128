"""Standings: points, tie-breaks and ranks against values worked out by hand."""

from __future__ import annotations

from bot.service.tournaments.pairing import Entrant, Pairing
from bot.service.tournaments.standings import TIEBREAKS, TournamentStanding, standings

FIVE = [Entrant(i, 2000 - 100 * i) for i in range(1, 6)]

# Three Swiss rounds of five players, a bye each round.
SWISS = [
    *(Pairing(1, 1, 2, 1.0), Pairing(1, 3, 4, 0.5), Pairing(1, 5, None, 1.0)),
    *(Pairing(2, 1, 3, 0.5), Pairing(2, 5, 2, 1.0), Pairing(2, 4, None, 1.0)),
    *(Pairing(3, 5, 1, 0.0), Pairing(3, 2, 4, 1.0), Pairing(3, 3, None, 1.0)),
]

# A round robin of five: 2 beat 3 but 3 beat 1, the leader.
ROUND_ROBIN = [
    *(Pairing(1, 2, 3, 1.0), Pairing(1, 1, 4, 1.0)),
    *(Pairing(2, 3, 1, 1.0), Pairing(2, 2, 5, 1.0)),
    *(Pairing(3, 1, 5, 1.0), Pairing(3, 4, 2, 0.5)),
    *(Pairing(4, 1, 2, 1.0), Pairing(4, 3, 4, 1.0)),
    *(Pairing(5, 5, 3, 0.5), Pairing(5, 4, 5, 1.0)),
]


def test_swiss_standings_rank_by_points_then_buchholz_then_sonneborn_berger() -> None:
    # Points: 1 has 2.5; 3 and 5 have 2 with a bye each; 4 has 1.5 with a bye; 2 has 1.
    # Buchholz leaves byes out: 3 met 4 (1.5) and 1 (2.5), 5 met 2 (1) and 1 (2.5).
    # Sonneborn-Berger: 1 beat 2 (1) and 5 (2) and drew 3 (half of 2): 4.
    assert standings("swiss", FIVE, SWISS) == [
        TournamentStanding(1, 1, 2.5, (5.0, 4.0)),
        TournamentStanding(2, 3, 2.0, (4.0, 2.0)),
        TournamentStanding(3, 5, 2.0, (3.5, 1.0)),
        TournamentStanding(4, 4, 1.5, (3.0, 1.0)),
        TournamentStanding(5, 2, 1.0, (6.0, 1.5)),
    ]
    assert TIEBREAKS["swiss"] == ("Buchholz", "Sonneborn-Berger")


def test_round_robin_standings_put_head_to_head_before_sonneborn_berger() -> None:
    # Points: 1 has 3, 2 and 3 have 2.5, 4 has 1.5, 5 has 0.5. 2 beat 3 at the board, though
    # 3 has the better Sonneborn-Berger: it beat 1 (3) and 4 (1.5) and drew 5 (a quarter).
    assert standings("round_robin", FIVE, ROUND_ROBIN) == [
        TournamentStanding(1, 1, 3.0, (0.0, 4.5)),
        TournamentStanding(2, 2, 2.5, (1.0, 3.75)),
        TournamentStanding(3, 3, 2.5, (0.0, 4.75)),
        TournamentStanding(4, 4, 1.5, (0.0, 1.75)),
        TournamentStanding(5, 5, 0.5, (0.0, 1.25)),
    ]


def test_the_same_games_as_a_swiss_go_to_sonneborn_berger_when_buchholz_is_level() -> None:
    table = standings("swiss", FIVE, ROUND_ROBIN)

    # 2 and 3 met everyone else, so their Buchholz is the same: 7.5.
    assert [(s.player, s.tiebreaks) for s in table[1:3]] == [(3, (7.5, 4.75)), (2, (7.5, 3.75))]


def test_players_level_on_everything_share_a_rank() -> None:
    players = [Entrant(i, 1500) for i in range(1, 5)]
    # A cycle: 1 beat 2, 2 beat 3, 3 beat 1, and all three beat 4.
    history = [
        *(Pairing(1, 1, 2, 1.0), Pairing(1, 3, 4, 1.0)),
        *(Pairing(2, 2, 3, 1.0), Pairing(2, 4, 1, 0.0)),
        *(Pairing(3, 3, 1, 1.0), Pairing(3, 2, 4, 1.0)),
    ]

    table = standings("round_robin", players, history)

    assert [(s.rank, s.player, s.points, s.tiebreaks) for s in table] == [
        (1, 1, 2.0, (1.0, 2.0)),
        (1, 2, 2.0, (1.0, 2.0)),
        (1, 3, 2.0, (1.0, 2.0)),
        (4, 4, 0.0, (0.0, 0.0)),
    ]


def test_games_without_a_result_count_nothing_and_withdrawn_players_keep_their_points() -> None:
    players = [Entrant(1, 1600), Entrant(2, 1500, withdrawn="left"), Entrant(3, 1400)]
    history = [Pairing(1, 1, 2, 0.0), Pairing(2, 1, 3)]

    table = standings("swiss", players, history)

    assert table == [
        TournamentStanding(1, 2, 1.0, (0.0, 0.0), withdrawn=True),
        TournamentStanding(2, 1, 0.0, (1.0, 0.0)),
        TournamentStanding(3, 3, 0.0, (0.0, 0.0)),
    ]
