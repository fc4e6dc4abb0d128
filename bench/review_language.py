"""What showing a review in a language other than English costs: the kept review worded in the
reader's language, beside reading it, and beside computing it again in theirs (as the release
before did for every page a reader of another language opened).

A review is judged once per match and kept with its texts as phrases (``match_reviews``); a
reader of any language gets it worded in theirs (``games.review.worded``). For the same
finished matches as ``bench.review`` (built-in players, each game and option variant), this
times, per match: the baseline, measured in the same run, reading the kept review (its stored
JSON decoded and loaded, as the service reads the column), the kept review read and worded
inside ``bot.i18n.speaking("de")``, as a German reader gets it now, and the review computed
again there, as before. The database read of the match and of the kept review is common to all
and left out.

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
from games.review import Review, review, worded


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
        words: list[float] = []
        computed: list[float] = []
        for seed, (log, ended) in enumerate(played):
            # Computed first: the review kept below would warm this match's solver caches.
            with speaking("de"):
                started = time.perf_counter()
                worded(review(name, options, seed, log, outcome=ended))
                computed.append(time.perf_counter() - started)
            kept = json.dumps(review(name, options, seed, log, outcome=ended).dump())
            started = time.perf_counter()
            Review.load(json.loads(kept))
            reads.append(time.perf_counter() - started)
            with speaking("de"):
                started = time.perf_counter()
                worded(Review.load(json.loads(kept)))
                words.append(time.perf_counter() - started)
        rows.append(
            (
                name + "".join(f" {k}={v}" for k, v in options.items()),
                len(computed),
                f"{percentile(reads, 0.5) * 1e3:.3f}",
                f"{percentile(reads, 0.99) * 1e3:.3f}",
                f"{percentile(words, 0.5) * 1e3:.3f}",
                f"{percentile(words, 0.99) * 1e3:.3f}",
                f"{percentile(computed, 0.5) * 1e3:.2f}",
                f"{percentile(computed, 0.99) * 1e3:.2f}",
            )
        )
    print("A review shown in German: the kept review read and worded in German (now), beside")
    print("the baseline, reading it (JSON decoded and loaded), and computing it again in German")
    print("(before). Database reads left out.\n")
    print_table(
        (
            "game",
            "matches",
            "kept p50 ms",
            "kept p99 ms",
            "worded de p50 ms",
            "worded de p99 ms",
            "computed de p50 ms",
            "computed de p99 ms",
        ),
        rows,
    )


if __name__ == "__main__":
    main()
