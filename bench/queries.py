"""The stats queries on a large server: leaderboards, a member's record, unfinished matches, and
the season views.

One guild gets ``--matches`` finished matches between ``--players`` members (both seats in
``match_players``, a ``player_stats`` row per member and game, counted from those matches), plus
one open match per hundred finished. A record's deviation falls with its matches, so members with
five or more matches of a game who played it lately are ranked, those with fewer are provisional,
and those who have not played it for 30 days inactive: each leaderboard section has its crowd. The
year of history is cut into calendar quarters, the server's default seasons, each with the
``season_standings`` its matches add up to (the newest season running, the others ended), as the
match transactions would have written them. Rows go in through the raw driver in batches
(``executemany`` on SQLite, ``COPY`` on PostgreSQL, indexes built after the rows). Each query then
runs ``--calls`` times for random members (or as many as ``--budget`` seconds allow), one session
per call as a command handler would; the leaderboard also runs as plain SQL on the driver. SQLite
is measured as the bot leaves the file (no planner statistics) and again after ``ANALYZE``;
PostgreSQL after ``VACUUM ANALYZE``, as autovacuum would leave it.

    python -m bench.queries [--database-url URL] [--matches N] [--players N] [--keep PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
from sqlalchemy import Index
from sqlalchemy.dialects.postgresql.base import PGDialect
from sqlalchemy.dialects.sqlite.base import SQLiteDialect
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.schema import CreateIndex

import games
from bench._common import (
    Timings,
    add_database_argument,
    asyncpg_dsn,
    describe,
    is_sqlite,
    print_table,
    remove_sqlite,
    scratch_database,
    sqlite_file,
)
from bot.service import stats
from bot.service.ratings import Rating, provisional_from, ranked_until
from bot.service.season_periods import SeasonLength, period
from bot.service.seasons import season_board
from db.engine import SQLITE_PRAGMAS, create_engine, session_factory
from db.matches import unfinished_matches
from db.migrate import upgrade
from db.models import DEFAULT_VOLATILITY, UNFINISHED_STATUSES, Base
from games.base import Seat

GUILD = 1
CHANNELS = 50
FIRST_USER = 10**17
BATCH = 50_000
GAMES_KEPT = 40
"""Real finished games per game whose states the generated matches reuse."""
HISTORY = timedelta(days=365)
WARM_UP = 5
TARGET_P99_MS = 10.0
ANALYSIS_LIMIT = 1000
"""Rows ``ANALYZE`` samples per index: quick, and enough for the planner."""
MARKER = "bench.queries"
"""The ``bot_meta`` key a kept file records its generation parameters under."""

MATCH_COLUMNS = (
    "id",
    "guild_id",
    "channel_id",
    "game",
    "options",
    "seed",
    "state",
    "status",
    "version",
    "deadline",
    "deadline_kind",
    "challenger_id",
    "opponent_id",
    "vs_bot",
    "bot_level",
    "message_id",
    "winner_seat",
    "end_reason",
    "created_at",
    "updated_at",
    "finished_at",
)
PLAYER_COLUMNS = ("match_id", "seat", "user_id")
STATS_COLUMNS = (
    "guild_id",
    "game",
    "user_id",
    "vs_bot",
    "wins",
    "losses",
    "draws",
    "streak",
    "best_streak",
    "rating",
    "deviation",
    "volatility",
    "games_played",
    "updated_at",
    "rated_at",
    "deviation_at",
    "ranked_until",
)

META_COLUMNS = ("key", "value", "updated_at")
SEASON_COLUMNS = ("id", "guild_id", "number", "starts_at", "ends_at", "state", "score", "closed_at")
STANDING_COLUMNS = (
    "season_id",
    "game",
    "user_id",
    "points",
    "wins",
    "losses",
    "draws",
    "rating",
    "deviation",
    "ranked_until",
    "provisional",
    "updated_at",
)
LOADED = ("matches", "match_players", "player_stats", "season_standings")
_BITS = 25
_MASK = (1 << _BITS) - 1
"""A season standing being counted is packed into one int of 25-bit fields (a dict of a million
tuples would take a good part of a gigabyte): wins, losses, draws, the member's games of the
game so far, their wins minus losses so far (offset), and their last match's second."""
SQLITE_LOADING = (
    "PRAGMA journal_mode=OFF",
    "PRAGMA synchronous=OFF",
    "PRAGMA cache_size=-1048576",
    "PRAGMA temp_store=MEMORY",
)
"""A scratch file being filled: no journal, no syncing, a large page cache."""
NEXT_MATCH_ID = (
    "SELECT setval(pg_get_serial_sequence('matches', 'id'), (SELECT max(id) FROM matches))"
)
DEADLINE = timedelta(minutes=10)
SQLITE = SQLiteDialect()
POSTGRESQL = PGDialect()  # type: ignore[no-untyped-call]
"""The dialects the loaders' index definitions are written in."""

