"""The match service's transactions on a SQLite file, run in child processes of their own.

A move's work (the engine's step, the notices, the statements) is Python work: in the event
loop's interpreter, Discord's events and the moves take turns on one core. Here each child
runs batches of jobs on a core of its own, and the event loop only sends them and reads back
their answers. A child reads the matches and plays the steps without the write lock, then takes
the lock to write them with the version checks, so that several children play their batches at
once and queue only for the writes. The parent never sends two batches that share a match
(``bot.batches``); a match moved by another process meanwhile fails the version check, and
the batch's jobs run again one by one. Child 0 also runs the checkpoints between its
transactions.

Requests and answers are pickles, each after its length, over a child's stdin and stdout,
answered in the order sent. A child stops when its stdin closes. Should one die, what it was
still asked fails with ``WriterStopped``, and its next request starts a new one: a batch either
committed or did not, as when a process is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import pickle
import signal
import struct
import sys
import time
from collections import deque
from datetime import datetime
from typing import TYPE_CHECKING, Any, BinaryIO

from sqlalchemy.engine import make_url

from db.writer import CHECKPOINT_INTERVAL, checkpoint, in_transaction, write_engine

if TYPE_CHECKING:
    from bot.matches import ServiceConfig

try:
    import fcntl
except ImportError:  # not on Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

_LENGTH = struct.Struct("<I")
_PROTOCOL = pickle.HIGHEST_PROTOCOL


STOPPED = "The match writer stopped before answering: try again."


class WriterStopped(RuntimeError):
    """The writer process ended before it answered: whether the batch was saved is unknown, so
    it is not run again (a player retries, and the version check sees whether it was)."""


class WriterProcesses:
    """Runs batches of the match service's jobs in ``count`` child processes (each started on
    first use), a batch in whichever has least to do."""

    def __init__(self, url: str, count: int) -> None:
        if count > 1 and fcntl is None:
            count = 1  # no lock between the children's writes here: one child writes alone
        self._children = [_Child(url, index, count) for index in range(count)]

    @property
    def count(self) -> int:
        return len(self._children)

    @property
    def pids(self) -> list[int]:
        """The running children's process ids."""
        return [child.pid for child in self._children if child.pid is not None]

    async def start(self, config: ServiceConfig, now: datetime) -> None:
        """Start every child and wait until each has answered an empty batch, so that no move
        waits for a child's start-up (about half a second)."""
        await asyncio.gather(*(child.commit(config, [], now) for child in self._children))

    async def commit(self, config: ServiceConfig, jobs: list[Any], now: datetime) -> list[Any]:
        """``MatchService.commit_together(jobs, now)`` in a child: each job's answer; raises
        what the batch as a whole raised."""
        child = min(self._children, key=lambda child: child.asked)
        return await child.commit(config, jobs, now)

    async def close(self) -> None:
        """Let the children finish what they were sent, then wait for them to end."""
        await asyncio.gather(*(child.close() for child in self._children))


class _Child:
    """One child process and the requests it has not answered yet."""

    def __init__(self, url: str, index: int, count: int) -> None:
        self.url = url
        """The SQLite file, as a URL for the synchronous driver."""
        self.index = index
        self.count = count
        self._process: asyncio.subprocess.Process | None = None
        self._reading: asyncio.Task[None] | None = None
        self._waiting: deque[asyncio.Future[tuple[bool, Any]]] = deque()
        self._starting: asyncio.Lock | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def asked(self) -> int:
        """Requests sent and not answered yet."""
        return len(self._waiting)

    async def commit(self, config: ServiceConfig, jobs: list[Any], now: datetime) -> list[Any]:
        process = await self._started()
        request = pickle.dumps((config, jobs, now), protocol=_PROTOCOL)
        answer: asyncio.Future[tuple[bool, Any]] = asyncio.get_running_loop().create_future()
        self._waiting.append(answer)
        assert process.stdin is not None
        try:
            process.stdin.write(_LENGTH.pack(len(request)) + request)
            await process.stdin.drain()
        except ConnectionError as error:  # it has just died: its reader has yet to see it
            if answer in self._waiting:
                self._waiting.remove(answer)
            raise WriterStopped(STOPPED) from error
        ok, value = await answer
        if not ok:
            raise value
        return value  # type: ignore[no-any-return]

    async def close(self) -> None:
        """Let the child finish what it was sent, then wait for it to end."""
        process, reading = self._process, self._reading
        if process is None or reading is None:
            return
        assert process.stdin is not None
        process.stdin.close()
        await process.wait()
        await reading

    async def _started(self) -> asyncio.subprocess.Process:
        if self._process is not None:
            return self._process
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            if self._process is None:
                process = await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    __name__,
                    self.url,
                    str(self.index),
                    str(self.count),
                    logging.getLevelName(logging.getLogger().getEffectiveLevel()),
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                )
                self._reading = asyncio.ensure_future(self._read(process))
                self._process = process
        return self._process

    async def _read(self, process: asyncio.subprocess.Process) -> None:
        """Hand each answer to the request waiting longest, until the child's output ends."""
        assert process.stdin is not None and process.stdout is not None
        try:
            while True:
                (length,) = _LENGTH.unpack(await process.stdout.readexactly(_LENGTH.size))
                answer = pickle.loads(await process.stdout.readexactly(length))
                waiting = self._waiting.popleft()
                if not waiting.done():  # its caller may have stopped waiting
                    waiting.set_result(answer)
        except asyncio.IncompleteReadError:
            pass  # the child ended
        finally:
            self._process = None
            process.stdin.close()  # if the child still runs, it ends once it reads to here
            while self._waiting:
                waiting = self._waiting.popleft()
                if not waiting.done():
                    waiting.set_exception(WriterStopped(STOPPED))
        status = await process.wait()
        if status:
            log.error("SQLite writer process %d ended with status %d", self.index, status)


