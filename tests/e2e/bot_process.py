"""``python -m bot`` as a child process against the fake Discord, as a host would run it.

The child reads its settings from the environment only (it runs in the test's temporary
directory, where no ``.env`` is), logs to stderr, and is pointed at the fake with
``DISCORD_API_BASE_URL`` and ``DISCORD_GATEWAY_URL``. The fake runs in the test's event loop, so
the child is spawned with asyncio and its stderr read as it comes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator, Mapping
from pathlib import Path

from .fake_discord import FakeDiscord

ROOT = Path(__file__).resolve().parents[2]
READY = "Logged in as"
"""What the bot logs once it is connected and ready."""
WAIT = 30.0
"""Seconds a test waits for a line or an exit before it fails (start-up imports take a while)."""


def bot_environment(tmp_path: Path, fake: FakeDiscord | None, **settings: str) -> dict[str, str]:
    """The environment of a child bot: none of the host's Parlor settings, the fake's URLs."""
    names = ("DISCORD_", "DATABASE_URL", "DEV_GUILD_ID", "LOG_LEVEL", "SWEEP_INTERVAL")
    env = {k: v for k, v in os.environ.items() if not k.startswith(names)}
    env["PYTHONPATH"] = str(ROOT)
    env["DATABASE_URL"] = f"sqlite+aiosqlite:///{tmp_path / 'parlor.db'}"
    if fake is not None:
        env["DISCORD_TOKEN"] = fake.token
        env["DISCORD_API_BASE_URL"] = fake.api_base
        env["DISCORD_GATEWAY_URL"] = fake.gateway_url
    env.update(settings)
    return env


class BotProcess:
    """A running ``python -m bot``; ``lines`` is its stderr so far."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self._changed = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def start(cls, cwd: Path, env: Mapping[str, str]) -> BotProcess:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            cwd=cwd,
            env=dict(env),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        return cls(process)

    async def _read(self) -> None:
        assert self.process.stderr is not None
        async for raw in self.process.stderr:
            self.lines.append(raw.decode(errors="replace").rstrip("\n"))
            self._changed.set()
        self._changed.set()

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    async def wait_for_line(self, text: str, *, timeout: float = WAIT) -> str:  # noqa: ASYNC109
        """The first stderr line containing ``text``; fails if the process ends without one."""

        async def found() -> str:
            while True:
                for line in self.lines:
                    if text in line:
                        return line
                if self._reader.done():
                    raise AssertionError(f"the bot exited without logging {text!r}:\n{self.output}")
                self._changed.clear()
                await self._changed.wait()

        try:
            return await asyncio.wait_for(found(), timeout)
        except TimeoutError:
            raise AssertionError(f"no {text!r} line in {timeout} s:\n{self.output}") from None

    def send_signal(self, signum: signal.Signals) -> None:
        self.process.send_signal(signum)

    async def wait(self, *, timeout: float = WAIT) -> int:  # noqa: ASYNC109
        """The exit status, once the process has ended and its stderr is read."""
        status = await asyncio.wait_for(self.process.wait(), timeout)
        await asyncio.wait_for(self._reader, timeout)
        return status

    async def kill(self) -> None:
        """End the process if it still runs (a test's clean-up)."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.process.wait()
        with contextlib.suppress(asyncio.CancelledError):
            self._reader.cancel()
            await self._reader


@contextlib.asynccontextmanager
async def bot_process(
    tmp_path: Path, fake: FakeDiscord | None, **settings: str
) -> AsyncIterator[BotProcess]:
    """A child bot for the block, killed at its end if it still runs."""
    running = await BotProcess.start(tmp_path, bot_environment(tmp_path, fake, **settings))
    try:
        yield running
    finally:
        await running.kill()
