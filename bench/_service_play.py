"""Matches played through the match service for ``bench.service``: games scripted in advance,
moves sent as a button or a slash command sends them, and what a run costs.

A game is played out beforehand (engines are deterministic from their seed), so the timed parts
run the service alone. A move goes in as Discord's side sends it: a button press names the
version its board showed (``submit(expected_version=...)``), a slash command lets the service
find the match in the channel (``play_in_channel``); either way the board rides on the
interaction's response (``board=``) or is left to the outbox.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import event, exc
from sqlalchemy.ext.asyncio import AsyncEngine

import games
from bench._common import Timings
from bot.service.errors import AlreadyPlayed
from bot.service.match_parts import MatchParts
from bot.service.notices import BoardRoute, MatchSnapshot, Private, Prompt, Public, Report
from bot.service.outbox import Outbox
from games.base import Ask, Seat

T = TypeVar("T")

GUILD = 1
CHANNELS = 50
FIRST_USER = 10**17
"""User ids look like Discord snowflakes; each match has two players of its own."""
ATTEMPTS = 20
"""A move failing this many times in a row stops the benchmark."""
RETRIED = (exc.OperationalError, exc.TimeoutError, AlreadyPlayed)
"""Failures a player would answer by trying again: locks, pool exhaustion, a busy match."""

SEED: ContextVar[int] = ContextVar("SEED")
"""The seed the service gives the match its task is challenging."""


class OnResponse:
    """A caller whose interaction response carries the board, as a press on the live board or
    a slash command in the match's channel does: the use case writes no board outbox entry."""

    def rides_on_response(self, snap: MatchSnapshot) -> bool:
        return True


ON_RESPONSE = OnResponse()


@dataclass(frozen=True)
class Way:
    """How a move reaches the service."""

    label: str
    slash: bool
    """A slash command (``play_in_channel``), else a button (``submit`` with the version). A
    secret or a hint goes by button either way, as a command makes public moves only."""
    board: BoardRoute | None
    """``ON_RESPONSE``: the board rides on the response; ``None``: the outbox delivers it."""


BUTTON = Way("button, board on the response", slash=False, board=ON_RESPONSE)
WAYS = (
    BUTTON,
    Way("button, board by the outbox", slash=False, board=None),
    Way("slash command, board on the response", slash=True, board=ON_RESPONSE),
    Way("slash command, board by the outbox", slash=True, board=None),
)


@dataclass(frozen=True)
class Script:
    """A game played out in advance: the actions each seat sends, in order."""

    game: str
    seed: int
    actions: tuple[tuple[Seat, str], ...]
    winner: Seat | None
    private: frozenset[int] = frozenset()
    """Indexes of the actions that answer a private ask (a secret or a hint): a slash command
    plays public moves only, so these go as a DM's or a picker's button sends them."""


@dataclass
class Live:
    """A match in the database and how far along its script it is."""

    match_id: int
    channel_id: int
    players: list[int]
    script: Script
    version: int
    """The version its board shows: what a button on it carries."""
    sent: int = 0

    @property
    def over(self) -> bool:
        return self.sent == len(self.script.actions)


@dataclass
class Tally:
    """What a run measured: one latency per move (seconds), failed attempts, statements and
    transactions."""

    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    """Failed attempts by exception type."""
    statements: int = 0
    transactions: int = 0


@dataclass(frozen=True)
class Run:
    """One measured path, with what it cost in failures, statements and CPU."""

    timings: Timings
    errors: Counter[str] = field(default_factory=Counter)
    statements: int = 0
    loop_cpu: float = 0.0
    """CPU seconds of the thread running the event loop."""
    process_cpu: float = 0.0
    """CPU seconds of the whole process."""
    transactions: int = 0
    offered: float = 0.0
    """Moves/s offered to a paced run (0: flat out)."""


# ---------------------------------------------------------------------- games played beforehand


