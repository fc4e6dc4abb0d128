"""Two bot processes on one PostgreSQL database, one shard each, as ``python -m bot`` runs them.

The fake Discord has two shards and a server on each; each process runs one shard
(``SHARD_COUNT=2``, ``SHARD_IDS=0`` or ``1``). Members play every game in both servers; the
secrets of the server on shard 1 are typed by DM, which Discord sends to shard 0 only, so the
other process plays them. Deadlines made due at once in both servers fire once, whichever
process's sweep gets them. The process of shard 1 is killed with SIGKILL in the middle of
matches and started again, and its matches go on: the boards its predecessor posted, their
buttons, and the secrets still to be typed.

Runs where a PostgreSQL server answers (``PARLOR_TEST_DATABASE_URL``), on a database of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.chat.components import Press, Verb
from db.models import Match, MatchEvent, MatchStatus, utcnow

from .fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeMember, FakeMessage
from .postgres import own_database, shard_free, url_of

ROOT = Path(__file__).resolve().parents[2]
SHARDS = 2
WAIT = 60.0
SWEEP_INTERVAL = "0.1"
YOUR_MOVE = re.compile(r"<@(\d+)>, your move\.")
READY = "Logged in as"
EXPIRED = "expired without an answer"
TIMEOUTS = 3
"""Challenges left to expire in each server."""

pytestmark = pytest.mark.slow


# ---------------------------------------------------------------------- the database


@pytest.fixture
async def database() -> AsyncIterator[AsyncEngine]:
    """An empty database of this test's own on the PostgreSQL server."""
    async with own_database("parlor_shards") as engine:
        yield engine


# ---------------------------------------------------------------------- the processes


@dataclass
class BotProcess:
    """``python -m bot`` running ``shard`` of ``SHARDS``; its log is kept per start."""

    fake: FakeDiscord
    database_url: str
    shard: int
    directory: Path
    starts: int = 0
    process: asyncio.subprocess.Process | None = None
    logs: list[Path] = field(default_factory=list)

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_"))}
        return env | {
            "PYTHONPATH": str(ROOT),
            "DISCORD_TOKEN": self.fake.token,
            "DISCORD_API_BASE_URL": self.fake.api_base,
            "DISCORD_GATEWAY_URL": self.fake.gateway_url,
            "DATABASE_URL": self.database_url,
            "SHARD_COUNT": str(SHARDS),
            "SHARD_IDS": str(self.shard),
            "SWEEP_INTERVAL": SWEEP_INTERVAL,
            "LOG_LEVEL": "INFO",
        }

    async def start(self) -> None:
        self.starts += 1
        log = self.directory / f"shard{self.shard}-start{self.starts}.log"
        self.logs.append(log)
        with log.open("wb") as output:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bot",
                cwd=self.directory,
                env=self.environment(),
                stdout=asyncio.subprocess.DEVNULL,
                stderr=output,
            )

    async def ready(self) -> None:
        """Wait until this start of the process is logged in and has every guild of its shard."""
        await self.fake.wait_until(
            lambda: self.exited() or READY in self.log(),
            timeout=WAIT,
            what=f"the process of shard {self.shard} to be ready",
        )
        assert not self.exited(), f"shard {self.shard} exited:\n{self.log()}"

    def exited(self) -> bool:
        return self.process is not None and self.process.returncode is not None

    def log(self, start: int = -1) -> str:
        return self.logs[start].read_text(errors="replace")

    async def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()

    async def stop(self) -> None:
        if self.process is None or self.process.returncode is not None:
            return
        self.process.terminate()
        try:
            await asyncio.wait_for(self.process.wait(), 30)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()

    def errors(self) -> list[str]:
        return [
            line
            for log in self.logs
            for line in log.read_text(errors="replace").splitlines()
            if " ERROR " in line or "Traceback" in line
        ]


@contextlib.asynccontextmanager
async def running(processes: list[BotProcess]) -> AsyncIterator[None]:
    try:
        await asyncio.gather(*(p.start() for p in processes))
        await asyncio.gather(*(p.ready() for p in processes))
        yield
    finally:
        await asyncio.gather(*(p.stop() for p in processes))