Row = tuple[Any, ...]


@dataclass(frozen=True)
class Plan:
    """What to generate; a kept file is reused only for the same plan."""

    matches: int
    players: int
    seed: int
    layout: int = 2
    """What the generated rows hold: 2 since records carry their last rated time and settle
    after five matches; a kept file of an older layout is generated again."""

    @property
    def unfinished(self) -> int:
        return self.matches // 100


@dataclass(frozen=True)
class Finished:
    """A real game's end: its options and state as stored, and its outcome."""

    options: str
    state: str
    winner: Seat | None
    reason: str


@dataclass
class Record:
    """A member's running record in one game, in the order the matches finished."""

    wins: int = 0
    losses: int = 0
    draws: int = 0
    streak: int = 0
    best_streak: int = 0
    last: datetime | None = None
    """When the last of these matches finished (naive UTC)."""

    def add(self, score: float) -> None:
        if score == 1.0:
            self.wins += 1
            self.streak = max(self.streak, 0) + 1
        elif score == 0.0:
            self.losses += 1
            self.streak = min(self.streak, 0) - 1
        else:
            self.draws += 1
            self.streak = 0
        self.best_streak = max(self.best_streak, self.streak)


# ---------------------------------------------------------------------- generated rows


def finished_games(rng: random.Random) -> dict[str, list[Finished]]:
    """``GAMES_KEPT`` games of each kind played to their end with random legal actions."""
    return {
        name: [play_out(name, rng.randrange(2**62)) for _ in range(GAMES_KEPT)]
        for name in games.GAMES
    }


def play_out(name: str, seed: int) -> Finished:
    engine = games.get(name)
    rng = random.Random(seed)
    options = engine.options(engine.new({}, seed))
    state = engine.new(options, seed)
    while (outcome := engine.outcome(state)) is None:
        seat = rng.choice(sorted(engine.to_act(state)))
        state, _ = engine.apply(state, seat, rng.choice(list(engine.legal_actions(state, seat))))
    return Finished(
        json.dumps(options), json.dumps(engine.dump(state)), outcome.winner, outcome.reason.value
    )


Stamp = Callable[[datetime], Any]
"""A naive UTC time as the driver binds it: text on SQLite, an aware datetime on PostgreSQL."""


def utc_naive() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def sqlite_stamp(moment: datetime) -> str:
    """How SQLAlchemy stores a UTC timestamp in SQLite."""
    return moment.isoformat(" ", "microseconds")


def postgresql_stamp(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC)


