"""Puzzles found in finished rated matches: each match searched once, in the executor given,
its puzzles kept in its server and never shown to its players; the public pool stored once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.errors import NoPuzzleLeft
from bot.service.match_parts import MatchParts
from bot.service.puzzle_finding import KEPT_PER_MATCH, PublicPool, PuzzleFinder
from bot.service.puzzles import Puzzles
from db.models import PUBLIC_POOL, PuzzleSource
from games.puzzles import Puzzle, find
from tests.puzzle_values import crown_puzzle
from tests.service.conftest import ALICE, BOB, CAROL, GUILD, Clock
from tests.service.test_matches import start

CRYSTAL_MOVES = ("3", "2", "5", "1", "6", "9")
"""A Crystal Capture match (seed 1, Alice first) with puzzles in it."""


async def crystal_played(service: MatchParts) -> int:
    match_id = await start(service, "crystal")
    for number, move in enumerate(CRYSTAL_MOVES):
        report = await service.play.submit(match_id, (ALICE, BOB)[number % 2], move)
    assert report.match.status == "finished"
    return match_id


async def test_a_finished_match_is_searched_once_and_its_puzzles_kept_in_its_server(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    match_id = await crystal_played(service)
    actions = [(seat % 2, "action", move) for seat, move in enumerate(CRYSTAL_MOVES)]
    expected = find("crystal", {}, 1, actions)
    assert expected
    with ThreadPoolExecutor(1) as executor:
        finder = PuzzleFinder(sessions, clock=clock, executor=executor)
        new = await finder.round()
        assert await finder.round() == 0  # searched: not again
    assert new == min(len(expected), KEPT_PER_MATCH)
    async with sessions() as session:
        (source,) = (await session.execute(select(PuzzleSource))).scalars()
    assert (source.match_id, source.found) == (match_id, new)

    puzzles = Puzzles(sessions, clock=clock)
    for player in (ALICE, BOB):
        with pytest.raises(NoPuzzleLeft):
            await puzzles.next_puzzle(GUILD, player, None)
    shown = await puzzles.next_puzzle(GUILD, CAROL, None)
    assert shown.match_id == match_id and shown.puzzle in expected[:KEPT_PER_MATCH]
    with pytest.raises(NoPuzzleLeft):
        await puzzles.next_puzzle(GUILD + 1, CAROL, None)


async def test_a_match_in_play_is_not_searched(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    match_id = await start(service, "crystal")
    await service.play.submit(match_id, ALICE, "3")  # still in play
    assert await PuzzleFinder(sessions, clock=clock).round() == 0
    async with sessions() as session:
        assert list((await session.execute(select(PuzzleSource))).scalars()) == []


async def test_the_public_pool_is_stored_once_at_the_first_puzzle(
    sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    calls: list[int] = []

    def shipped() -> list[Puzzle]:
        calls.append(1)
        return [crown_puzzle(1), crown_puzzle(2)]

    pool = PublicPool(sessions, clock=clock, shipped=shipped)
    puzzles = Puzzles(sessions, clock=clock, pool=pool)
    shown = await puzzles.next_puzzle(None, ALICE, None)
    await puzzles.next_puzzle(GUILD, BOB, "crown")
    assert shown.puzzle in (crown_puzzle(1), crown_puzzle(2))
    assert await puzzles.count(PUBLIC_POOL) == 2 and calls == [1]
    again = PublicPool(sessions, clock=clock, shipped=shipped)  # another process, or a restart
    assert await again.ensure() == 0 and calls == [1]
