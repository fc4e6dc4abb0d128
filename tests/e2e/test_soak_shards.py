"""A kill -9 soak on PostgreSQL with two bot processes, one shard each, sharing the database.

The fake Discord has two shards and a server on each. In each server twelve members play three
Capture the Crown and three Crystal Capture matches, each in a channel of its own; the process
of shard 0 runs the first server, the process of shard 1 the second. Members play on in both
servers while the process of shard 1 is killed with SIGKILL five times and started again:

- at once when a drawn number of public moves of its server was logged (mostly between the
  move's commit and its answer);
- at its next request after a drawn number of moves (in the middle of a delivery);
- once for longer than a shard counts as away, and meanwhile every turn of its server runs out
  (the test winds their deadlines to now): the process of shard 0, which sweeps every second,
  must not forfeit them, nobody there could answer; the process coming back gives the time back;
- at its answers to drawn match-ending moves, so the board showing the end is left to the
  outbox.

Crowns and hints are typed by DM, which Discord sends to shard 0 only: the process of shard 0
plays them for both servers, the second's too while its process is down. Members behave as
people do: one whose command got no answer sends it again once the bot is back.

Afterwards, against what the matches logged: every move seen accepted is logged once, nothing
is logged that was not sent; every match finished in play, none on time, none called off
(``docs/scaling.md``: one process restarting forfeits nothing in its servers); every board
shows its end, nothing was posted twice, the outbox is empty, ``/stats`` agrees, no Crown
leaked; the process of shard 0 answered everything and logged no error.

Runs where a PostgreSQL server answers (``PARLOR_TEST_DATABASE_URL``); skipped elsewhere.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from db.models import Match, MatchEvent, OutboxEntry, utcnow
from games.base import Ask

from .fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeInteraction
from .postgres import own_database, shard_free, url_of
from .soak import Host, PostgresLedger
from .test_soak_kill import (
    DOWN,
    OUTBOX_WAIT,
    SETTINGS,
    Player,
    Soak,
    assert_played_as_seen,
    boards_end,
    challenge_all,
    seat_players,
    stats,
)

pytestmark = pytest.mark.slow

SEED = 20261126
"""Seeds everything the soak draws: Crowns, moves, hints, pauses and the kill moments."""
SHARDS = 2
KILLED = 1
"""The shard whose process is killed again and again."""
PER_SERVER = ("crown",) * 3 + ("crystal",) * 3
"""The games played in each server, one match each, each in a channel of its own."""
FEWEST_MOVES = 3 * 1 + 3 * 3
"""The fewest public moves the killed shard's matches can all end with."""
LONG_DOWN = 13.0
"""Seconds the process stays down on its long kill: longer than a shard counts as away with a
sweep every second (two intervals and ten seconds), so its time is given back when it is back."""
HELD_FOR = 4.0
"""Seconds the test watches the runaway turns while the process is down: the other process
sweeps every second meanwhile."""
SOAK_LIMIT = 150.0
"""Seconds the challenges and the play may take before the test fails instead of hanging."""
POLL = 0.005
"""Seconds between the killer's looks at the database while it waits for a moment."""
STAGGER = 8.0
"""Seconds between the starts of play of the other server's matches, one after the other: its
members play on while the process of ``KILLED`` is killed and started again."""
SHARD_SETTINGS = SETTINGS | {"SHARD_COUNT": str(SHARDS)}


@dataclass(frozen=True)
class Kill:
    """A kill of the process of ``KILLED`` as it happened."""

    how: str
    """``at once``, ``at a request``, ``long``, or ``at an ending``."""
    count: int
    """Its moment: public moves logged in that shard's server, or the ending's number."""
    during: str
    """The request the bot had just made, or what it was doing."""
    unfinished: int
    """Matches of that shard's server in play at the kill; at an ending, the ending's own match
    counts (its end is saved, not yet shown)."""
    elsewhere: int
    """Public moves logged in the other server until the process was back (logged in)."""
    playing_elsewhere: int
    """Matches of the other server unfinished at the kill."""


