"""How long one engine action takes: parse the text, apply it, build the public view.

Random matches of every game are played; each action is timed as ``parse`` + ``apply`` +
``view(state, None)``. The baseline in the same run is the least any immutable engine must do
per action: copy the state with one field changed (``dataclasses.replace``). Target: under
100 microseconds median per action.

    python -m bench.engine [--matches N]
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import time
from typing import Any

import games
from bench._common import percentile, print_table
from games.base import AnyGame

VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("crown", {}),
    ("claim", {}),
    ("claim", {"size": 4, "hidden": True}),
    ("crystal", {}),
    ("flag", {}),
    ("safe", {}),
)


def time_matches(
    game: AnyGame, options: dict[str, Any], matches: int
) -> tuple[list[float], list[float]]:
    """Seconds per action (parse + apply + public view), and per baseline copy, over ``matches``."""
    rng = random.Random(7)
    actions: list[float] = []
    baseline: list[float] = []
    for seed in range(matches):
        state = game.new(options, seed)
        while game.outcome(state) is None:
            seat = rng.choice(sorted(game.to_act(state)))
            legal = game.legal_actions(state, seat)
            text = str(legal[rng.randrange(len(legal))])
            started = time.perf_counter()
            action = game.parse(state, seat, text)
            next_state, _ = game.apply(state, seat, action)
            game.view(next_state, None)
            actions.append(time.perf_counter() - started)
            field = dataclasses.fields(state)[0].name
            started = time.perf_counter()
            dataclasses.replace(state, **{field: getattr(state, field)})
            baseline.append(time.perf_counter() - started)
            state = next_state
    return actions, baseline


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=300, help="random matches per game")
    args = parser.parse_args()
    rows = []
    for name, options in VARIANTS:
        actions, baseline = time_matches(games.get(name), options, args.matches)
        label = name + "".join(f" {k}={v}" for k, v in options.items())
        rows.append(
            (
                label,
                len(actions),
                f"{percentile(actions, 0.5) * 1e6:.1f}",
                f"{percentile(actions, 0.99) * 1e6:.1f}",
                f"{percentile(baseline, 0.5) * 1e6:.1f}",
            )
        )
    print("Engine action = parse + apply + public view; baseline = dataclasses.replace(state)")
    print("Target: median under 100 us per action.\n")
    print_table(("game", "actions", "p50 us", "p99 us", "baseline p50 us"), rows)


if __name__ == "__main__":
    main()
