"""``parlor`` as its own process with its answers piped, as a script or a pipe gives them."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.terminal.pty_play import ENGLISH

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Piped:
    status: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()


def piped(
    command: Sequence[str], answers: Sequence[str], env: Mapping[str, str] | None = None
) -> Piped:
    """``command`` run in the repository with ``answers`` on its standard input, one a line;
    the environment's locale is English unless ``env`` says otherwise."""
    environment = {**os.environ, **ENGLISH, "PYTHONPATH": str(REPO), **(env or {})}
    done = subprocess.run(
        command,
        input="".join(f"{answer}\n" for answer in answers),
        capture_output=True,
        text=True,
        cwd=REPO,
        env=environment,
        timeout=60,
        check=False,
    )
    return Piped(done.returncode, done.stdout, done.stderr)


def parlor(*args: str, answers: Sequence[str] = (), env: Mapping[str, str] | None = None) -> Piped:
    """``parlor ARGS`` with ``answers`` piped."""
    return piped([sys.executable, "-m", "bot.cli", *args], answers, env)
