"""The entry point's interpreter tuning, in a process of its own (it changes the whole process)."""

from __future__ import annotations

import subprocess
import sys

from bot.interpreter import SWITCH_INTERVAL, YOUNG_COLLECTION_THRESHOLD

PROBE = """
import gc, sys
from bot.interpreter import tune_interpreter
tune_interpreter()
print(gc.get_threshold()[0], sys.getswitchinterval(), gc.get_freeze_count() > 0)
"""


def test_tune_interpreter_freezes_start_up_and_sets_the_thresholds() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True
    )
    threshold, interval, frozen = result.stdout.split()
    assert int(threshold) == YOUNG_COLLECTION_THRESHOLD
    assert float(interval) == SWITCH_INTERVAL
    assert frozen == "True"