def write_script(game: str, seed: int) -> Script:
    """Play ``game`` from ``seed`` with random legal actions to its end."""
    engine = games.get(game)
    rng = random.Random(seed)
    state = engine.new(engine.options(engine.new({}, seed)), seed)
    actions: list[tuple[Seat, str]] = []
    private: set[int] = set()
    while engine.outcome(state) is None:
        seat = rng.choice(sorted(engine.to_act(state)))
        if engine.ask(state, seat) is not Ask.ACTION:
            private.add(len(actions))
        action = rng.choice(list(engine.legal_actions(state, seat)))
        actions.append((seat, str(action)))
        state, _ = engine.apply(state, seat, action)
    outcome = engine.outcome(state)
    winner = outcome.winner if outcome else None
    return Script(game, seed, tuple(actions), winner, frozenset(private))


def write_scripts(count: int, game: str | None, rng: random.Random) -> list[Script]:
    names = sorted(games.GAMES)
    return [write_script(game or rng.choice(names), rng.randrange(2**62)) for _ in range(count)]


# ---------------------------------------------------------------------- the service


class Pacer:
    """Lets moves start at a fixed rate across all matches (open loop), or at once (rate 0)."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self._slots = asyncio.Semaphore(0)
        self._done = asyncio.Event()

    async def wait(self) -> None:
        if self.rate:
            await self._slots.acquire()

    async def run(self) -> None:
        """Release slots as time passes, until ``stop``."""
        started, released = time.perf_counter(), 0
        while self.rate and not self._done.is_set():
            due = int((time.perf_counter() - started) * self.rate)
            for _ in range(due - released):
                self._slots.release()
            released = max(released, due)
            await asyncio.sleep(0.001)

    def stop(self) -> None:
        self._done.set()


async def retrying(call: Callable[[], Awaitable[T]], tally: Tally) -> T:
    """``call()`` until it does not fail with a lock or a busy match; failures are counted."""
    for _ in range(ATTEMPTS - 1):
        try:
            return await call()
        except RETRIED as error:
            tally.errors[type(error).__name__] += 1
    return await call()


async def open_match(
    service: MatchParts, number: int, script: Script, tally: Tally, way: Way = BUTTON
) -> Live:
    """Challenge (a slash command) and accept (a button) a match between two players of its
    own."""
    SEED.set(script.seed)
    challenger, opponent = FIRST_USER + 2 * number, FIRST_USER + 2 * number + 1
    channel = GUILD + 1 + number % CHANNELS
    report = await retrying(
        lambda: service.challenges.challenge(
            guild_id=GUILD,
            channel_id=channel,
            challenger_id=challenger,
            opponent_id=opponent,
            game=script.game,
            board=way.board,
        ),
        tally,
    )
    match_id = report.match.id
    report = await retrying(
        lambda: service.challenges.accept(match_id, opponent, board=way.board), tally
    )
    return Live(match_id, channel, list(report.match.players), script, report.match.version)


async def send_move(service: MatchParts, live: Live, tally: Tally, way: Way = BUTTON) -> Report:
    """The script's next action, sent ``way``, timed until the service takes it."""
    seat, text = live.script.actions[live.sent]
    user = live.players[seat]
    slash = way.slash and live.sent not in live.script.private

    def call() -> Awaitable[Report]:
        if slash:
            return service.play.play_in_channel(
                GUILD, live.channel_id, live.script.game, user, text, board=way.board
            )
        return service.play.submit(
            live.match_id, user, text, expected_version=live.version, board=way.board
        )

    started = time.perf_counter()
    report = await retrying(call, tally)
    tally.latencies.append(time.perf_counter() - started)
    live.sent += 1
    live.version = report.match.version
    if live.over:
        winner = None if live.script.winner is None else live.players[live.script.winner]
        if report.match.status != "finished" or report.match.winner_id != winner:
            raise RuntimeError(f"match {live.match_id} did not end as its script did")
    return report


def confirm(outbox: Outbox, report: Report) -> None:
    """Tell the outbox what ``report`` showed, as Discord's side does once it has shown it:
    the board, and every DM but the actor's own answer."""
    snap = report.match
    if any(isinstance(notice, Public) for notice in report.notices):
        outbox.board_shown(snap.id, snap.version)
    for notice in report.notices:
        if isinstance(notice, Prompt):
            outbox.sent(snap.id, snap.version, "prompt", notice.user_id)
        elif isinstance(notice, Private):
            outbox.sent(snap.id, snap.version, "private", notice.user_id)


