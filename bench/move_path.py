"""One move's path through the code: which project functions one button press runs, and where.

The real bot runs in this process against the loopback fake Discord (``tests/e2e/fake_discord``),
on a SQLite file of its own, with a clock that does not move and sweeps too rare to run. Two
members start a Crystal Capture match; the first takes a crystal by button (a warm-up, not
measured), then the second takes one, and for that press a ``sys.setprofile`` hook records every
function of ``games/``, ``db/`` and ``bot/`` entered (comprehensions and lambdas left out):

* from discord.py's ``ConnectionState.parse_interaction_create`` (the interaction reaching the
  bot's dispatch) to the use case's COMMIT (an SQLAlchemy ``commit`` listener on the engine, the
  first after the engine has applied the move);
* from that COMMIT to the first request leaving for Discord after it (the board's edit: the
  press's own response);
* the project frames on the stack when ``games/crystal.py``'s ``apply`` is first entered: the
  hops from the dispatch to the engine.

It prints the counts, then for each phase the modules in the order first entered, each with its
functions in that order, and the stack under ``apply``. Deterministic (seed and clock fixed), a
few seconds.

    python -m bench.move_path
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import discord.http
import discord.state
import discord.webhook.async_
from pydantic import SecretStr
from sqlalchemy import event

from bot.chat.components import Verb
from bot.settings import SWEEP_HIGH, Settings
from tests.e2e.bot_fixtures import Clock, Table
from tests.e2e.fake_discord import FakeDiscord, FakeMember

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tuple(str(ROOT / package) + "/" for package in ("games", "db", "bot"))
"""Where project code lives: only frames of these files are counted."""
ENGINE = str(ROOT / "games" / "crystal.py")
DISPATCH = discord.state.ConnectionState.parse_interaction_create.__code__
"""discord.py's handling of INTERACTION_CREATE: the press reaches the bot."""
REQUESTS = frozenset(
    {
        discord.http.HTTPClient.request.__code__,
        discord.webhook.async_.AsyncWebhookAdapter.request.__code__,
    }
)
"""Where every request to Discord leaves, with the bot's token or an interaction's."""


@dataclass
class Phase:
    """The project functions entered in one phase, in the order first entered."""

    name: str
    functions: dict[tuple[str, str], None] = field(default_factory=dict)

    def modules(self) -> dict[str, list[str]]:
        """Each module, in the order first entered, with its functions in that order."""
        grouped: dict[str, list[str]] = {}
        for module, function in self.functions:
            grouped.setdefault(module, []).append(function)
        return grouped


@dataclass
class Trace:
    """What one press ran: its two phases, the stack under the engine, the request that ended."""

    to_commit: Phase = field(default_factory=lambda: Phase("dispatch to COMMIT"))
    to_board: Phase = field(default_factory=lambda: Phase("COMMIT to the board's edit"))
    engine_stack: list[tuple[str, str]] = field(default_factory=list)
    request: str = ""
    commits: int = 0


class Recorder:
    """A profile hook that files each project function entered under the phase running."""

    def __init__(self, others: set[asyncio.Task[Any]]) -> None:
        self.trace = Trace()
        self._phase: Phase | None = None
        self._done = False
        self._names: dict[CodeType, tuple[str, str] | None] = {}
        self._others = others
        """Tasks running before the press (sweeps, the members' side): not the press's."""
        self._entered: dict[int, FrameType] = {}
        """Frames entered so far, by id (held, so no id is reused): a coroutine resumed is
        not a function called again."""

    def committed(self, connection: object) -> None:
        """The engine's ``commit`` listener: the use case's COMMIT ends the first phase."""
        self.trace.commits += 1
        if self._phase is self.trace.to_commit and self.trace.engine_stack:
            self._phase = self.trace.to_board

    def __call__(self, frame: FrameType, what: str, arg: object) -> None:
        if what != "call" or self._done:
            return
        code = frame.f_code
        if self._phase is None:
            if code is DISPATCH:
                self._phase = self.trace.to_commit
                self._others.discard(asyncio.current_task())
            return
        if code in REQUESTS:
            if self._phase is self.trace.to_board:
                route = frame.f_locals["route"]
                self.trace.request = f"{route.method} {route.path}"
                self._done = True
            return
        name = self._name(code)
        if name is None or id(frame) in self._entered or asyncio.current_task() in self._others:
            return
        self._entered[id(frame)] = frame
        self._phase.functions.setdefault(name)
        if not self.trace.engine_stack and code.co_filename == ENGINE and code.co_name == "apply":
            self.trace.engine_stack = list(self._stack(frame))

    def _name(self, code: CodeType) -> tuple[str, str] | None:
        """``(module, function)`` for project code, else ``None``; cached per code object."""
        if code not in self._names:
            project = code.co_filename.startswith(PROJECT) and not code.co_name.startswith("<")
            self._names[code] = (_module(code.co_filename), code.co_qualname) if project else None
        return self._names[code]

    def _stack(self, frame: FrameType | None) -> Iterator[tuple[str, str]]:
        """The project frames from ``frame`` outward, outermost first."""
        found = []
        while frame is not None:
            name = self._name(frame.f_code)
            if name is not None:
                found.append(name)
            frame = frame.f_back
        return reversed(found)