@dataclass
class Generator:
    """Matches in the order they finished, and the records they add up to.

    Times are naive UTC inside, turned into what the driver binds by ``stamp``.
    """

    plan: Plan
    rng: random.Random
    ends: dict[str, list[Finished]]
    stamp: Stamp
    records: dict[tuple[int, str], Record] = field(default_factory=dict)
    start: datetime = field(
        default_factory=lambda: datetime.now(UTC).replace(tzinfo=None) - HISTORY
    )
    seasons: list[tuple[datetime, datetime]] = field(default_factory=list)
    """The calendar quarters the history spans, oldest first."""
    standings: dict[tuple[int, str, int], int] = field(default_factory=dict)
    """(season index, game, member) -> the packed standing (``_BITS``)."""

    def __post_init__(self) -> None:
        moment = self.start
        while moment < self.start + HISTORY:
            begins, ends = period(SeasonLength.QUARTER, moment.replace(tzinfo=UTC))
            self.seasons.append((begins.replace(tzinfo=None), ends.replace(tzinfo=None)))
            moment = ends.replace(tzinfo=None)

    def season_of(self, moment: datetime) -> int:
        return next(i for i, (_, ends) in enumerate(self.seasons) if moment < ends)

    def pair(self) -> tuple[int, int]:
        """Two different members."""
        first = self.rng.randrange(self.plan.players)
        second = self.rng.randrange(self.plan.players - 1)
        return FIRST_USER + first, FIRST_USER + second + (second >= first)

    def finished(self, first: int, last: int) -> tuple[list[Row], list[Row]]:
        """Rows of ``matches`` and ``match_players`` for finished matches ``first..last-1``."""
        matches, players = [], []
        rng, stamp, names = self.rng, self.stamp, tuple(self.ends)
        step = HISTORY / (self.plan.matches + 1)
        for match_id in range(first, last):
            name = rng.choice(names)
            end = rng.choice(self.ends[name])
            seats = self.pair()
            created = self.start + step * match_id
            ended = created + timedelta(seconds=rng.randrange(60, 1800))
            done = stamp(ended)
            challenger, opponent = seats if rng.random() < 0.5 else seats[::-1]
            matches.append(
                (match_id, GUILD, GUILD + 1 + match_id % CHANNELS, name, end.options,
                 rng.getrandbits(62), end.state, "finished", rng.randint(5, 60), None, None,
                 challenger, opponent, False, None, rng.getrandbits(62), end.winner, end.reason,
                 stamp(created), done, done)
            )  # fmt: skip
            players += [(match_id, 0, seats[0]), (match_id, 1, seats[1])]
            self.count(name, seats, end.winner, ended)
            self.count_season(created, name, seats, end.winner)
        return matches, players

    def count_season(
        self, moment: datetime, name: str, seats: tuple[int, int], winner: Seat | None
    ) -> None:
        season = self.season_of(moment)
        second = int((moment - self.start).total_seconds())
        for seat, user in enumerate(seats):
            record = self.records[(user, name)]
            played = record.wins + record.losses + record.draws
            key = (season, name, user)
            packed = self.standings.get(key, 0)
            result = 2 if winner is None else (0 if winner == seat else 1)
            field_ = 1 << (result * _BITS)  # wins, losses or draws, counted by one
            counts = (packed & ((1 << (3 * _BITS)) - 1)) + field_
            diff = record.wins - record.losses + (1 << (_BITS - 1))
            self.standings[key] = (
                counts | played << (3 * _BITS) | diff << (4 * _BITS) | second << (5 * _BITS)
            )

    def count(
        self, name: str, seats: tuple[int, int], winner: Seat | None, ended: datetime
    ) -> None:
        for seat, user in enumerate(seats):
            score = 0.5 if winner is None else float(winner == seat)
            record = self.records.setdefault((user, name), Record())
            record.add(score)
            record.last = ended

    def unfinished(self, first: int, last: int) -> tuple[list[Row], list[Row]]:
        """Matches still open (challenged, in setup or active) at the end of the history."""
        matches, players = [], []
        now = self.start + HISTORY
        for match_id in range(first, last):
            name = self.rng.choice(tuple(self.ends))
            end = self.rng.choice(self.ends[name])
            status = self.rng.choice(UNFINISHED_STATUSES).value
            seats = self.pair()
            created = self.stamp(now - timedelta(seconds=self.rng.randrange(60, 3600)))
            kind = {"challenged": "challenge", "setup": "setup", "active": "turn"}[status]
            state = None if status == "challenged" else end.state
            matches.append(
                (match_id, GUILD, GUILD + 1 + match_id % CHANNELS, name, end.options,
                 self.rng.getrandbits(62), state, status, 1, self.stamp(now + DEADLINE), kind,
                 seats[0], seats[1], False, None, None, None, None, created, created, None)
            )  # fmt: skip
            if status != "challenged":
                players += [(match_id, 0, seats[0]), (match_id, 1, seats[1])]
        return matches, players

    def stats(self) -> list[Row]:
        """One ``player_stats`` row per member and game played, with a plausible rating."""
        rows = []
        now = self.stamp(self.start + HISTORY)
        for (user, name), r in self.records.items():
            played = r.wins + r.losses + r.draws
            rating = 1500 + 12 * (r.wins - r.losses) + self.rng.gauss(0, 60)
            deviation = max(45.0, 350 / math.sqrt(1 + 2 * played))  # under 110 from 5 on
            assert r.last is not None
            last = r.last.replace(tzinfo=UTC)
            until = ranked_until(Rating(rating, deviation, DEFAULT_VOLATILITY), last, last)
            rated, until_stamp = self.stamp(r.last), self.stamp(until.replace(tzinfo=None))
            rows.append(
                (GUILD, name, user, False, r.wins, r.losses, r.draws, r.streak, r.best_streak,
                 rating, deviation, DEFAULT_VOLATILITY, played, now, rated, rated, until_stamp)
            )  # fmt: skip
        return rows

    def season_rows(self) -> list[Row]:
        """The quarters as seasons 1, 2, ...: the newest running, the others ended."""
        last = len(self.seasons) - 1
        return [
            (i + 1, GUILD, i + 1, self.stamp(begins), self.stamp(ends),
             "open" if i == last else "closed", "rating",
             None if i == last else self.stamp(ends))
            for i, (begins, ends) in enumerate(self.seasons)
        ]  # fmt: skip

    def standing_rows(self) -> Iterator[Row]:
        """Each season's standings, with a rating and deviation like the records' own at the
        member's last match of the season, and when that rating turns provisional."""
        for (season, name, user), packed in self.standings.items():
            wins, losses, draws, played, diff, second = (
                packed >> (i * _BITS) & _MASK for i in range(6)
            )
            rating = 1500 + 12 * (diff - (1 << (_BITS - 1))) + self.rng.gauss(0, 60)
            deviation = max(60.0, 350 / math.sqrt(1 + played / 2))
            last = self.start + timedelta(seconds=second)
            until = provisional_from(
                Rating(rating, deviation, DEFAULT_VOLATILITY), last.replace(tzinfo=UTC)
            ).replace(tzinfo=None)
            turned = until <= min(self.seasons[season][1], self.start + HISTORY)
            yield (
                season + 1, name, user, wins + draws / 2, wins, losses, draws, rating, deviation,
                self.stamp(until), turned, self.stamp(last),
            )  # fmt: skip

    def batches(self) -> Iterator[tuple[list[Row], list[Row]]]:
        """Every match in batches of ``BATCH``: the finished ones, then the open ones."""
        total = self.plan.matches
        for first in range(1, total + 1, BATCH):
            yield self.finished(first, min(first + BATCH, total + 1))
        end = total + 1 + self.plan.unfinished
        for first in range(total + 1, end, BATCH):
            yield self.unfinished(first, min(first + BATCH, end))

    def marker(self) -> Row:
        """The ``bot_meta`` row recording the plan, written last."""
        return (MARKER, json.dumps(asdict(self.plan)), self.stamp(self.start + HISTORY))