# ---------------------------------------------------------------------- the world


@dataclass
class Server:
    """A server on one shard, with a channel for each game and members to play."""

    fake: FakeDiscord
    guild: FakeGuild
    shard: int
    channels: dict[str, FakeChannel] = field(default_factory=dict)
    members: list[FakeMember] = field(default_factory=list)

    @classmethod
    def on_shard(cls, fake: FakeDiscord, shard: int) -> Server:
        guild = fake.add_guild(f"Server on shard {shard}", shard=(shard, SHARDS))
        server = cls(fake, guild, shard)
        for game in ("crown", "claim", "crystal", "flag", "safe", "timeouts", "restart"):
            server.channels[game] = fake.add_text_channel(guild, game)
        return server

    def member(self, name: str) -> FakeMember:
        member = self.fake.add_member(self.guild, self.fake.add_user(f"{name}{self.shard}"))
        self.members.append(member)
        return member


class Duel:
    """A match between two members in a channel, driven as the members would."""

    def __init__(
        self, fake: FakeDiscord, channel: FakeChannel, one: FakeMember, other: FakeMember
    ) -> None:
        self.fake = fake
        self.channel = channel
        self.members = {one.id: one, other.id: other}
        self.challenger, self.opponent = one, other
        self.match_id = 0
        self.board: FakeMessage | None = None

    async def challenge(self, game: str) -> FakeMessage:
        interaction = await self.fake.slash(
            self.challenger, self.channel, f"{game} challenge", opponent=self.opponent
        )
        await self.fake.wait_for_response(interaction, timeout=WAIT)
        (challenge,) = interaction.messages
        assert "challenges you" in challenge.content
        self.match_id = presses(challenge)[0].match_id
        self.board = challenge
        return challenge

    async def start(self, game: str) -> None:
        """Challenge and accept: the challenge becomes the board."""
        challenge = await self.challenge(game)
        await self.press(self.opponent, Verb.ACCEPT, "", lambda m: "Coin toss" in m.text)
        assert self.board is challenge

    def current(self) -> FakeMessage:
        assert self.board is not None
        return self.board

    def to_move(self) -> FakeMember:
        found = YOUR_MOVE.findall(self.current().content)
        assert found, f"match #{self.match_id} waits for no move: {self.current().content!r}"
        return self.members[int(found[-1])]

    def waiting(self) -> FakeMember:
        """The member whose move it is not."""
        mover = self.to_move()
        return next(m for m in self.members.values() if m is not mover)

    async def shows(self, condition: Callable[[FakeMessage], bool], what: str) -> None:
        await self.fake.wait_until(
            lambda: condition(self.current()), timeout=WAIT, what=f"match #{self.match_id} {what}"
        )

    async def after(self, act: Callable[[], Awaitable[object]], shows: str) -> None:
        """Do ``act`` and wait until the board was edited and shows ``shows``."""
        edits = len(self.current().history)
        await act()
        await self.shows(lambda m: len(m.history) > edits and shows in m.text, f"to show {shows!r}")

    async def press(
        self, who: FakeMember, verb: str, arg: str, condition: Callable[[FakeMessage], bool]
    ) -> None:
        board = self.current()
        pressed = await self.fake.click(who, board, button(board, verb, arg))
        try:
            await self.shows(condition, f"to change after {verb} {arg}")
        except TimeoutError as error:
            answers = [m.content for m in pressed.messages]
            raise AssertionError(f"{error}\nboard: {board.text!r}\nanswers: {answers}") from None

    async def command(self, who: FakeMember, command: str, shows: str, **options: object) -> None:
        async def act() -> None:
            interaction = await self.fake.slash(who, self.channel, command, **options)
            await self.fake.wait_for_response(interaction, timeout=WAIT)
            answers = [m.content for m in interaction.messages]
            assert all(a.startswith("Played") for a in answers), answers

        await self.after(act, shows)

    async def dm(self, who: FakeMember, typed: str) -> FakeMessage:
        """``who`` types ``typed`` to the bot by DM; the bot's private answer for this match."""
        mark = self.fake.checkpoint()
        await self.fake.dm(who, typed)
        answer = f"Match #{self.match_id}: "
        return await self.fake.wait_for_message(
            who, lambda m: m.content.startswith(answer), after=mark, timeout=WAIT
        )

    async def prompted(self, who: FakeMember) -> FakeMessage:
        """The DM that asks ``who`` for their secret in this match."""
        asks = f"match #{self.match_id}**"
        return await self.fake.wait_for_message(
            who, lambda m: asks in m.content and "Choose your secret" in m.content, timeout=WAIT
        )

    def over(self) -> bool:
        board = self.current()
        return board.content == "" and [p.verb for p in presses(board)] == [
            Verb.REMATCH,
            Verb.REVIEW,
        ]