class ShardSoak(Soak):
    """Members of two servers, each answered by its shard's process; DMs by shard 0's."""

    def __init__(
        self,
        fake: FakeDiscord,
        hosts: list[Host],
        ledger: PostgresLedger,
        rng: random.Random,
        servers: list[FakeGuild],
        shard_of: dict[int, int],
        database: AsyncEngine,
    ) -> None:
        super().__init__(fake, hosts[KILLED], ledger, rng)
        self.hosts = hosts
        self.postgres = ledger
        self.servers = servers
        self.shard_of = shard_of
        """Member id -> the shard of their server."""
        self.database = database
        self.shard_kills: list[Kill] = []
        self.runaway: set[int] = set()
        """Matches whose turn ran out while their process was down (the long kill)."""
        self.starts_after: dict[int, float] = {}

    async def play(self, player: Player, asks: frozenset[Ask]) -> None:
        """As members do, once their match's turn to start play has come (``starts_after``,
        seconds after the secrets, by member id)."""
        if asks != {Ask.SECRET}:
            await asyncio.sleep(self.starts_after.get(player.member.id, 0.0))
        await super().play(player, asks)

    def host_for(self, player: Player, ask: str) -> Host:
        if ask == Ask.ACTION:
            return self.hosts[self.shard_of[player.member.id]]
        return self.hosts[0]  # typed by DM: Discord sends DMs to shard 0

    async def moves(self, shard: int) -> int:
        return await self.postgres.logged(Ask.ACTION, self.servers[shard].id)

    async def moves_reach(self, count: int) -> None:
        while True:
            if await self.moves(KILLED) >= count:
                return
            await asyncio.sleep(POLL)

    async def shard_killer(self, plan: list[tuple[str, int]]) -> None:
        """Kill the process of ``KILLED`` at each moment of ``plan`` and start it again."""
        host = self.hosts[KILLED]
        for how, count in plan:
            if how == "at an ending":
                ending = await self.nth_ending(count)
                during = await self.next_request(ending.token)
            elif how == "at a request":
                await self.moves_reach(count)
                during = await self.next_request()
            else:
                await self.moves_reach(count)
                during = "a commit" if how == "at once" else "play"
            elsewhere = await self.moves(0)
            await host.kill()
            _, ended = await self.postgres.progress(self.servers[KILLED].id)
            _, over_elsewhere = await self.postgres.progress(self.servers[0].id)
            if how == "long":
                await self.turns_run_out()
                await asyncio.sleep(LONG_DOWN - HELD_FOR)
            else:
                await asyncio.sleep(self.rng.uniform(*DOWN))
            await shard_free(self.database, KILLED)
            await host.start()
            self.shard_kills.append(
                Kill(
                    how,
                    count,
                    during,
                    len(PER_SERVER) - ended + (how == "at an ending"),
                    await self.moves(0) - elsewhere,
                    len(PER_SERVER) - over_elsewhere,
                )
            )

    async def nth_ending(self, number: int) -> FakeInteraction:
        """The ``number``-th command sent in the killed shard's server with a move that ends
        its match, once sent."""

        def found() -> FakeInteraction | None:
            mine = [e for e in self.endings if self.shard_of[e.user.id] == KILLED]
            return mine[number - 1] if len(mine) >= number else None

        return await self.fake.wait_until(found, timeout=SOAK_LIMIT, what="a match-ending move")

    async def turns_run_out(self) -> None:
        """Every deadline in the killed shard's server falls due now, while its process is
        down; the other process's sweeps must leave them for ``HELD_FOR`` seconds."""
        async with self.database.begin() as connection:
            wound = await connection.scalars(
                update(Match)
                .where(Match.guild_id == self.servers[KILLED].id)
                .where(Match.status.not_in(("finished", "aborted")))
                .where(Match.deadline.is_not(None))
                .values(deadline=utcnow())
                .returning(Match.id)
            )
            self.runaway |= set(wound)
        assert self.runaway, "no turn was left to run out"
        await asyncio.sleep(HELD_FOR)
        async with self.database.connect() as connection:
            ended = await connection.scalars(
                select(Match.id).where(Match.id.in_(self.runaway), Match.end_reason.is_not(None))
            )
            forfeited = list(ended)
        assert not forfeited, f"forfeited while their process was down: {forfeited}"


@pytest.fixture
async def database() -> AsyncIterator[AsyncEngine]:
    async with own_database("parlor_soak") as engine:
        yield engine


def kill_plan(rng: random.Random) -> list[tuple[str, int]]:
    """Three kills after drawn numbers of public moves in the killed shard's server (before the
    fewest its matches can end with): at once, at the next request, and the long one; then two
    at the answers to drawn match-ending moves (at most the fourth of six)."""
    first, second, third = sorted(rng.sample(range(1, FEWEST_MOVES - 2), 3))
    endings = sorted(rng.sample(range(1, len(PER_SERVER) - 1), 2))
    return [
        ("at once", first),
        ("at a request", second),
        ("long", third),
        *(("at an ending", n) for n in endings),
    ]


