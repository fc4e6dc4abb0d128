"""``parlor play`` on a pseudo-terminal, answered prompt by prompt, cut into the screens shown.

The command runs as a child process whose standard input, output and error are the terminal,
so it clears screens, hands over and reads secrets without echo exactly as for people. Every
wait is bounded: a prompt that never comes fails the test instead of hanging it.
"""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.terminal import CLEAR

REPO = Path(__file__).resolve().parents[2]

PROMPT_WAIT = 30.0
"""Seconds a prompt (or the end) may take to appear before the run is called hung."""

SETTLE = 0.1
"""Seconds without output after something that looks like a prompt, before it is answered."""

CTRL_D = "\x04"
"""Typed alone on a line: the end of input."""

CTRL_C = "\x03"
"""Interrupts the program."""

_KEYS = frozenset({CTRL_D, CTRL_C})
"""Answers sent as they are, without Enter."""

_PROMPT_TAIL = re.compile(r"[:.] \Z")
"""Output waiting for an answer: every prompt ends with a colon or a full stop, then a space."""

_HANDED_TO = re.compile(r"Pass to (.+) and press Enter\.")


@dataclass(frozen=True)
class Screen:
    """What one cleared screen showed, typed echoes included, until it was cleared again."""

    text: str

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @property
    def handed_to(self) -> str | None:
        """The player a hand-over screen asks for, or ``None``."""
        found = _HANDED_TO.search(self.text)
        return None if found is None else found.group(1)

    def asks(self, name: str) -> bool:
        """Whether a prompt on this screen is addressed to ``name``."""
        return any(line.startswith(f"{name}, ") for line in self.lines)

    @property
    def is_final(self) -> bool:
        return "game over" in (self.lines[0] if self.lines else "")


@dataclass(frozen=True)
class Run:
    """A finished ``parlor`` on a terminal: everything it wrote, and its exit status."""

    output: str
    """As the terminal received it, line ends as ``\\n``."""
    status: int

    @property
    def screens(self) -> list[Screen]:
        """The screens in the order shown: what came after each clear."""
        return [Screen(part) for part in self.output.split(CLEAR)[1:]]

    @property
    def before_first_clear(self) -> str:
        return self.output.split(CLEAR)[0]

    @property
    def lines(self) -> list[str]:
        return self.output.splitlines()

    def seen_by(self, name: str) -> list[Screen]:
        """The screens before the end on which ``name`` was asked something."""
        return [s for s in self.screens if s.asks(name) and not s.is_final]


Answer = Callable[[str], str]
"""The answer to the prompt ending ``screen`` (what the current screen shows so far)."""


@dataclass
class Script:
    """Answers by prompt: the first key found in the prompt's line takes its next answer.

    A hand-over ("Pass to …") is answered with Enter. A prompt no key matches, or a key whose
    answers have run out, ends the input (Ctrl+D).
    """

    answers: Mapping[str, Sequence[str]]
    asked: list[str] = field(default_factory=list)
    """Every prompt line answered, in order."""
    _left: dict[str, Iterator[str]] = field(init=False)

    def __post_init__(self) -> None:
        self._left = {key: iter(values) for key, values in self.answers.items()}

    def __call__(self, screen: str) -> str:
        prompt = screen.rstrip("\n").rsplit("\n", 1)[-1]
        self.asked.append(prompt)
        if _HANDED_TO.search(prompt):
            return ""
        for key, left in self._left.items():
            if key in prompt:
                return next(left, CTRL_D)
        return CTRL_D


ENGLISH = {"LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}
"""An environment whose locale asks for no language: ``parlor play`` speaks English."""


def run_parlor(args: Sequence[str], answer: Answer, env: Mapping[str, str] | None = None) -> Run:
    """``parlor ARGS`` on a new pseudo-terminal, each prompt answered by ``answer``; ``env``
    adds to the environment, whose locale is otherwise English."""
    environment = {**os.environ, **ENGLISH, "PYTHONPATH": str(REPO), "TERM": "xterm"}
    environment.update(env or {})
    command = [sys.executable, "-m", "bot.cli", *args]
    pid, fd = pty.fork()
    if pid == 0:  # the child: becomes parlor, its terminal the pty
        try:
            os.chdir(REPO)
            os.execve(sys.executable, command, environment)
        finally:
            os._exit(127)
    received = bytearray()
    try:
        _converse(fd, received, answer)
        status = _exit_status(pid)
    finally:
        _stop(pid)
        os.close(fd)
    return Run(received.decode().replace("\r\n", "\n"), status)


def _converse(fd: int, received: bytearray, answer: Answer) -> None:
    """Read until the end, answering each prompt; fail if nothing comes for ``PROMPT_WAIT``."""
    answered_at = 0
    while True:
        chunk = _read(fd, PROMPT_WAIT)
        if chunk is None:
            raise AssertionError(
                f"no prompt and no end for {PROMPT_WAIT}s; output:\n{received.decode()}"
            )
        if not chunk:
            return
        received += chunk
        text = received[answered_at:].decode(errors="replace")
        if not _PROMPT_TAIL.search(text):
            continue
        more = _read(fd, SETTLE)
        if more:
            received += more
            continue
        if more == b"":
            return
        screen = received.decode().replace("\r\n", "\n").rsplit(CLEAR, 1)[-1]
        reply = answer(screen)
        os.write(fd, reply.encode() if reply in _KEYS else f"{reply}\r".encode())
        answered_at = len(received)


def _read(fd: int, timeout: float) -> bytes | None:
    """What the terminal has within ``timeout``: ``None`` if nothing, ``b""`` at its end."""
    ready, _, _ = select.select([fd], [], [], timeout)
    if not ready:
        return None
    try:
        return os.read(fd, 65536)
    except OSError:  # EIO: the child closed the terminal
        return b""


def _exit_status(pid: int) -> int:
    deadline = time.monotonic() + PROMPT_WAIT
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    raise AssertionError(f"parlor did not exit within {PROMPT_WAIT}s of closing its terminal")


def _stop(pid: int) -> None:
    """Kill the child if it is still running (a failed test), and reap it."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return
    if not done:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
