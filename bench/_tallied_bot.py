"""``python -m bench._tallied_bot FILE``: ``python -m bot``, counting every SQL statement and
commit the process sends, written to ``FILE`` as JSON every ``WRITE_EVERY`` seconds for the
benchmark to read between its steps (``bench.e2e``)."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

WRITE_EVERY = 0.1


def tallied(path: Path) -> None:
    """Count statements and commits of every engine from now on, and keep ``path`` current."""
    counts = {"statements": 0, "commits": 0}

    def executed(*_: Any) -> None:
        counts["statements"] += 1

    def committed(*_: Any) -> None:
        counts["commits"] += 1

    event.listen(Engine, "before_cursor_execute", executed)
    event.listen(Engine, "commit", committed)

    def write() -> None:
        written = path.with_suffix(".writing")
        while True:
            written.write_text(json.dumps(counts))
            os.replace(written, path)
            time.sleep(WRITE_EVERY)

    threading.Thread(target=write, name="tally", daemon=True).start()


def main() -> int:
    path = Path(sys.argv.pop(1))
    tallied(path)
    from bot.__main__ import main as run_bot

    return run_bot()


if __name__ == "__main__":
    sys.exit(main())