def presses(message: FakeMessage) -> list[Press]:
    found = []
    for component in message.buttons:
        press = Press.parse(str(component.get("custom_id", "")))
        if press is not None and not component.get("disabled"):
            found.append(press)
    return found


def button(message: FakeMessage, verb: str, arg: str) -> str:
    for custom_id in message.custom_ids:
        press = Press.parse(custom_id)
        if press is not None and press.verb == verb and press.arg == arg:
            return custom_id
    raise AssertionError(f"no {verb!r} {arg!r} button: the message has {message.custom_ids}")


# ---------------------------------------------------------------------- the games


async def secrets_by_dm(duel: Duel, secret: str) -> None:
    """Both players type their secret by DM; the board then asks the first mover to move."""
    for who in (duel.challenger, duel.opponent):
        await duel.prompted(who)
        await duel.dm(who, secret)
    await duel.shows(lambda m: YOUR_MOVE.search(m.content) is not None, "to wait for a move")


async def play_crown(duel: Duel) -> None:
    """Both Crowns at (2,2): the first attack there captures."""
    await duel.start("crown")
    await secrets_by_dm(duel, "2 2")
    await duel.command(duel.to_move(), "crown attack", "", row=2, col=2)
    await duel.shows(lambda _: duel.over(), "to end")


async def play_safe(duel: Duel) -> None:
    """Both codes 111: the first guess cracks it."""
    await duel.start("safe")
    await secrets_by_dm(duel, "111")
    await duel.command(duel.to_move(), "safe guess", "", code="111")
    await duel.shows(lambda _: duel.over(), "to end")


async def play_claim(duel: Duel) -> None:
    """Each claims the largest number left, by command: nine claims."""
    await duel.start("claim")
    for number in range(9, 0, -1):
        mover = duel.to_move()
        await duel.command(mover, "claim pick", f"claims {number}", number=number)
    await duel.shows(lambda _: duel.over(), "to end")


async def play_crystal(duel: Duel) -> None:
    """9, 1, 6 by the board's buttons: exactly 15 for the first mover."""
    await duel.start("crystal")
    for crystal in (9, 1, 6):
        mover = duel.to_move()
        await duel.after(
            lambda mover=mover, crystal=crystal: duel.fake.click(  # type: ignore[misc]
                mover, duel.current(), button(duel.current(), Verb.PLAY, str(crystal))
            ),
            f"captures crystal {crystal}",
        )
    await duel.shows(lambda _: duel.over(), "to end")


async def play_flag(duel: Duel) -> None:
    """The first mover walks the diagonal to the other flag; the second places a trap by DM
    (off that path) and steps aside along the bottom row."""
    await duel.start("flag")
    first = duel.to_move()
    second = duel.waiting()
    await duel.command(first, "flag move", "", row=2, col=2)
    await duel.dm(second, "TRAP 1 5")
    await duel.shows(lambda m: duel.to_move() is first and "placed a trap" in m.text, "trap")
    await duel.command(first, "flag move", "", row=3, col=3)
    await duel.command(second, "flag move", "", row=5, col=4)
    await duel.command(first, "flag move", "", row=4, col=4)
    await duel.command(second, "flag move", "", row=5, col=3)
    await duel.command(first, "flag move", "", row=5, col=5)
    await duel.shows(lambda _: duel.over(), "to end")


