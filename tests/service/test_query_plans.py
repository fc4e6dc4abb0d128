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

from bot.service.daily_puzzles import DailyPuzzles
from bot.service.match_parts import MatchParts, match_parts
from bot.service.match_state import DELIVERY_GRACE
from bot.service.match_threads import ThreadPlaces
from bot.service.member_history import HistoryService
from bot.service.puzzles import Puzzles
from bot.service.reach import Reach
from bot.service.replays import Replays
from db.outbox import owed_lines
from tests.db.plans import plans_recorded
from tests.puzzle_values import crystal_puzzle
from tests.service.conftest import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    Clock,
    board_posted,
    deadlines_for,
    outbox_for,
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


async def test_a_matchs_outbox_entries_are_found_through_its_index(
    engine: AsyncEngine, service: MatchParts, clock: Clock
) -> None:
    """The outbox's reads and deletes by match (the lines a message owes, the boards and DMs
    shown, a channel's boards hurried) go straight to the match's entries: the outbox holds
    every match's, and a match's own are a few."""
    if engine.dialect.name != "sqlite":
        pytest.skip("query plans are SQLite's (a file)")
    for opponent in (BOB, CAROL):  # another match's entries beside this one's
        report = await service.challenges.challenge(
            guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=opponent,
            game="crown",
        )  # fmt: skip
        await service.challenges.accept(report.match.id, opponent)
    match_id = report.match.id
    moved = await service.play.submit(match_id, ALICE, "1 1")
    outbox = outbox_for(service)
    found: dict[str, list[str]] = {}
    with plans_recorded(engine) as plans:
        async with service.runner.sessions() as session:
            await owed_lines(session, match_id, moved.match.version)
    found["owed lines"] = plans.steps
    with plans_recorded(engine) as plans:
        outbox.board_shown(match_id, moved.match.version)
        outbox.sent(match_id, 1, "prompt", ALICE)
        await outbox.flush()
    found["shown"] = plans.steps
    with plans_recorded(engine) as plans:
        await Reach(service.organizing, service.deadlines, service.lookups).hurry(GUILD, CHANNEL)
    found["hurried"] = plans.steps

    reads = {name: [step for step in steps if "outbox" in step] for name, steps in found.items()}
    assert reads == {
        "owed lines": [
            "SEARCH outbox USING INDEX ix_outbox_match (match_id=? AND kind=? AND version<?)"
        ],
        "shown": [
            "SEARCH outbox USING INDEX ix_outbox_match (match_id=? AND kind=? AND version<?)",
            "SEARCH outbox USING INDEX ix_outbox_match (match_id=? AND kind=? AND version=?)",
        ],
        "hurried": ["SEARCH outbox USING INDEX ix_outbox_match (match_id=? AND kind=?)"],
    }
    clock.advance(seconds=DELIVERY_GRACE.total_seconds())
    due = await outbox.due()
    left = [(item.kind, item.user_id, item.version) for item in due if item.match_id == match_id]
    assert left == [("prompt", CAROL, 1)]  # what was shown is forgotten, and only that


async def test_the_daily_posts_behind_are_read_from_their_own_index(
    engine: AsyncEngine, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    """The puzzles' sweep asks every few seconds for the posts behind, among one row per server
    and day that is never deleted: it reads the partial index of the posts behind, already in
    its order, and never the table (24 ms at 365,000 rows when it did)."""
    if engine.dialect.name != "sqlite":
        pytest.skip("query plans are SQLite's (a file)")
    puzzles, daily = Puzzles(sessions, clock=clock), DailyPuzzles(sessions, clock=clock)
    guilds = [GUILD + n for n in range(3)]
    for guild in guilds:
        await puzzles.store(guild, None, [crystal_puzzle(seed) for seed in (1, 2)])
        await daily.set_channel(guild, CHANNEL)
    for day in range(3):  # three days, each shown but the last day's first two servers'
        assert await daily.plan() == len(guilds)
        behind = await daily.behind()
        for post in behind[2:] if day == 2 else behind:
            await daily.shown(post.guild_id, post.day, post.version, message_id=post.guild_id)
        clock.advance(days=1)
    with plans_recorded(engine) as plans:
        found = await daily.behind()
    assert [(post.day, post.guild_id) for post in found] == [
        ("2026-01-03", GUILD),
        ("2026-01-03", GUILD + 1),
    ]
    # The only whole read is of the partial index, which holds the posts behind and no other;
    # it is read in the order asked for, so nothing is sorted either.
    assert [line for line, _statement in plans.scans] == [
        "SCAN daily_puzzles USING INDEX ix_daily_puzzles_behind"
    ]
    assert not [step for step in plans.steps if "TEMP B-TREE" in step], plans.steps