# ---------------------------------------------------------------------- bulk loading


def secondary_indexes() -> list[Index]:
    """The loaded tables' own indexes, built after the rows are in (faster than row by row)."""
    return [index for table in LOADED for index in Base.metadata.tables[table].indexes]


def insert_sql(table: str, columns: Sequence[str]) -> str:
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"


def load_sqlite(path: str, generator: Generator) -> None:
    """Every row through the stdlib driver in batches, in one transaction without a journal."""
    connection = sqlite3.connect(path, isolation_level=None)
    indexes = secondary_indexes()
    try:
        for pragma in SQLITE_LOADING:
            connection.execute(pragma)
        connection.execute("BEGIN")
        for index in indexes:
            connection.execute(f"DROP INDEX {index.name}")
        for matches, players in generator.batches():
            connection.executemany(insert_sql("matches", MATCH_COLUMNS), matches)
            connection.executemany(insert_sql("match_players", PLAYER_COLUMNS), players)
        connection.executemany(insert_sql("player_stats", STATS_COLUMNS), generator.stats())
        connection.executemany(insert_sql("seasons", SEASON_COLUMNS), generator.season_rows())
        connection.executemany(
            insert_sql("season_standings", STANDING_COLUMNS), generator.standing_rows()
        )
        for index in indexes:
            connection.execute(str(CreateIndex(index).compile(dialect=SQLITE)))
        connection.execute(insert_sql("bot_meta", META_COLUMNS), generator.marker())
        connection.execute("COMMIT")
        connection.execute("PRAGMA journal_mode=WAL")
    finally:
        connection.close()