class Lobby:
    """Matches waiting to start. A match that ends hands its place to the next one waiting, so
    as many matches stay in play as there were at the start, while any are left."""

    def __init__(
        self,
        service: MatchParts,
        scripts: Sequence[Script],
        numbers: Iterator[int],
        way: Way = BUTTON,
    ) -> None:
        self.service = service
        self.waiting = deque(scripts)
        self.numbers = numbers
        self.way = way
        self.played: list[Live] = []
        """Every match opened, in the order they were."""
        self.tally = Tally()
        """Failed attempts to open a match (not timed)."""
        self.opening = 0.0
        """Seconds ``open_all`` took."""

    async def open(self) -> Live | None:
        """Challenge and accept the next match, or ``None`` when none is left."""
        if not self.waiting:
            return None
        script = self.waiting.popleft()
        live = await open_match(self.service, next(self.numbers), script, self.tally, self.way)
        self.played.append(live)
        return live

    async def open_all(self, count: int) -> list[Live]:
        """``count`` matches challenged and accepted at once."""
        started = time.perf_counter()
        lives = [
            live for live in await asyncio.gather(*(self.open() for _ in range(count))) if live
        ]
        self.opening = time.perf_counter() - started
        return lives


Confirm = Callable[[Report], None]


async def play(
    live: Live,
    lobby: Lobby,
    pacer: Pacer,
    deadline: float,
    tally: Tally,
    shown: Confirm | None,
) -> None:
    """Send moves until the run's time is up, going on with a new match when one ends."""
    current: Live | None = live
    while current is not None and time.perf_counter() < deadline:
        await pacer.wait()
        report = await send_move(lobby.service, current, tally, lobby.way)
        if shown is not None:
            shown(report)
        if current.over:
            current = await lobby.open()


async def play_all(
    lives: Sequence[Live],
    lobby: Lobby,
    rate: float,
    seconds: float,
    tally: Tally,
    shown: Confirm | None = None,
) -> None:
    """Every match at once, for at most ``seconds``."""
    pacer = Pacer(rate)
    pacing = asyncio.ensure_future(pacer.run())
    deadline = time.perf_counter() + seconds
    try:
        await asyncio.gather(*(play(live, lobby, pacer, deadline, tally, shown) for live in lives))
    finally:
        pacer.stop()
        await pacing


async def play_alone(service: MatchParts, lives: Sequence[Live], moves: int, tally: Tally) -> None:
    """One match at a time until ``moves`` moves are made."""
    for live in lives:
        while not live.over and len(tally.latencies) < moves:
            await send_move(service, live, tally)


async def measured(
    engine: AsyncEngine | None, label: str, work: Callable[[Tally], Awaitable[object]]
) -> Run:
    """Run ``work`` and gather its wall time, CPU time, and the SQL statements and transactions
    begun on ``engine``."""
    tally = Tally()

    def count(*_: Any) -> None:
        tally.statements += 1

    def begin(*_: Any) -> None:
        tally.transactions += 1

    listened = [] if engine is None else [engine.sync_engine]
    for target in listened:
        event.listen(target, "before_cursor_execute", count)
        event.listen(target, "begin", begin)
    loop_cpu, process_cpu, wall = time.thread_time(), time.process_time(), time.perf_counter()
    try:
        await work(tally)
    finally:
        for target in listened:
            event.remove(target, "before_cursor_execute", count)
            event.remove(target, "begin", begin)
    return Run(
        Timings(label, tally.latencies, time.perf_counter() - wall),
        tally.errors,
        tally.statements,
        time.thread_time() - loop_cpu,
        time.process_time() - process_cpu,
        tally.transactions,
    )


def errors_text(errors: Counter[str]) -> str:
    if not errors:
        return "no failed attempts"
    return ", ".join(f"{count:,} {kind}" for kind, count in errors.most_common())
