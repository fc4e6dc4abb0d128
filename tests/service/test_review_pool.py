"""The review pool's workers end with the bot's process, even when it is killed outright."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

CHILD = """
import os, signal
from bot.service.reviews import review_pool
pool = review_pool(2)
pids = {pool.submit(os.getpid).result() for _ in range(8)}
print(" ".join(map(str, sorted(pids))), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A worker that exited but is not yet reaped by init shows as a zombie: gone for us.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[-1][0] != "Z"
    except FileNotFoundError:
        return False


def test_workers_exit_when_the_bot_is_killed() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    workers = [int(pid) for pid in done.stdout.split()]
    assert workers, done.stderr
    deadline = time.monotonic() + 20
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if _alive(pid)]