async def test_two_processes_one_killed_again_and_again_on_postgresql(
    database: AsyncEngine, tmp_path: Path
) -> None:
    rng = random.Random(SEED)
    began = time.monotonic()
    async with FakeDiscord(shards=SHARDS) as fake:
        servers: list[FakeGuild] = []
        lobbies: list[FakeChannel] = []
        pairs: list[tuple[Player, Player]] = []
        shard_of: dict[int, int] = {}
        soak_start: dict[int, float] = {}
        for shard in range(SHARDS):
            guild = fake.add_guild(f"Soak {shard}", shard=(shard, SHARDS))
            servers.append(guild)
            lobbies.append(fake.add_text_channel(guild, "lobby"))
            seated = seat_players(fake, guild, rng, PER_SERVER, prefix=f"s{shard}")
            if shard != KILLED:
                for number, pair in enumerate(seated):
                    for player in pair:
                        soak_start[player.member.id] = number * STAGGER
            pairs += seated
            shard_of |= {p.member.id: shard for pair in seated for p in pair}
        players = [player for pair in pairs for player in pair]
        plan = kill_plan(rng)

        hosts = []
        for shard in range(SHARDS):
            directory = tmp_path / f"shard{shard}"
            directory.mkdir()
            settings = SHARD_SETTINGS | {"DATABASE_URL": url_of(database), "SHARD_IDS": str(shard)}
            hosts.append(Host(directory, fake, settings))
        ledger = PostgresLedger(url_of(database))
        soak = ShardSoak(fake, hosts, ledger, rng, servers, shard_of, database)
        soak.starts_after = soak_start

        try:
            await asyncio.gather(*(host.start() for host in hosts))
            async with asyncio.timeout(SOAK_LIMIT):
                await challenge_all(fake, ledger, pairs)
                async with asyncio.TaskGroup() as group:
                    group.create_task(soak.shard_killer(plan))
                    group.create_task(soak.play_all(players))
            played = time.monotonic() - began
            final = {player.match_id: await ledger.match(player.match_id) for player in players}
            logs = {match_id: await ledger.played(match_id) for match_id in final}
            # What the kills interrupted is redelivered: every board comes to show its end,
            # and the outbox empties.
            await boards_end(fake, players)
            await outbox_empties(fake, database)
            records = await stats(
                fake, {p.member.id: (p, lobbies[shard_of[p.member.id]]) for p in players}
            )
            endings, resets = await how_matches_ended(database, soak.runaway)
            total, _ = await ledger.progress()
        finally:
            await ledger.close()
            for host in hosts:
                await host.close()

    # Figures, for the record (``pytest -s``).
    print(
        f"\nsoak on PostgreSQL: {played:.1f} s of play, {total} moves, "
        f"{len(soak.shard_kills)} kills of shard {KILLED}'s process: {soak.shard_kills}"
    )
    # The kills met matches in play, while the other server played on.
    assert [kill.how for kill in soak.shard_kills] == [how for how, _ in plan]
    assert all(kill.unfinished for kill in soak.shard_kills), soak.shard_kills
    playing = [kill for kill in soak.shard_kills if kill.playing_elsewhere and kill.elsewhere]
    assert len(playing) * 2 > len(plan), soak.shard_kills  # timing decides: most, not all
    assert hosts[0].generation == 0
    # A running bot answered every command and DM.
    silences = {player.mention: player.silences for player in players if player.silences}
    output = "\n".join(host.output() for host in hosts)
    assert not silences, f"unanswered by a running bot: {silences}\n{output}"
    # Nothing forfeited, called off or expired: every match ended in play.
    assert set(endings) == set(final)
    assert not [m for m, reason in endings.items() if reason in ("timeout", "unreachable")]
    # The turns that ran out while their process was down got their time back, once (unless a
    # hint typed by DM, which the other process plays, moved the match on meanwhile).
    assert set(resets) <= soak.runaway and set(resets.values()) == {1}, (soak.runaway, resets)
    assert_played_as_seen(fake, pairs, final, logs, records)
    errors = [
        line for line in hosts[0].output().splitlines() if " ERROR " in line or "Traceback" in line
    ]
    assert not errors, "\n".join(errors)
    assert not fake.unexpected_requests


async def outbox_empties(fake: FakeDiscord, database: AsyncEngine) -> None:
    """Wait until the outbox holds nothing: every delivery was made and recorded."""
    deadline = time.monotonic() + OUTBOX_WAIT
    while True:
        async with database.connect() as connection:
            left = await connection.scalar(select(func.count()).select_from(OutboxEntry))
        if not left:
            return
        assert time.monotonic() < deadline, f"{left} outbox entries left undelivered"
        await asyncio.sleep(0.2)


async def how_matches_ended(
    database: AsyncEngine, runaway: set[int]
) -> tuple[dict[int, str | None], dict[int, int]]:
    """Every match's end reason, and how often the clock of each of ``runaway`` was reset."""
    async with database.connect() as connection:
        endings = dict((await connection.execute(select(Match.id, Match.end_reason))).all())
        resets = dict(
            (
                await connection.execute(
                    select(MatchEvent.match_id, func.count())
                    .where(MatchEvent.match_id.in_(runaway), MatchEvent.kind == "clock_reset")
                    .group_by(MatchEvent.match_id)
                )
            ).all()
        )
    return endings, resets