# ---------------------------------------------------------------------- the child


def serve(url: str, inbox: BinaryIO, outbox: BinaryIO, index: int, count: int) -> None:
    """Answer the requests read from ``inbox`` on ``outbox`` until ``inbox`` ends: the loop
    of child ``index`` of ``count``."""
    from bot.matches import MatchService  # bot.matches imports this module

    engine = write_engine(url)
    services: dict[ServiceConfig, MatchService] = {}
    writing = _WriteLock(url) if count > 1 else contextlib.nullcontext()
    last_checkpoint = time.monotonic()
    try:
        while (header := inbox.read(_LENGTH.size)) and len(header) == _LENGTH.size:
            (length,) = _LENGTH.unpack(header)
            config, jobs, now = pickle.loads(inbox.read(length))
            service = services.get(config)
            if service is None:
                service = services[config] = MatchService.for_transactions(config)
            try:
                with engine.connect() as connection:
                    played = service.play_together(connection, jobs, now)
                with writing:
                    work, args = service.save_together, (jobs, played, now)
                    written = in_transaction(engine, work, args, {}, wait=True)
                answer: tuple[bool, Any] = (True, service.answers(jobs, played, written))
            except Exception as error:  # the batch failed as a whole: the parent raises it
                answer = (False, error)
            data = dump_answer(answer)
            outbox.write(_LENGTH.pack(len(data)) + data)
            outbox.flush()
            if index == 0 and time.monotonic() - last_checkpoint >= CHECKPOINT_INTERVAL:
                checkpoint(engine)
                last_checkpoint = time.monotonic()
    finally:
        engine.dispose()


class _WriteLock:
    """The children's turns at the write lock: taken before SQLite's, whose busy handler
    sleeps 1, 2, 5 ms and more between tries, where a waiting child should start at once."""

    def __init__(self, url: str) -> None:
        assert fcntl is not None
        database = make_url(url).database
        self._file = open(f"{database}-writers.lock", "a+b")  # noqa: SIM115 (held for life)

    def __enter__(self) -> None:
        assert fcntl is not None
        fcntl.flock(self._file.fileno(), fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        assert fcntl is not None
        fcntl.flock(self._file.fileno(), fcntl.LOCK_UN)


def dump_answer(answer: tuple[bool, Any]) -> bytes:
    """``answer`` pickled; what does not survive pickling is sent as a failure with its text."""
    try:
        data = pickle.dumps(answer, protocol=_PROTOCOL)
        if not answer[0]:
            pickle.loads(data)  # some exceptions pickle but cannot be rebuilt
    except Exception as error:
        failure = answer[1] if not answer[0] else error
        text = f"{type(failure).__name__}: {failure}"
        return pickle.dumps((False, RuntimeError(text)), protocol=_PROTOCOL)
    return data


def main(argv: list[str]) -> None:
    # Ctrl+C in a terminal, or a service manager stopping the bot, signals every process of
    # the group: the bot then stops its children by closing their input, once they have
    # answered what they were sent.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    url, index, count, level = argv
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)-7s %(name)s: %(message)s")
    inbox, outbox = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # the answers' pipe carries answers only
    import bot.matches  # noqa: F401  (loaded before the interpreter is tuned: see there)
    from bot.interpreter import tune_interpreter

    tune_interpreter()
    serve(url, inbox, outbox, int(index), int(count))


if __name__ == "__main__":
    main(sys.argv[1:])
