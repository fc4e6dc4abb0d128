"""``python -m bot`` and ``parlor`` as a host starts them, for the tests of what they say before
they connect."""

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
    return run_module(cwd, ["bot"], token=token, **variables)


def run_module(
    cwd: Path, command: list[str], *, token: str | None = "unused", **variables: str
) -> subprocess.CompletedProcess[str]:
    """``python -m COMMAND...`` (``["bot"]``, ``["bot.cli", "web"]``) started in ``cwd`` as
    ``run_bot`` starts the bot."""
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS}
    env["PYTHONPATH"] = str(ROOT)
    if token is not None:
        env["DISCORD_TOKEN"] = token
    env |= variables
    return subprocess.run(
        [sys.executable, "-m", *command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
