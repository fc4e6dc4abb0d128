"""``python -m bot`` as a host starts it, for the tests of what it says before it connects."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bot.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = frozenset(name.upper() for name in Settings.model_fields)


def run_bot(
    cwd: Path, *, token: str | None = "unused", **variables: str
) -> subprocess.CompletedProcess[str]:
    """The bot started in ``cwd`` with ``DISCORD_TOKEN=token`` (unset: ``None``) and
    ``variables``; none of this environment's own Parlor settings."""
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS}
    env["PYTHONPATH"] = str(ROOT)
    if token is not None:
        env["DISCORD_TOKEN"] = token
    env |= variables
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
