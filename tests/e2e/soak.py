"""What a kill -9 soak runs on: the bot as a host runs it, killed and started again, and the
database as the test's harness reads it.

``Host`` keeps one ``python -m bot`` at a time on the same database: ``kill`` ends it with
SIGKILL (nothing of it runs after), ``start`` runs a new one and waits until it is logged in.
``Ledger`` (SQLite) and ``PostgresLedger`` read the database the processes share, from the
test's side: whose turn it is and what each seat played. Members never see the ledger; a soak
drives them with it and asserts on what they saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

import games
from games.base import Ask, Seat

from .bot_process import READY, BotProcess, bot_environment
from .fake_discord import FakeDiscord

OVER = ("finished", "aborted")
SETTLE = 0.2
"""Seconds for the requests a killed process had made to be answered."""
WATCH = 0.0005
"""Seconds between looks at the database in ``Ledger.wait_logged``."""
ACTIONS = "SELECT count(*) FROM match_events WHERE kind LIKE ?"
"""How many actions every match together has logged, of the kinds ``action:...`` matches."""


class Host:
    """The bot as its host runs it: one process at a time, on the same database.

    ``generation`` counts the processes killed: a member who acted while it was ``n`` and sees
    it change knows no answer will come from the process they spoke to. ``up`` is set while a
    process is logged in.
    """

    def __init__(self, tmp_path: Path, fake: FakeDiscord, settings: Mapping[str, str]) -> None:
        self.cwd = tmp_path
        self.env = bot_environment(tmp_path, fake, **settings)
        self.process: BotProcess | None = None
        self.generation = 0
        self.up = asyncio.Event()
        self.outputs: list[str] = []
        """The stderr of every process that ended, oldest first."""

    async def start(self) -> None:
        """Start a new process and wait until it is logged in."""
        assert self.process is None, "a bot process is already running"
        self.process = await BotProcess.start(self.cwd, self.env)
        await self.process.wait_for_line(READY)
        self.up.set()

    async def kill(self, when: Callable[[threading.Event], bool] | None = None) -> None:
        """SIGKILL the running process and wait until it is gone.

        With ``when``, a blocking wait run in a thread, the signal goes from that thread the
        moment ``when`` returns true, with nothing of the event loop in between; ``when`` must
        return false soon after its event is set (the wait was cancelled). ``generation``
        changes a moment after the process is gone: the requests it had made by then are
        answered by the fake Discord all the same, and what they posted is there to be seen.
        """
        process = self.process
        assert process is not None, "no bot process is running"
        if when is not None:
            # A pidfd names this process only, even once it has ended and its pid is reused.
            pidfd = os.pidfd_open(process.process.pid)
            cancelled = threading.Event()

            def wait_then_kill() -> None:
                try:
                    if when(cancelled) and not cancelled.is_set():
                        with contextlib.suppress(ProcessLookupError):
                            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                finally:
                    os.close(pidfd)

            try:
                await asyncio.to_thread(wait_then_kill)
            finally:
                cancelled.set()
        self.up.clear()
        with contextlib.suppress(ProcessLookupError):  # already killed from the thread
            process.send_signal(signal.SIGKILL)
        status = await process.wait()
        assert status == -signal.SIGKILL, f"the bot exited with {status} before the kill"
        self.outputs.append(process.output)
        self.process = None
        await asyncio.sleep(SETTLE)
        self.generation += 1

    async def close(self) -> None:
        """End the running process, if any (a test's clean-up)."""
        if self.process is not None:
            await self.process.kill()
            self.outputs.append(self.process.output)
            self.process = None
        self.up.clear()

    def output(self) -> str:
        """Every process's stderr so far, each headed by its number."""
        running = [self.process.output] if self.process is not None else []
        return "\n".join(
            f"--- bot process {number} ---\n{text}"
            for number, text in enumerate([*self.outputs, *running], 1)
        )


@dataclass(frozen=True)
class Seen:
    """A match as the database holds it."""

    id: int
    game: str
    status: str
    version: int
    state: Any
    """The engine's state, once the match has started."""
    seats: tuple[int, ...]
    """The user id in each seat, once seats are assigned."""
    winner_seat: int | None

    @property
    def over(self) -> bool:
        return self.status in OVER

    def asked(self, seat: Seat) -> Ask | None:
        """What ``seat`` is asked for now, if it is to act."""
        if self.state is None or self.over:
            return None
        engine = games.get(self.game)
        if seat not in engine.to_act(self.state):
            return None
        return engine.ask(self.state, seat)

    @property
    def winner(self) -> int | None:
        """The winner's user id (``None``: no winner, or not over)."""
        return None if self.winner_seat is None else self.seats[self.winner_seat]


@dataclass(frozen=True)
class Logged:
    """One action in a match's event log, as its seat played it."""

    seat: Seat
    ask: str
    """``secret``, ``hint`` or ``action``."""
    text: str
    """The action as the engine writes it (``2 3``, ``row``, ``7``)."""


class Reads(Protocol):
    """What a soak's driver reads of the database the bot processes share."""

    async def match(self, match_id: int) -> Seen: ...

    async def played(self, match_id: int) -> list[Logged]: ...

    async def progress(self) -> tuple[int, int]: ...

    async def logged(self, ask: Ask) -> int: ...


class Ledger:
    """Reads the bot's SQLite database from the test's side, in a thread (the fake Discord runs
    in the test's event loop and must not wait for a query). Reads only."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
        self._lock = asyncio.Lock()

    def close(self) -> None:
        self._db.close()

    async def _rows(self, sql: str, *params: object) -> list[tuple[Any, ...]]:
        async with self._lock:
            return await asyncio.to_thread(lambda: self._db.execute(sql, params).fetchall())

    async def match(self, match_id: int) -> Seen:
        rows = await self._rows(
            "SELECT game, status, version, state, winner_seat FROM matches WHERE id = ?", match_id
        )
        assert rows, f"no match #{match_id} in the database"
        ((game, status, version, state, winner_seat),) = rows
        seats = await self._rows(
            "SELECT user_id FROM match_players WHERE match_id = ? ORDER BY seat", match_id
        )
        loaded = None if state is None else games.get(game).load(json.loads(state))
        return Seen(
            id=match_id,
            game=game,
            status=status,
            version=version,
            state=loaded,
            seats=tuple(user_id for (user_id,) in seats),
            winner_seat=winner_seat,
        )

    async def played(self, match_id: int) -> list[Logged]:
        """The match's logged actions, in order."""
        rows = await self._rows(
            "SELECT seat, kind, payload FROM match_events "
            "WHERE match_id = ? AND kind LIKE 'action:%' ORDER BY seq",
            match_id,
        )
        return [
            Logged(seat, kind.removeprefix("action:"), json.loads(payload)["action"])
            for seat, kind, payload in rows
        ]

    async def progress(self) -> tuple[int, int]:
        """How many actions every match together has logged, and how many matches are over."""
        marks = ", ".join("?" * len(OVER))
        ((actions,),) = await self._rows(ACTIONS, "action:%")
        ((over,),) = await self._rows(
            f"SELECT count(*) FROM matches WHERE status IN ({marks})", *OVER
        )
        return int(actions), int(over)

    async def logged(self, ask: Ask) -> int:
        """How many actions answering ``ask`` every match together has logged."""
        ((count,),) = await self._rows(ACTIONS, f"action:{ask.value}")
        return int(count)

    def wait_logged(self, ask: Ask, count: int, cancelled: threading.Event) -> bool:
        """Block until the matches have logged ``count`` actions answering ``ask`` (true), or
        ``cancelled`` is set (false), looking every ``WATCH`` seconds on a connection of its
        own: for a thread (``Host.kill``)."""
        db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        try:
            while db.execute(ACTIONS, (f"action:{ask.value}",)).fetchone()[0] < count:
                if cancelled.is_set():
                    return False
                time.sleep(WATCH)
        finally:
            db.close()
        return True


class PostgresLedger:
    """Reads the bot processes' PostgreSQL database from the test's side, on a small pool of
    its own (asyncpg: no query blocks the fake Discord's event loop). Reads only."""

    def __init__(self, url: str) -> None:
        self.engine = create_async_engine(url, pool_size=4, max_overflow=0)
        self._seats: dict[int, tuple[int, ...]] = {}
        """Seats never change once assigned: read once per match."""

    async def close(self) -> None:
        await self.engine.dispose()

    async def _rows(self, sql: str, **params: object) -> list[Any]:
        async with self.engine.connect() as connection:
            return list((await connection.execute(text(sql), params)).all())

    async def match(self, match_id: int) -> Seen:
        rows = await self._rows(
            "SELECT game, status, version, state, winner_seat FROM matches WHERE id = :id",
            id=match_id,
        )
        assert rows, f"no match #{match_id} in the database"
        ((game, status, version, state, winner_seat),) = rows
        seats = self._seats.get(match_id)
        if seats is None:
            found = await self._rows(
                "SELECT user_id FROM match_players WHERE match_id = :id ORDER BY seat", id=match_id
            )
            seats = tuple(user_id for (user_id,) in found)
            if seats:
                self._seats[match_id] = seats
        stored = json.loads(state) if isinstance(state, str) else state
        return Seen(
            id=match_id,
            game=game,
            status=status,
            version=version,
            state=None if stored is None else games.get(game).load(stored),
            seats=seats,
            winner_seat=winner_seat,
        )

    async def played(self, match_id: int) -> list[Logged]:
        """The match's logged actions, in order."""
        rows = await self._rows(
            "SELECT seat, kind, payload FROM match_events "
            "WHERE match_id = :id AND kind LIKE 'action:%' ORDER BY seq",
            id=match_id,
        )
        return [
            Logged(
                seat,
                kind.removeprefix("action:"),
                (json.loads(payload) if isinstance(payload, str) else payload)["action"],
            )
            for seat, kind, payload in rows
        ]

    async def progress(self, guild_id: int | None = None) -> tuple[int, int]:
        """How many actions the matches (of ``guild_id``, or all) have logged, and how many
        matches are over."""
        where = "" if guild_id is None else " AND m.guild_id = :guild"
        ((actions,),) = await self._rows(
            "SELECT count(*) FROM match_events e JOIN matches m ON m.id = e.match_id "
            f"WHERE e.kind LIKE 'action:%'{where}",
            guild=guild_id,
        )
        ((over,),) = await self._rows(
            f"SELECT count(*) FROM matches m WHERE m.status IN ('finished', 'aborted'){where}",
            guild=guild_id,
        )
        return int(actions), int(over)

    async def logged(self, ask: Ask, guild_id: int | None = None) -> int:
        """How many actions answering ``ask`` the matches (of ``guild_id``, or all) logged."""
        where = "" if guild_id is None else " AND m.guild_id = :guild"
        ((count,),) = await self._rows(
            "SELECT count(*) FROM match_events e JOIN matches m ON m.id = e.match_id "
            f"WHERE e.kind = :kind{where}",
            kind=f"action:{ask.value}",
            guild=guild_id,
        )
        return int(count)
