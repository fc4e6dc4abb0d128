"""``parlor demo``: a database of made-up members' matches, for a look at the web pages (the
leaderboards, players' charts, replays and reviews) without Discord.

Every match is played through the match service on the real database code, so its records,
ratings, rating history and review are what the bot would have kept: two made-up members of
one made-up server challenge, accept and play each other, each member's answers decided by the
built-in player (``games.players``) at the member's own level. The clock is wound by hand, so
the matches spread over the last weeks and the charts have a history to draw.

The database is a SQLite file marked as a demo (``bot_meta``); an existing file without the
mark (a bot's real database) is left alone unless the caller forces it.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.service.match_parts import MatchParts, match_parts
from bot.service.replays import Replays
from bot.service.servers import ServerService
from db.engine import create_engine, session_factory
from db.migrate import upgrade
from db.models import Match, utcnow
from games.players import LevelledPlayer, decide, player_for

DEFAULT_FILE = "parlor-demo.db"
"""Beside ``parlor.db``, the bot's own default file, in the working directory."""

DEFAULT_MATCHES = 40
"""Matches of each game."""

MARKER = "parlor.demo"
"""The ``bot_meta`` key that marks a database ``parlor demo`` made, and may make again."""

GUILD = 900_000_000_000_000_001
CHANNEL = 900_000_000_000_000_002
FIRST_MEMBER = 900_000_000_000_001_000
"""Made-up snowflakes: no real server or member has these."""

MEMBERS: tuple[tuple[str, str], ...] = (
    ("Ada", "hard"),
    ("Basil", "hard"),
    ("Clementine", "normal"),
    ("Dmitri", "normal"),
    ("Esme", "normal"),
    ("Farid", "normal"),
    ("Greta", "easy"),
    ("Hugo", "easy"),
    ("Ines", "hard"),
    ("Jonas", "easy"),
)
"""Each made-up member's name and how well the built-in player plays for them."""

SPAN = timedelta(days=28)
"""The matches are spread over this long, ending now."""

MOVE_TIME = timedelta(seconds=25)
"""How long each answer takes on the hand-wound clock."""

STEP_LIMIT = 500
"""Answers after which a match is resigned (no built-in game needs nearly as many)."""


class NotADemo(Exception):
    """The file exists and ``parlor demo`` did not make it."""


@dataclass
class HandClock:
    """The service's clock, moved on by the demo as its matches are played."""

    now: datetime

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Demo:
    """What was made: the file, the server's link token, and the finished matches by game."""

    path: Path
    token: str
    matches: dict[str, list[int]] = field(default_factory=dict)

    @property
    def url(self) -> str:
        """The database's ``DATABASE_URL``."""
        return sqlite_url(self.path)


def sqlite_url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path.resolve()}"


def is_demo(path: Path) -> bool:
    """Whether ``path`` holds a database ``parlor demo`` made (read without changing it)."""
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return False
    try:
        found = connection.execute("SELECT 1 FROM bot_meta WHERE key = ?", (MARKER,)).fetchone()
    except sqlite3.Error:
        return False
    finally:
        connection.close()
    return found is not None


def clear(path: Path, *, force: bool) -> None:
    """Remove an earlier demo at ``path`` (or, when ``force``, whatever is there); raises
    ``NotADemo`` for a file that is not one."""
    if not path.exists():
        return
    if not force and not is_demo(path):
        raise NotADemo(str(path))
    for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        leftover.unlink(missing_ok=True)


async def make(path: Path, *, matches: int = DEFAULT_MATCHES, seed: int = 0) -> Demo:
    """A new demo database at ``path`` (which must not exist): ``matches`` finished matches
    of each game, reviewed, and the server's web pages turned on."""
    rng = random.Random(seed)
    total = matches * len(games.GAMES)
    clock = HandClock(utcnow() - SPAN)
    gap = SPAN / max(total, 1)
    url = sqlite_url(path)
    await upgrade(url)
    engine = create_engine(url)
    try:
        sessions = session_factory(engine)
        names = {FIRST_MEMBER + index: name for index, (name, _) in enumerate(MEMBERS)}
        parts = match_parts(
            sessions,
            clock=clock,
            seeds=lambda: rng.randrange(2**62),
            names=lambda guild, user: names.get(user),
        )
        replays = Replays(sessions, clock=clock)
        servers = ServerService(sessions, clock=clock)
        await servers.remember(MARKER, "made by parlor demo: made-up members and matches")
        demo = Demo(path, await servers.open_site(GUILD))
        order = [name for name in sorted(games.GAMES) for _ in range(matches)]
        rng.shuffle(order)
        for game in order:
            pair = tuple(rng.sample(sorted(names), 2))
            match_id = await play(parts, sessions, game, (pair[0], pair[1]), clock, rng)
            await replays.review(GUILD, match_id)
            demo.matches.setdefault(game, []).append(match_id)
            clock.now += gap
    finally:
        await engine.dispose()
    return demo


def level_of(member: int) -> str:
    return MEMBERS[member - FIRST_MEMBER][1]


async def play(
    parts: MatchParts,
    sessions: async_sessionmaker[AsyncSession],
    game: str,
    members: tuple[int, int],
    clock: HandClock,
    rng: random.Random,
) -> int:
    """One match of ``game`` between ``members``, challenged, accepted and played to its end
    by the built-in players; its id."""
    engine = games.get(game)
    report = await parts.challenges.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=members[0], opponent_id=members[1],
        game=game,
    )  # fmt: skip
    match_id = report.match.id
    clock.now += MOVE_TIME
    report = await parts.challenges.accept(match_id, members[1])
    players: Sequence[LevelledPlayer[object, object]] = [
        player_for(game, level_of(member)) for member in report.match.players
    ]
    for _ in range(STEP_LIMIT):
        if report.match.over:
            return match_id
        user = report.match.to_act[0]
        seat = report.match.players.index(user)
        async with sessions() as session:
            row = await session.get(Match, match_id)
            assert row is not None and row.state is not None
            state = engine.load(row.state)
        action = decide(engine, state, seat, players[seat], rng)
        clock.now += MOVE_TIME
        report = await parts.play.submit(match_id, user, str(action))
    await parts.play.resign(match_id, members[0])
    return match_id
