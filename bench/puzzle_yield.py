"""How many puzzles finished matches give, per game, and how long finding them takes.

Matches are played by the built-in players: random play (``easy`` against ``easy``) and the
``hard`` player against itself; a match still going after ``LONGEST`` actions ends there by
timeout. Each finished match's puzzles are found with ``games.puzzles.find`` from its log,
as the service does after a match, and the match is reviewed with ``games.review.review``,
the baseline in the same run (finding puzzles makes the review only when it has a puzzle to
mark). Flag Chase gives no puzzles (its review is never exact), so it is played
``--flag-matches`` times only, to show it.

    python -m bench.puzzle_yield [--matches N] [--flag-matches N]
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import games
from bench._common import percentile, print_table
from games.base import Outcome, Reason, other
from games.players import decide, player_for
from games.puzzles import find
from games.review import Played, review

VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("crystal", {}),
    ("claim", {}),
    ("claim", {"size": 4}),
    ("claim", {"hidden": True}),
    ("crown", {}),
    ("crown", {"hints": "auto"}),
    ("safe", {}),
    ("safe", {"max_guesses": 4}),
    ("safe", {"digits": 4, "length": 4}),
    ("flag", {}),
)
LONGEST = 200
"""Actions after which a match ends by timeout (Flag Chase ends itself at 200)."""


def finished_match(
    name: str, options: dict[str, Any], seed: int, level: str
) -> tuple[list[Played], Outcome | None]:
    """A match of the built-in player at ``level`` against itself, and its outcome when it
    ended by timeout rather than by its rules."""
    game = games.get(name)
    rng = random.Random(f"yield:{seed}")
    player = player_for(name, level)
    state = game.new(options, seed)
    log: list[Played] = []
    while game.outcome(state) is None:
        seat = min(game.to_act(state))
        if len(log) == LONGEST:
            return log, Outcome(other(seat), Reason.TIMEOUT)
        action = decide(game, state, seat, player, rng)
        log.append((seat, game.ask(state, seat), str(action)))
        state, _ = game.apply(state, seat, action)
    return log, None


def measure(
    name: str, options: dict[str, Any], matches: int, level: str
) -> tuple[int, list[float], list[float]]:
    """Puzzles found in ``matches`` matches at ``level``, and seconds per match to find them
    and to review it."""
    found = 0
    finding: list[float] = []
    reviewing: list[float] = []
    for seed in range(matches):
        log, ended = finished_match(name, options, seed, level)
        started = time.perf_counter()
        found += len(find(name, options, seed, log, outcome=ended))
        finding.append(time.perf_counter() - started)
        started = time.perf_counter()
        review(name, options, seed, log, outcome=ended)
        reviewing.append(time.perf_counter() - started)
    return found, finding, reviewing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000, help="matches per variant and level")
    parser.add_argument("--flag-matches", type=int, default=20, help="Flag Chase matches")
    args = parser.parse_args()
    rows = []
    for name, options in VARIANTS:
        matches = args.flag_matches if name == "flag" else args.matches
        found_random, find_random, review_random = measure(name, options, matches, "easy")
        found_hard, find_hard, review_hard = measure(name, options, matches, "hard")
        finding, reviewing = find_random + find_hard, review_random + review_hard
        rows.append(
            (
                name + "".join(f" {k}={v}" for k, v in options.items()),
                matches,
                f"{1000 * found_random / max(matches, 1):,.0f}",
                f"{1000 * found_hard / max(matches, 1):,.0f}",
                f"{percentile(finding, 0.5) * 1e3:.2f}",
                f"{percentile(finding, 0.99) * 1e3:.2f}",
                f"{percentile(reviewing, 0.5) * 1e3:.2f}",
                f"{percentile(reviewing, 0.99) * 1e3:.2f}",
            )
        )
    print("Puzzles per 1,000 finished matches: random play (easy against easy) and the hard")
    print("player against itself. Finding a match's puzzles from its log, every match of both;")
    print("baseline = reviewing the same match (games.review.review) in the same run.\n")
    print_table(
        (
            "game",
            "matches each",
            "per 1,000 random",
            "per 1,000 hard",
            "find p50 ms",
            "find p99 ms",
            "review p50 ms",
            "review p99 ms",
        ),
        rows,
    )


if __name__ == "__main__":
    main()