GAMES: dict[str, Callable[[Duel], Awaitable[None]]] = {
    "crown": play_crown,
    "claim": play_claim,
    "crystal": play_crystal,
    "flag": play_flag,
    "safe": play_safe,
}


# ---------------------------------------------------------------------- the test


async def test_two_processes_one_shard_each_on_postgresql(
    database: AsyncEngine, tmp_path: Path
) -> None:
    async with FakeDiscord(shards=SHARDS) as fake:
        servers = [Server.on_shard(fake, shard) for shard in range(SHARDS)]
        processes = [BotProcess(fake, url_of(database), s, tmp_path) for s in range(SHARDS)]
        async with running(processes):
            await a_second_runner_of_a_shard_is_refused(fake, database, tmp_path)
            await every_game_in_both_servers(fake, servers, processes)
            await deadlines_fire_once(fake, servers, database)
            await a_killed_process_is_replaced(fake, servers, processes, database)
        assert not fake.unexpected_requests
        assert not fake.rate_limit_hits
        global_syncs = [
            r
            for r in fake.requests
            if r.method == "PUT" and r.path == f"/applications/{fake.application_id}/commands"
        ]
        assert len(global_syncs) == 1, "the commands were synced by more than one process"
    for process in processes:
        assert not process.errors(), "\n".join(process.errors())


async def a_second_runner_of_a_shard_is_refused(
    fake: FakeDiscord, database: AsyncEngine, directory: Path
) -> None:
    """A third process for shard 1, or with another count, refuses to start and says why."""
    for count, shards, says in (
        (SHARDS, "1", "Shard 1 is already run by another bot process"),
        (SHARDS + 1, "2", "SHARD_COUNT=3 here, but the bot processes running on this database"),
    ):
        extra = BotProcess(fake, url_of(database), 1, directory / f"extra-{count}")
        extra.directory.mkdir()
        env = extra.environment() | {"SHARD_COUNT": str(count), "SHARD_IDS": shards}
        done = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            cwd=extra.directory,
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        _, stderr = await asyncio.wait_for(done.communicate(), WAIT)
        said = " ".join(stderr.decode(errors="replace").split())
        assert done.returncode == 3, said
        assert says in said and "Traceback" not in said


async def every_game_in_both_servers(
    fake: FakeDiscord, servers: list[Server], processes: list[BotProcess]
) -> None:
    duels = []
    for server in servers:
        for game, play in GAMES.items():
            duel = Duel(fake, server.channels[game], server.member("a"), server.member("b"))
            duels.append((server, game, duel, play))
    await asyncio.gather(*(play(duel) for _, _, duel, play in duels))

    for server, game, duel, _ in duels:
        board = duel.current()
        assert board.channel is server.channels[game] and duel.over()
        assert f"· match #{duel.match_id}" in board.embeds[0]["title"]
    # Typed DMs reach shard 0 only: the process of shard 0 played the secrets (and the trap)
    # typed for shard 1's matches, and the process of shard 1 saw no DM.
    typed = [
        duel.match_id
        for server, game, duel, _ in duels
        if server.shard == 1 and game in ("crown", "flag", "safe")
    ]
    for match_id in typed:
        assert f"match {match_id}: typed DM answer" in processes[0].log()
    assert "typed DM answer" not in processes[1].log()


async def make_due(database: AsyncEngine, match_ids: list[int]) -> None:
    """Wind the matches' deadlines to now, as if their time had run out."""
    async with database.begin() as connection:
        await connection.execute(
            update(Match).where(Match.id.in_(match_ids)).values(deadline=utcnow())
        )