def _module(filename: str) -> str:
    return Path(filename).relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")


async def measure(directory: Path) -> Trace:
    """Start the bot and a match, press a crystal twice; what the second press ran."""
    fake = FakeDiscord()
    await fake.start()
    try:
        with fake.patch_discord():
            guild = fake.add_guild("Bench")
            channel = fake.add_text_channel(guild, "games")
            first = fake.add_member(guild, fake.add_user("first"))
            second = fake.add_member(guild, fake.add_user("second"))
            settings = Settings(  # type: ignore[call-arg]
                _env_file=None,
                discord_token=SecretStr("unused: the fake Discord has its own"),
                database_url=f"sqlite+aiosqlite:///{directory / 'parlor.db'}",
                sweep_interval=SWEEP_HIGH,
                dev_guild_id=None,
            )
            table = Table(fake, channel, settings, Clock())
            async with table.running():
                assert table.app is not None
                mark = table.checkpoint()
                answered = await table.slash(first, "crystal challenge", opponent=second)
                (challenge,) = answered.messages
                await table.click(second, challenge, Verb.ACCEPT)
                await table.posted("Coin toss", after=mark)
                mark = table.checkpoint()
                await table.click(first, table.board(), Verb.PLAY, "9")
                await table.posted("captures crystal 9", after=mark)
                return await recorded(table, second)
    finally:
        await fake.close()


async def recorded(table: Table, mover: FakeMember) -> Trace:
    """The path of ``mover``'s press of crystal 1, recorded from dispatch to the board's edit."""
    assert table.app is not None
    recorder = Recorder(asyncio.all_tasks())
    engine = table.app.engine.sync_engine
    event.listen(engine, "commit", recorder.committed)
    mark = table.checkpoint()
    sys.setprofile(recorder)
    try:
        await table.click(mover, table.board(), Verb.PLAY, "1")
        await table.posted("captures crystal 1", after=mark)
    finally:
        sys.setprofile(None)
        event.remove(engine, "commit", recorder.committed)
    return recorder.trace


def report(path: Trace) -> None:
    phases = (path.to_commit, path.to_board)
    print("One Crystal Capture move by button, through the bot against the fake Discord")
    for phase in phases:
        print(
            f"  {phase.name}: {len(phase.functions)} project functions "
            f"in {len(phase.modules())} modules"
        )
    print(f"  hops before the engine's apply: {len(path.engine_stack) - 1} project frames")
    print(f"  commits during the press: {path.commits}; the board left as {path.request}")
    for phase in phases:
        print(f"\n{phase.name}:")
        for module, functions in phase.modules().items():
            print(f"  {module}: {', '.join(functions)}")
    print("\nthe stack when the engine's apply is entered, outermost first:")
    for depth, (module, function) in enumerate(path.engine_stack):
        print(f"  {depth:2} {module}.{function}")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="parlor_bench_path_") as name:
        path = asyncio.run(measure(Path(name)))
    report(path)


if __name__ == "__main__":
    main()
