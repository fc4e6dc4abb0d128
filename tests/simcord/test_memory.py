"""What a bot process keeps in memory per match and per channel follows the matches in play:
once they end, here or in another process, it is let go within about a minute.

Many Crystal Capture matches are played in several channels. Half end here, by their last
move; the other half are ended by another process sharing the database (its sweep fires their
deadlines, and it posts their end itself), so this process never sees them end. After the
sweeper's next upkeep, nothing of any of them is kept.
"""

from __future__ import annotations

from datetime import timedelta

import discord
from sqlalchemy import update

from bot.chat.boards.live import Boards
from bot.chat.sweeps import UPKEEP_EVERY
from bot.service.match_parts import match_parts
from db.engine import create_engine, session_factory
from db.models import Match

from .table import Member, SimClock, Table, start

PAIRS = 12
"""Matches played; each by two members of its own."""
CHANNELS = 3
"""Channels they are played in, in turn."""


def boards_of(table: Table) -> Boards:
    return table.app.boards


async def test_what_is_kept_of_matches_goes_when_they_end_here_or_elsewhere(
    table: Table, clock: SimClock
) -> None:
    channels = [table.channel] + [
        table.guild.create_text_channel(f"duels-{n}") for n in range(1, CHANNELS)
    ]
    played: list[tuple[Member, Member, discord.Message]] = []
    for number in range(PAIRS):
        table.channel = channels[number % CHANNELS]  # where the members play this match
        first, second = table.seat(f"first{number}"), table.seat(f"second{number}")
        board = await start(table, first, second, "crystal")
        await first.play("crystal take", crystal=9)  # the challenger moves first (fixed seeds)
        await second.play("crystal take", crystal=1)
        played.append((first, second, board))
    boards = boards_of(table)
    kept = boards.held()
    assert kept["shown"] == PAIRS and kept["activity"] == CHANNELS, kept

    # Half end here: 9 + 6 = 15 with three crystals.
    here, elsewhere = played[: PAIRS // 2], played[PAIRS // 2 :]
    for number, (first, _, board) in enumerate(here):
        table.channel = channels[number % CHANNELS]
        await first.play("crystal take", crystal=6)
        assert table.now(board).content == ""  # the board shows the end
    assert boards.held()["shown"] == PAIRS - len(here)

    # The other half run out of time, and another process's sweep ends them.
    ids = [int((board.embeds[0].title or "").rsplit("#", 1)[1]) for _, _, board in elsewhere]
    engine = create_engine(table.settings.database_url)
    try:
        async with engine.begin() as connection:
            await connection.execute(
                update(Match)
                .where(Match.id.in_(ids))
                .values(deadline=clock() - timedelta(seconds=1))
            )
        other = match_parts(session_factory(engine), clock=clock, seeds=lambda: 1).deadlines
        reports = await other.sweep()
    finally:
        await engine.dispose()
    assert sorted(report.match.id for report in reports) == sorted(ids)
    assert all(report.match.over for report in reports)
    assert boards.held()["shown"] == len(elsewhere)  # this process never saw them end

    await table.let_time_pass(seconds=UPKEEP_EVERY)
    assert boards.held() == dict.fromkeys(boards.held(), 0)