async def deadlines_fire_once(
    fake: FakeDiscord, servers: list[Server], database: AsyncEngine
) -> None:
    """Open challenges and a started match in both servers, all due at once: each fires once,
    and its board is edited once."""
    challenges: list[Duel] = []
    turns: list[Duel] = []
    for server in servers:
        channel = server.channels["timeouts"]
        for _ in range(TIMEOUTS):
            duel = Duel(fake, channel, server.member("c"), server.member("d"))
            challenges.append(duel)
        turn = Duel(fake, channel, server.member("e"), server.member("f"))
        turns.append(turn)
    await asyncio.gather(*(duel.challenge("crystal") for duel in challenges))
    await asyncio.gather(*(duel.start("crystal") for duel in turns))
    edits = {duel.match_id: len(duel.current().history) for duel in challenges + turns}

    await make_due(database, list(edits))
    for duel in challenges:
        await duel.shows(lambda m: EXPIRED in m.text, "to expire")
    for duel in turns:
        await duel.shows(lambda _, duel=duel: duel.over(), "to be forfeited")  # type: ignore[misc]
    # A few more sweeps of both processes: nothing more may happen to these matches.
    await asyncio.sleep(10 * float(SWEEP_INTERVAL))

    for duel in challenges + turns:
        assert len(duel.current().history) == edits[duel.match_id] + 1, duel.match_id
    async with database.connect() as connection:
        endings = dict(
            (
                await connection.execute(
                    select(MatchEvent.match_id, func.count())
                    .where(MatchEvent.match_id.in_(list(edits)))
                    .where(MatchEvent.kind.in_(("expire", "abort")))
                    .group_by(MatchEvent.match_id)
                )
            ).all()
        )
        statuses = dict(
            (
                await connection.execute(
                    select(Match.id, Match.end_reason).where(Match.id.in_(list(edits)))
                )
            ).all()
        )
    assert endings == {duel.match_id: 1 for duel in challenges}
    assert {statuses[duel.match_id] for duel in challenges} == {"expired"}
    assert {statuses[duel.match_id] for duel in turns} == {"timeout"}


async def a_killed_process_is_replaced(
    fake: FakeDiscord, servers: list[Server], processes: list[BotProcess], database: AsyncEngine
) -> None:
    """Shard 1's process dies by SIGKILL in the middle of matches; started again, it carries
    them on: the old boards' buttons work and secrets typed meanwhile were played."""
    server = servers[1]
    channel = server.channels["restart"]
    crystal = Duel(fake, channel, server.member("g"), server.member("h"))
    crown = Duel(fake, channel, server.member("i"), server.member("j"))
    await crystal.start("crystal")
    await crown.start("crown")
    first = crystal.to_move()
    await crystal.after(
        lambda: fake.click(first, crystal.current(), button(crystal.current(), Verb.PLAY, "9")),
        "captures crystal 9",
    )

    await crown.prompted(crown.challenger)
    await crown.prompted(crown.opponent)
    await processes[1].kill()
    # Meanwhile a Crown secret typed by DM reaches the process of shard 0, which plays it.
    await crown.dm(crown.challenger, "2 2")
    await shard_free(database, 1)
    await processes[1].start()
    await processes[1].ready()

    second = crystal.to_move()
    assert second is not first
    await crystal.after(
        lambda: fake.click(second, crystal.current(), button(crystal.current(), Verb.PLAY, "1")),
        "captures crystal 1",
    )
    await crystal.after(
        lambda: fake.click(first, crystal.current(), button(crystal.current(), Verb.PLAY, "6")),
        "captures crystal 6",
    )
    assert crystal.over()
    await crown.dm(crown.opponent, "2 2")
    await crown.shows(lambda m: YOUR_MOVE.search(m.content) is not None, "to wait for a move")
    await crown.command(crown.to_move(), "crown attack", "", row=2, col=2)
    await crown.shows(lambda _: crown.over(), "to end")
    async with database.connect() as connection:
        finished = await connection.scalar(
            select(func.count())
            .select_from(Match)
            .where(Match.id.in_([crystal.match_id, crown.match_id]))
            .where(Match.status == MatchStatus.FINISHED)
        )
    assert finished == 2
