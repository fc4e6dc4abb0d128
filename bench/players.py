"""How fast and how strong the built-in players are.

For each game (default rules) and level, whole matches are played against the ``easy`` player
and every decision of the measured player is timed; ``easy`` (a random legal action) is the
baseline in the same run. A first match in a fresh interpreter is timed apart: it fills the
caches later decisions read. Then the import time of ``games.players`` next to ``games``, the
``hard`` Safe Cracker on larger variants, and the Flag Chase win rates of ``hard`` against
``easy`` and against a greedy straight-line walker.

    python -m bench.players [--matches N] [--flag-matches N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import games
from bench._common import percentile, print_table
from games.base import JSON, Ask, Outcome, Seat, other
from games.flag import Action as FlagAction
from games.flag import Move
from games.flag import View as FlagView
from games.players import LEVELS, AnyPlayer, player_for
from games.players.base import random_action

IMPORT_RUNS = 5
SAFE_VARIANTS: tuple[dict[str, JSON], ...] = (
    {"digits": 4, "length": 4},
    {"digits": 6, "length": 5},
    {"digits": 9, "length": 6},
)


@dataclass(frozen=True)
class GreedyWalker:
    """The Flag Chase baseline: walks straight at the other flag and never sets a trap.

    It steps to the neighbour nearest the flag in moves, then in straight-line distance (ties
    at random); with no move to make it takes any legal action.
    """

    def choose(
        self, view: FlagView, ask: Ask, legal: Sequence[FlagAction], rng: random.Random
    ) -> FlagAction:
        assert view.seat is not None
        row, col = view.flags[other(view.seat)]
        moves = [action for action in legal if isinstance(action, Move)]
        if not moves:
            return random_action(legal, rng)

        def remaining(move: Move) -> tuple[int, int]:
            dr, dc = abs(move.row - row), abs(move.col - col)
            return max(dr, dc), dr * dr + dc * dc

        nearest = min(map(remaining, moves))
        return rng.choice([move for move in moves if remaining(move) == nearest])


@dataclass
class Match:
    """A finished match: its outcome and how long each seat took over each decision."""

    outcome: Outcome
    seconds: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))


def play(
    name: str, players: Sequence[AnyPlayer], seed: int, options: Mapping[str, JSON] | None = None
) -> Match:
    """A whole match of ``players`` (seat 0 first), every decision from the seat's view."""
    game = games.get(name)
    rng = random.Random(seed)
    state = game.new(dict(options or {}), seed)
    seconds: tuple[list[float], list[float]] = ([], [])
    while (outcome := game.outcome(state)) is None:
        seat = min(game.to_act(state))
        view, ask = game.view(state, seat), game.ask(state, seat)
        legal = game.legal_actions(state, seat)
        start = time.perf_counter()
        action = players[seat].choose(view, ask, legal, rng)
        seconds[seat].append(time.perf_counter() - start)
        state, _ = game.apply(state, seat, action)
    return Match(outcome, seconds)


def wins(name: str, player: AnyPlayer, opponent: AnyPlayer, matches: int) -> tuple[int, int]:
    """Matches ``player`` wins and draws against ``opponent``, taking seat 0 every other one."""
    won = drawn = 0
    for seed in range(matches):
        seat: Seat = seed % 2
        pair = (player, opponent) if seat == 0 else (opponent, player)
        outcome = play(name, pair, seed).outcome
        won += outcome.winner == seat
        drawn += outcome.winner is None
    return won, drawn


def import_seconds(module: str) -> float:
    """The median time a fresh interpreter takes to import ``module``."""
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    runs = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, check=True).stdout)
        for _ in range(IMPORT_RUNS)
    ]
    return statistics.median(runs)


def first_match_slowest(name: str) -> float:
    """The ``hard`` player's slowest decision over one match against ``easy``, as seat 0."""
    return max(play(name, (player_for(name, "hard"), player_for(name, "easy")), 0).seconds[0])


def cold_seconds(name: str) -> float:
    """``first_match_slowest`` in a fresh interpreter, where no cache is filled yet."""
    code = f"from bench.players import first_match_slowest; print(first_match_slowest({name!r}))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    return float(run.stdout)


def decision_rows(matches: int) -> list[list[Any]]:
    rows = []
    for name in games.GAMES:
        for level in LEVELS:
            player, easy = player_for(name, level), player_for(name, "easy")
            seconds: list[float] = []
            for seed in range(matches):
                seat = seed % 2
                pair = (player, easy) if seat == 0 else (easy, player)
                seconds += play(name, pair, seed).seconds[seat]
            rows.append(
                [
                    f"{name} {level}",
                    len(seconds),
                    1000 * percentile(seconds, 0.5),
                    1000 * percentile(seconds, 0.99),
                    1000 * max(seconds),
                ]
            )
    return rows


def safe_variant_rows(matches: int) -> list[list[Any]]:
    hard, easy = player_for("safe", "hard"), player_for("safe", "easy")
    rows = []
    for options in SAFE_VARIANTS:
        seconds: list[float] = []
        for seed in range(matches):
            seconds += play("safe", (hard, easy), seed, options).seconds[0]
        shape = f"{options['length']} digits 1-{options['digits']}"
        rows.append(
            [
                f"safe hard, {shape}",
                len(seconds),
                1000 * percentile(seconds, 0.5),
                1000 * percentile(seconds, 0.99),
                1000 * max(seconds),
                len(seconds) / matches,
            ]
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=100, help="matches per game and level")
    parser.add_argument("--flag-matches", type=int, default=1000, help="Flag Chase matches")
    args = parser.parse_args()

    print("== import, fresh interpreter (median of 5)")
    games_s, players_s = import_seconds("games"), import_seconds("games.players")
    print_table(
        ["module", "ms"],
        [["games", 1000 * games_s], ["games.players", 1000 * players_s]],
    )
    print(f"games.players adds {1000 * (players_s - games_s):.0f} ms to the import of games\n")

    print("== hard's slowest decision over a first match in a fresh interpreter (caches empty)")
    print_table(["game", "ms"], [[name, 1000 * cold_seconds(name)] for name in games.GAMES])

    print(f"\n== decisions against easy, default rules, {args.matches} matches each")
    headers = ["game level", "decisions", "p50 ms", "p99 ms", "max ms"]
    print_table(headers, decision_rows(args.matches))

    print(f"\n== safe hard on larger variants, against easy, {args.matches // 10} matches each")
    headers = ["variant", "decisions", "p50 ms", "p99 ms", "max ms", "guesses/match"]
    print_table(headers, safe_variant_rows(max(1, args.matches // 10)))

    print(f"\n== flag hard, {args.flag_matches} matches each, seats alternating")
    hard = player_for("flag", "hard")
    rows = []
    for label, opponent in (("easy", player_for("flag", "easy")), ("walker", GreedyWalker())):
        won, drawn = wins("flag", hard, opponent, args.flag_matches)
        lost = args.flag_matches - won - drawn
        rows.append([f"against {label}", won, drawn, lost, 100 * won / args.flag_matches])
    print_table(["opponent", "won", "drawn", "lost", "won %"], rows)


if __name__ == "__main__":
    main()
