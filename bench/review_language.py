"""What showing a review in a language other than English costs: the review computed again in
the reader's language, beside reading the kept English one.

The service keeps a match's review in English (``match_reviews``); a reader of another
language gets it computed again from the match's log, in theirs (``Replays.review``). For the
same finished matches as ``bench.review`` (built-in players, each game and option variant),
this times, per match: the baseline, measured in the same run, reading the kept review (its
stored JSON decoded and loaded, as the service reads the column), and the review computed
inside ``bot.i18n.speaking("de")``, as a German reader gets it. The database read of the match
and of the kept review is common to both and left out.

    python -m bench.review_language [--matches N]
"""

from __future__ import annotations

import argparse
import json
import time

import games
from bench._common import percentile, print_table
from bench.review import VARIANTS, finished_match
from bot.i18n import speaking
from games.review import Review, review


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=50, help="matches per variant")
    args = parser.parse_args()
    rows = []
    for name, options in VARIANTS:
        game = games.get(name)
        played = [finished_match(game, options, seed) for seed in range(args.matches)]
        review(name, options, 0, played[0][0], outcome=played[0][1])  # solver tables built
        reads: list[float] = []
        computed: list[float] = []
        for seed, (log, ended) in enumerate(played):
            # German first: the English review kept below would warm this match's solver caches.
            with speaking("de"):
                started = time.perf_counter()
                review(name, options, seed, log, outcome=ended)
                computed.append(time.perf_counter() - started)
            kept = json.dumps(review(name, options, seed, log, outcome=ended).dump())
            started = time.perf_counter()
            Review.load(json.loads(kept))
            reads.append(time.perf_counter() - started)
        rows.append(
            (
                name + "".join(f" {k}={v}" for k, v in options.items()),
                len(computed),
                f"{percentile(reads, 0.5) * 1e3:.3f}",
                f"{percentile(reads, 0.99) * 1e3:.3f}",
                f"{percentile(computed, 0.5) * 1e3:.2f}",
                f"{percentile(computed, 0.99) * 1e3:.2f}",
            )
        )
    print("A review shown in German: computed again from the log (de), beside the baseline,")
    print("reading the kept English review (JSON decoded and loaded). Database reads left out.\n")
    print_table(("game", "matches", "kept p50 ms", "kept p99 ms", "de p50 ms", "de p99 ms"), rows)


if __name__ == "__main__":
    main()