async def load_postgresql(url: URL, generator: Generator) -> None:
    """Every row through asyncpg's ``COPY`` in batches, then statistics for the planner."""
    connection = await asyncpg.connect(asyncpg_dsn(url))
    indexes = secondary_indexes()
    try:
        await connection.execute("SET maintenance_work_mem = '256MB'")
        async with connection.transaction():
            for index in indexes:
                await connection.execute(f"DROP INDEX {index.name}")
            for matches, players in generator.batches():
                await copy(connection, "matches", MATCH_COLUMNS, matches)
                await copy(connection, "match_players", PLAYER_COLUMNS, players)
            await copy(connection, "player_stats", STATS_COLUMNS, generator.stats())
            await copy(connection, "seasons", SEASON_COLUMNS, generator.season_rows())
            standings = list(generator.standing_rows())
            await copy(connection, "season_standings", STANDING_COLUMNS, standings)
            for index in indexes:
                await connection.execute(str(CreateIndex(index).compile(dialect=POSTGRESQL)))
            await connection.execute(NEXT_MATCH_ID)
        await connection.execute("VACUUM ANALYZE")
    finally:
        await connection.close()


async def copy(
    connection: asyncpg.Connection, table: str, columns: Sequence[str], rows: Sequence[Row]
) -> None:
    await connection.copy_records_to_table(table, records=rows, columns=columns)


def kept_plan(path: Path) -> Plan | None:
    """The plan a kept file was generated for; ``SystemExit`` for a file that is not one."""
    if not path.exists():
        return None
    connection = sqlite3.connect(path)
    try:
        found = connection.execute("SELECT value FROM bot_meta WHERE key = ?", (MARKER,)).fetchone()
    except sqlite3.Error:
        found = None
    finally:
        connection.close()
    if found is None:
        raise SystemExit(f"{path} exists and is not a file this benchmark kept: not touching it")
    return Plan(**{"layout": 1, **json.loads(found[0])})


async def generate(url: URL, plan: Plan) -> None:
    """Create the schema and load the generated server into it."""
    started = time.perf_counter()
    await upgrade(url.render_as_string(hide_password=False))
    rng = random.Random(plan.seed)
    stamp = sqlite_stamp if is_sqlite(url) else postgresql_stamp
    generator = Generator(plan, rng, finished_games(rng), stamp)
    if is_sqlite(url):
        load_sqlite(sqlite_file(url), generator)
    else:
        await load_postgresql(url, generator)
    print(
        f"generated {plan.matches:,} finished and {plan.unfinished:,} open matches, "
        f"{2 * plan.matches:,}+ match_players rows and {len(generator.records):,} player_stats "
        f"rows, {len(generator.seasons)} seasons with {len(generator.standings):,} "
        f"season_standings rows in {time.perf_counter() - started:.1f} s"
    )


async def prepare(url: URL, plan: Plan, keep: Path | None) -> None:
    """Generate the data, or reuse a kept file generated for the same plan."""
    if keep is not None:
        found = kept_plan(keep)
        if found == plan:
            print(f"reusing {keep} ({plan.matches:,} matches, {plan.players:,} players)")
            return
        if found is not None:
            print(f"{keep} was generated for {found}: generating it again")
            remove_sqlite(keep)
    await generate(url, plan)


# ---------------------------------------------------------------------- measuring


@dataclass(frozen=True)
class Measured:
    """A query's latencies and the mean number of rows it returned."""

    timings: Timings
    rows: float


@dataclass(frozen=True)
class Limits:
    """How many timed calls each query gets, unless its time runs out first."""

    calls: int
    seconds: float


