"""How long reviewing a finished match takes, per game and option variant.

Random finished matches are made by random play and by the built-in player (``hard``
against ``easy``, and against itself); each is reviewed with ``games.review.review`` from its
log alone, as the service will. Random guessing in a large Safe Cracker shape would take
thousands of guesses, so a match still going after ``LONGEST`` actions ends there with the
seat to act running out of time (reviewed through the game's ``conclude``). The baseline in
the same run replays the same log through the engine (parse and apply each action): the
least a review must do. Target: p99 at most
50 ms per match.

    python -m bench.review [--matches N]
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import games
from bench._common import percentile, print_table
from games.base import AnyGame, Outcome, Reason, other
from games.players import decide, player_for
from games.review import Played, review

VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("crown", {}),
    ("crown", {"hints": "auto"}),
    ("claim", {}),
    ("claim", {"size": 4}),
    ("claim", {"hidden": True}),
    ("claim", {"size": 4, "hidden": True}),
    ("crystal", {}),
    ("flag", {}),
    ("safe", {}),
    ("safe", {"max_guesses": 4}),
    ("safe", {"digits": 4, "length": 4}),
    ("safe", {"digits": 6, "length": 5}),
    ("safe", {"digits": 9, "length": 6}),
)
PAIRINGS: tuple[tuple[str, str], ...] = (("easy", "easy"), ("hard", "easy"), ("hard", "hard"))
"""Random play, the built-in player against random play, and against itself."""
TARGET_MS = 50.0
LONGEST = 200
"""Actions after which a match ends by timeout (Flag Chase ends itself at 200)."""


def finished_match(
    game: AnyGame, options: dict[str, Any], seed: int
) -> tuple[list[Played], Outcome | None]:
    """The log of a match played by a pairing of built-in players chosen by seed, and its
    outcome when it ended by timeout rather than by its rules."""
    rng = random.Random(seed)
    players = [player_for(game.name, level) for level in PAIRINGS[seed % len(PAIRINGS)]]
    state = game.new(options, seed)
    log: list[Played] = []
    while game.outcome(state) is None:
        seat = min(game.to_act(state))
        if len(log) == LONGEST:
            return log, Outcome(other(seat), Reason.TIMEOUT)
        action = decide(game, state, seat, players[seat], rng)
        log.append((seat, game.ask(state, seat), str(action)))
        state, _ = game.apply(state, seat, action)
    return log, None


def time_reviews(
    name: str, options: dict[str, Any], matches: int
) -> tuple[float, list[float], list[float]]:
    """Seconds for the first review of a process (its solver caches cold), then per review
    and per replay of the same log (the baseline) over ``matches``."""
    game = games.get(name)
    played = [finished_match(game, options, seed) for seed in range(matches)]
    log, ended = played[0]
    started = time.perf_counter()
    review(name, options, 0, log, outcome=ended)
    cold = time.perf_counter() - started
    reviews: list[float] = []
    replays: list[float] = []
    for seed, (log, ended) in enumerate(played):
        started = time.perf_counter()
        state = game.new(options, seed)
        for seat, _, text in log:
            state, _ = game.apply(state, seat, game.parse(state, seat, text))
        if ended is not None:
            game.conclude(state, ended)
        replays.append(time.perf_counter() - started)
        started = time.perf_counter()
        review(name, options, seed, log, outcome=ended)
        reviews.append(time.perf_counter() - started)
    return cold, reviews, replays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200, help="matches per variant")
    args = parser.parse_args()
    rows = []
    for name, options in VARIANTS:
        cold, reviews, replays = time_reviews(name, options, args.matches)
        label = name + "".join(f" {k}={v}" for k, v in options.items())
        p99 = percentile(reviews, 0.99) * 1e3
        rows.append(
            (
                label,
                len(reviews),
                f"{percentile(reviews, 0.5) * 1e3:.2f}",
                f"{p99:.2f}",
                f"{max(reviews) * 1e3:.1f}",
                f"{cold * 1e3:.1f}",
                f"{percentile(replays, 0.5) * 1e3:.2f}",
                f"{percentile(replays, 0.99) * 1e3:.2f}",
                "yes" if p99 <= TARGET_MS else "NO",
            )
        )
    print("Review of a finished match, from its log; baseline = replaying the log (parse+apply).")
    print("first = the first review of the process, its solver tables not yet built.")
    print(
        f"Matches: random play, hard against easy, hard against hard. Target: p99 at most "
        f"{TARGET_MS:.0f} ms per match.\n"
    )
    print_table(
        (
            "game",
            "matches",
            "p50 ms",
            "p99 ms",
            "max ms",
            "first ms",
            "replay p50 ms",
            "replay p99 ms",
            "met",
        ),
        rows,
    )


if __name__ == "__main__":
    main()
