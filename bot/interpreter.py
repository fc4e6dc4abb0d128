"""How the bot's processes set the interpreter up at start-up."""

from __future__ import annotations

import gc
import sys

YOUNG_COLLECTION_THRESHOLD = 50_000
"""Allocations between two collections of the youngest generation (CPython's default: 700)."""
SWITCH_INTERVAL = 0.0005
"""Seconds a thread waiting for the interpreter waits before the running one must let it in
(CPython's default: 0.005)."""


def tune_interpreter() -> None:
    """Keep the interpreter's own pauses out of the bot's answers. For the entry point only.

    Everything alive at start-up (modules, classes, settings) lives as long as the process:
    frozen, full garbage collections no longer walk it. The youngest generation is collected
    after 50,000 allocations, not 700: a busy bot allocates that many in a few moves, and each
    collection stalls every thread. And the event loop, woken by Discord while another thread
    runs Python (a database driver's, the SQLite writer's), gets the interpreter within half a
    millisecond instead of five. ``bench.service`` and ``bench.e2e`` show the difference
    (``gc.freeze``, ``gc.set_threshold``, ``sys.setswitchinterval``).
    """
    gc.collect()
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, middle, oldest)
    sys.setswitchinterval(SWITCH_INTERVAL)