async def timed_calls(
    label: str, limits: Limits, call: Callable[[int], Awaitable[int]]
) -> Measured:
    """``call(i)`` after a few untimed calls, up to ``limits``; each returns its row count."""
    for i in range(WARM_UP):
        await call(i)
    latencies, rows = [], 0
    started = time.perf_counter()
    for i in range(limits.calls):
        began = time.perf_counter()
        rows += await call(i)
        latencies.append(time.perf_counter() - began)
        if began - started > limits.seconds:
            break
    wall = time.perf_counter() - started
    return Measured(Timings(label, latencies, wall), rows / max(len(latencies), 1))


async def measure_app(url: URL, plan: Plan, limits: Limits, suffix: str = "") -> list[Measured]:
    """The three application queries for random members, one session per call."""
    engine = create_engine(url.render_as_string(hide_password=False))
    sessions = session_factory(engine)
    rng = random.Random(plan.seed + 1)
    now = datetime.now(UTC)
    users = [FIRST_USER + rng.randrange(plan.players) for _ in range(limits.calls + WARM_UP)]

    async def record(i: int) -> int:
        async with sessions() as session:
            found = await stats.member_record(session, GUILD, users[i], now)
            return len(found.lines) + len(found.recent)

    async def unfinished(i: int) -> int:
        async with sessions() as session:
            return len(await unfinished_matches(session, users[i], GUILD))

    results = []
    try:
        for name in sorted(games.GAMES):

            async def board(_: int, name: str = name) -> int:
                async with sessions() as session:
                    board = (await stats.leaderboards(session, GUILD, [name], 10, now))[name]
                    return len(board.ranked) + len(board.provisional) + len(board.inactive)

            label = f"stats.leaderboards ({name}){suffix}"
            results.append(await timed_calls(label, limits, board))
        results.append(await timed_calls(f"stats.member_record{suffix}", limits, record))
        results += await measure_seasons(sessions, limits, suffix)
        label = f"matches.unfinished_matches{suffix}"
        results.append(await timed_calls(label, limits, unfinished))
    finally:
        await engine.dispose()
    return results


async def measure_seasons(
    sessions: async_sessionmaker[AsyncSession], limits: Limits, suffix: str
) -> list[Measured]:
    """A season's standings in each game (10 ranked and 10 provisional, as ``/stats season:``
    asks), of the running season and of the first one, ended; and the web's season page (20 and
    20 in every game)."""
    results = []
    now = datetime.now(UTC)
    for number, which in ((None, "running"), (1, "season 1")):
        for name in sorted(games.GAMES):

            async def board(_: int, name: str = name, number: int | None = number) -> int:
                async with sessions() as session:
                    found = await season_board(session, GUILD, number, [name], 10, now)
                    return sum(len(g.ranked) + len(g.provisional) for g in found.games)

            label = f"seasons.season_board ({which}, {name}){suffix}"
            results.append(await timed_calls(label, limits, board))

    async def every_game(_: int) -> int:
        async with sessions() as session:
            found = await season_board(session, GUILD, None, list(games.GAMES), 20, now)
            return sum(len(g.ranked) + len(g.provisional) for g in found.games)

    label = f"seasons.season_board (running, every game, 20 rows){suffix}"
    results.append(await timed_calls(label, limits, every_game))
    return results


LEADERBOARD_SQL = (
    "SELECT * FROM player_stats WHERE guild_id = {0} AND game = {1} AND vs_bot IS {2} "
    "ORDER BY rating DESC, wins DESC, user_id LIMIT 10"
)
"""``records.leaderboards`` of one game, as plain SQL."""


