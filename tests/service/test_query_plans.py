"""No statement of the bot's core reads a whole table on SQLite: every one finds its rows
through an index, however many matches and members are stored.

A lookup that scans costs nothing on a test's few rows and tens of milliseconds on a server's
history (matching a member's record by its whole key as a row value ``IN`` a list did: 20 ms a
finished match with 100,000 records). Each statement run below is explained by SQLite itself
(``tests.db.plans``), on the same file, with the same parameters.
"""

from __future__ import annotations

import random

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.service.match_parts import match_parts
from bot.service.match_threads import ThreadPlaces
from bot.service.member_history import HistoryService
from bot.service.replays import Replays
from tests.db.plans import plans_recorded
from tests.service.conftest import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    Clock,
    board_posted,
    deadlines_for,
    servers_for,
)
from tests.service.test_random_matches import VARIANTS, play_random_match


async def test_no_statement_of_a_match_or_the_stats_scans_a_table(
    engine: AsyncEngine, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("query plans are SQLite's (a file)")
    service = match_parts(sessions, clock=clock, seeds=lambda: 5, bot_user_id=CAROL)
    with plans_recorded(engine) as plans:
        for game, options in dict(reversed(VARIANTS)).items():  # one match a game
            await play_random_match(service, sessions, game, options, random.Random(5))
        against_bot = await service.challenges.challenge(
            guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=CAROL, game="safe"
        )
        waiting = await service.challenges.challenge(
            guild_id=GUILD, channel_id=CHANNEL, challenger_id=BOB, opponent_id=ALICE, game="claim"
        )
        await board_posted(service, waiting.match.id, 123)
        await service.lookups.find_match(GUILD, CHANNEL, "claim", BOB)
        await service.lookups.snapshot(against_bot.match.id)
        clock.advance(days=8)
        assert await deadlines_for(service).sweep()
        await servers_for(service).leaderboards(GUILD, None, 3)
        await servers_for(service).member_record(GUILD, ALICE)
        await service.lookups.unfinished(ALICE, GUILD)
        await service.lookups.waiting_for(BOB)
        histories, replays = HistoryService(sessions), Replays(sessions, clock=clock)
        [latest, *_] = (await histories.history(GUILD, ALICE, "crown")).matches
        await histories.history(GUILD, ALICE, page=1)
        await histories.rating_series(GUILD, ALICE)
        await histories.top_ratings(GUILD, "crown")
        await replays.review(GUILD, latest.id)
        await replays.replay(GUILD, latest.id)
        places = ThreadPlaces(sessions)
        await places.settle(latest.id)  # already settled: nothing more
        rematch = await service.challenges.challenge(
            guild_id=GUILD, channel_id=CHANNEL, challenger_id=BOB, opponent_id=ALICE, game="flag"
        )
        started = await service.challenges.accept(rematch.match.id, ALICE)
        await places.settle(started.match.id)  # a match that just started: where it is played
        await places.moved(started.match.id, CHANNEL + 1)
    # ``best`` is no table: it is a leaderboard's best ``records.WINDOW`` rows, read in the
    # order of its index and stopped at the page's last row; nor is ``page``: one page's keys
    # of a list rare at the top, read from that index alone; nor is ``members``: the members
    # whose names are looked up, given in the statement.
    exempt = ("SCAN best", "SCAN page", "SCAN members")
    scans = [(line, statement) for line, statement in plans.scans if line not in exempt]
    assert not scans, "\n".join(f"{line}: {statement}" for line, statement in scans)
