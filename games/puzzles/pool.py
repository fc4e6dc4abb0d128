"""The public pool: puzzles from matches between the built-in players, for servers with too
few matches of their own.

``generate(game, count)`` plays matches with the ``hard`` player in one seat or both, from
fixed seeds, and keeps the first ``count`` puzzles of different positions (as their player
saw them). It is deterministic but takes seconds per game, so its result is shipped, gzipped,
as ``pool.json.gz`` beside this module, and ``pool(game, count)`` reads it; a test checks that
generating again reproduces it. ``python -m games.puzzles.pool`` writes it again.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
from functools import cache
from importlib import resources
from pathlib import Path

from games.base import JSON, AnyGame
from games.puzzles import find
from games.puzzles.model import FORMAT_VERSION, Puzzle
from games.review.replay import Played, played

SIZE = 200
"""Puzzles shipped per game (fewer where the matches give fewer)."""
PAIRINGS: tuple[tuple[str, str], ...] = (
    ("hard", "hard"),
    ("easy", "hard"),
    ("hard", "easy"),
    ("normal", "hard"),
    ("hard", "normal"),
)
"""The levels of the two seats, by match seed in turn. The ``hard`` player against itself
alone gives few positions: it plays Crystal Capture and Number Claim perfectly from a start
that rarely changes (8 different Crystal puzzles in 2,000 matches, no Claim puzzle at all), so
it meets the other levels, in either seat, too."""
MATCHES = 4000
"""Matches played per game at most."""
GAMES = ("claim", "crown", "crystal", "safe")
"""The games that give puzzles (Flag Chase's review is never exact: docs/puzzles.md)."""
FILE = "pool.json.gz"


def generate(game: str, count: int = SIZE) -> list[Puzzle]:
    """The first ``count`` puzzles of different positions from matches of the built-in
    players (``PAIRINGS``) on ``game``'s default options, seeds 0, 1, ..., best first within
    each match (``find``)."""
    import games

    if game not in GAMES:
        games.get(game)  # an unknown game is refused with the valid names
        return []
    rules = games.get(game)
    seen: set[str] = set()
    kept: list[Puzzle] = []
    for seed in range(MATCHES):
        if len(kept) >= count:
            break
        for puzzle in find(game, {}, seed, _match(rules, seed)):
            shown = _as_seen(rules, puzzle)
            if shown not in seen and len(kept) < count:
                seen.add(shown)
                kept.append(puzzle)
    return kept


def _match(rules: AnyGame, seed: int) -> list[Played]:
    from games.players import decide, player_for

    rng = random.Random(f"pool:{rules.name}:{seed}")
    players = [player_for(rules.name, level) for level in PAIRINGS[seed % len(PAIRINGS)]]
    state = rules.new({}, seed)
    log: list[Played] = []
    while rules.outcome(state) is None:
        seat = min(rules.to_act(state))
        action = decide(rules, state, seat, players[seat], rng)
        log.append((seat, rules.ask(state, seat), str(action)))
        state, _ = rules.apply(state, seat, action)
    return log


def _as_seen(rules: AnyGame, puzzle: Puzzle) -> str:
    """The puzzle's position as its player saw it: the same position reached in another
    match (Crystal Capture always starts alike) is the same puzzle."""
    state = rules.new(puzzle.options, puzzle.seed)
    for step in played(rules, puzzle.options, puzzle.seed, puzzle.actions):
        state = step.after
    return f"{puzzle.ask}:{rules.view(state, puzzle.seat)!r}"


def pool(game: str, count: int = SIZE) -> list[Puzzle]:
    """The first ``count`` puzzles of the shipped pool of ``game`` (all there are, if fewer).
    Raises ``KeyError`` for an unknown game."""
    import games

    games.get(game)
    return [Puzzle.load(data) for data in _shipped().get(game, [])[:count]]


@cache
def _shipped() -> dict[str, list[JSON]]:
    data = json.loads(gzip.decompress(resources.files(__package__).joinpath(FILE).read_bytes()))
    if data.get("version") != FORMAT_VERSION:
        raise ValueError(f"the shipped pool is format {data.get('version')!r}: generate it again")
    shipped: dict[str, list[JSON]] = data["games"]
    return shipped


def write(path: Path, count: int = SIZE) -> None:
    """Generate every game's pool and write it to ``path``, gzipped JSON."""
    data = {
        "version": FORMAT_VERSION,
        "games": {game: [puzzle.dump() for puzzle in generate(game, count)] for game in GAMES},
    }
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    path.write_bytes(gzip.compress(text.encode(), mtime=0))


def main() -> None:
    parser = argparse.ArgumentParser(description="Write the shipped puzzle pool again.")
    parser.add_argument("--count", type=int, default=SIZE, help="puzzles per game")
    args = parser.parse_args()
    path = Path(__file__).with_name(FILE)
    write(path, args.count)
    for game, puzzles in _read(path).items():
        print(f"{game}: {len(puzzles)} puzzles")
    print(f"{path.name}: {path.stat().st_size:,} bytes")


def _read(path: Path) -> dict[str, list[JSON]]:
    games: dict[str, list[JSON]] = json.loads(gzip.decompress(path.read_bytes()))["games"]
    return games


if __name__ == "__main__":
    main()