async def measure_raw_leaderboard(url: URL, limits: Limits) -> list[Measured]:
    """The leaderboard query straight through the driver: sqlite3, or asyncpg on PostgreSQL."""
    if is_sqlite(url):
        connection = sqlite3.connect(sqlite_file(url))
        for pragma in SQLITE_PRAGMAS:
            connection.execute(pragma)
        sql = LEADERBOARD_SQL.format("?", "?", "0")

        async def run(name: str) -> int:
            return len(connection.execute(sql, (GUILD, name)).fetchall())

        try:
            return await raw_boards("sqlite3", limits, run)
        finally:
            connection.close()
    pg = await asyncpg.connect(asyncpg_dsn(url))
    statement = await pg.prepare(LEADERBOARD_SQL.format("$1", "$2", "false"))

    async def fetch(name: str) -> int:
        return len(await statement.fetch(GUILD, name))

    try:
        return await raw_boards("asyncpg", limits, fetch)
    finally:
        await pg.close()


async def raw_boards(
    driver: str, limits: Limits, run: Callable[[str], Awaitable[int]]
) -> list[Measured]:
    results = []
    for name in sorted(games.GAMES):

        async def call(_: int, name: str = name) -> int:
            return await run(name)

        label = f"raw SQL leaderboard, {driver} ({name})"
        results.append(await timed_calls(label, limits, call))
    return results


@contextmanager
def analyzed(path: str) -> Iterator[None]:
    """The SQLite file with planner statistics (``ANALYZE``), removed again afterwards."""
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        started = time.perf_counter()
        connection.execute(f"PRAGMA analysis_limit={ANALYSIS_LIMIT}")
        connection.execute("ANALYZE")
        print(f"ANALYZE (analysis_limit={ANALYSIS_LIMIT}): {time.perf_counter() - started:.2f} s")
        yield
    finally:
        connection.execute("DROP TABLE IF EXISTS sqlite_stat1")
        connection.close()


# ---------------------------------------------------------------------- the run


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.queries",
        description="Latency of the stats queries on a server with a long history.",
    )
    add_database_argument(parser)
    parser.add_argument("--matches", type=int, default=1_000_000, help="finished matches")
    parser.add_argument("--players", type=int, default=100_000, help="members who played")
    parser.add_argument("--calls", type=int, default=200, help="timed calls of each query")
    parser.add_argument(
        "--budget",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="stop timing a query after this long, whatever its calls (default: 10)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed for the generated data")
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="PATH",
        help="SQLite only: generate into PATH and keep it; reuse it when it matches",
    )
    args = parser.parse_args(argv)
    if args.players < 2:
        parser.error("--players must be at least 2")
    return args


def report(results: Sequence[Measured], limits: Limits) -> None:
    print()
    within = f"p99 <= {TARGET_P99_MS:.0f} ms"
    print_table(
        ("query", "calls", "rows", "p50 ms", "p99 ms", "max ms", within),
        [
            (m.timings.path, m.timings.count, m.rows, m.timings.ms(0.5), m.timings.ms(0.99),
             m.timings.ms(1.0), "yes" if m.timings.ms(0.99) <= TARGET_P99_MS else "NO")
            for m in results
        ],
    )  # fmt: skip
    print(f"\ntarget: p99 at most {TARGET_P99_MS:.0f} ms per query")
    print(
        f"each query: {WARM_UP} untimed calls, then {limits.calls} timed ones or as many as "
        f"{limits.seconds:.0f} s allow; rows: mean rows returned per call"
    )


async def bench(args: argparse.Namespace, url: URL) -> None:
    print(f"database: {describe(url)}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    plan = Plan(args.matches, args.players, args.seed)
    limits = Limits(args.calls, args.budget)
    await prepare(url, plan, args.keep)
    results = await measure_app(url, plan, limits)
    results += await measure_raw_leaderboard(url, limits)
    if is_sqlite(url):
        with analyzed(sqlite_file(url)):
            results += await measure_app(url, plan, limits, " after ANALYZE")
    report(results, limits)


async def main_async(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    postgresql = args.database_url is not None and not args.database_url.startswith("sqlite")
    if args.keep is not None and postgresql:
        raise SystemExit("--keep keeps a SQLite file: leave it out with a PostgreSQL URL")
    async with scratch_database(args.database_url, keep=args.keep) as url:
        await bench(args, url)
    print(f"\ntotal time: {time.perf_counter() - started:.1f} s")


def main(argv: Sequence[str] | None = None) -> None:
    asyncio.run(main_async(parse_args(argv)))


if __name__ == "__main__":
    main()
