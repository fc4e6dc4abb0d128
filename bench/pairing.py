"""How long a late Swiss round takes to pair, for 64, 128 and 256 players.

Simulated Swiss events (random ratings, results drawn from the rating difference with one game
in ten drawn, one player in a hundred withdrawing each round) are paired round by round with
``swiss_round``, for the usual ceil(log2(players)) rounds; the last two rounds are the late ones
timed. The baseline in the same run pairs the same players (less the bye) with one matching on
the complete graph of every pair not yet met, priced by squared point difference alone: the plain
approach, without seats, byes or a shape among equals. Its squared-difference total is the least
possible, so the pairing's total must equal it. Target: at most 1 s for a late round of 256.

    python -m bench.pairing [--players 64,128,256] [--events N] [--rounds N] [--quick]
"""

from __future__ import annotations

import argparse
import itertools
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import rustworkx as rx

from bench._common import percentile, print_table
from bot.service.tournaments.pairing import Entrant, Pairing, points, swiss_round, swiss_round_count

DRAW_SHARE = 0.1
WITHDRAWAL_SHARE = 0.01


@dataclass(frozen=True)
class LateRound:
    """One late round: the pairing's and the baseline's seconds, and both squared totals.

    ``least_squares`` is None when no pairing without a repeat exists, so the baseline has none.
    """

    pairing: float
    baseline: float
    squares: float
    least_squares: float | None


def result(rng: random.Random, first: float, second: float) -> float:
    """Seat 0's score, drawn from the two ratings (the Elo expectation), some games drawn."""
    if rng.random() < DRAW_SHARE:
        return 0.5
    expected = 1 / (1 + 10 ** ((second - first) / 400))
    return 1.0 if rng.random() < expected else 0.0


def complete_graph_pairs(
    players: Sequence[int], score: dict[int, float], met: set[frozenset[int]]
) -> list[tuple[int, int]]:
    """The baseline: one min-cost matching over every pair not yet met."""
    graph = rx.PyGraph()
    graph.add_nodes_from(players)
    ceiling = 4 * max((score[p] for p in players), default=0) ** 2 + 1
    graph.add_edges_from(
        [
            (i, j, int(ceiling - 4 * (score[a] - score[b]) ** 2))
            for (i, a), (j, b) in itertools.combinations(enumerate(players), 2)
            if frozenset((a, b)) not in met
        ]
    )
    mates = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    return [(players[i], players[j]) for i, j in mates]


def squares(pairs: Sequence[tuple[int, int]], score: dict[int, float]) -> float:
    return sum((score[a] - score[b]) ** 2 for a, b in pairs)


def run_event(size: int, seed: int, rounds: int) -> list[LateRound]:
    """One simulated event of ``rounds`` rounds: the figures of its last two."""
    rng = random.Random(seed)
    players = [Entrant(i, rng.gauss(1500, 250)) for i in range(1, size + 1)]
    rating = {p.user_id: p.rating for p in players}
    history: list[Pairing] = []
    late: list[LateRound] = []
    for number in range(1, rounds + 1):
        players = [
            replace(p, withdrawn="left") if p.active and rng.random() < WITHDRAWAL_SHARE else p
            for p in players
        ]
        started = time.perf_counter()
        round_ = swiss_round(players, history, number)
        elapsed = time.perf_counter() - started
        if number > rounds - 2:
            score = points(players, history)
            met = {frozenset((g.seat0, g.seat1)) for g in history if g.seat1 is not None}
            byes = {g.seat0 for g in round_ if g.seat1 is None}
            paired = [p.user_id for p in players if p.active and p.user_id not in byes]
            started = time.perf_counter()
            plain = complete_graph_pairs(paired, score, met)
            baseline = time.perf_counter() - started
            ours = [(p.seat0, p.seat1) for p in round_ if p.seat1 is not None]
            least = squares(plain, score) if len(plain) == len(ours) else None
            late.append(LateRound(elapsed, baseline, squares(ours, score), least))
        for game in round_:
            if game.seat1 is None:
                history.append(game)
            else:
                score0 = result(rng, rating[game.seat0], rating[game.seat1])
                history.append(replace(game, score0=score0, ended=True))
    return late


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--players", default="64,128,256", help="comma-separated event sizes (default: %(default)s)"
    )
    parser.add_argument("--events", type=int, default=5, help="simulated events per size")
    parser.add_argument(
        "--rounds", type=int, help="rounds per event (default: ceil(log2(players)))"
    )
    parser.add_argument("--quick", action="store_true", help="16 and 32 players, one event each")
    args = parser.parse_args()
    sizes = [16, 32] if args.quick else [int(size) for size in args.players.split(",")]
    events = 1 if args.quick else args.events
    rows = []
    for size in sizes:
        rounds = args.rounds or swiss_round_count(size)
        late = [r for seed in range(events) for r in run_event(size, seed, rounds)]
        pairing = [r.pairing for r in late]
        baseline = [r.baseline for r in late]
        rows.append(
            (
                f"{size} players",
                rounds,
                len(late),
                1000 * percentile(pairing, 0.5),
                1000 * max(pairing),
                1000 * percentile(baseline, 0.5),
                1000 * max(baseline),
                f"{sum(r.squares == r.least_squares for r in late)}"
                f"/{sum(r.least_squares is not None for r in late)}",
            )
        )
    print("Late Swiss rounds (the last two of each event), paired with swiss_round;")
    print("baseline = one min-cost matching of the same players on the complete graph;")
    print("least squares = rounds whose squared point differences equal the baseline's, of")
    print("those where a pairing without a repeat exists.")
    print("Target: at most 1 s for a late round of 256 players.\n")
    print_table(
        (
            "event",
            "rounds",
            "late rounds",
            "pairing p50 ms",
            "pairing max ms",
            "baseline p50 ms",
            "baseline max ms",
            "least squares",
        ),
        rows,
    )


if __name__ == "__main__":
    main()
