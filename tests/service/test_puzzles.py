"""Puzzles on the database: the next one near the member's rating and never one they had or
played, an answer taken once and rated both ways, streaks, and each server's puzzles kept to it."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.errors import NoPuzzle, NoPuzzleLeft, NotAChoice
from bot.service.match_parts import MatchParts
from bot.service.puzzles import Puzzles
from bot.service.ratings import DEFAULT
from db.models import PUBLIC_POOL, PuzzleAttempt
from tests.puzzle_values import crown_puzzle, crystal_puzzle
from tests.service.conftest import ALICE, BOB, CAROL, GUILD, Clock
from tests.service.test_matches import start

OTHER_GUILD = GUILD + 1


@pytest.fixture
def puzzles(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> Puzzles:
    return Puzzles(sessions, clock=clock)


async def test_a_position_is_stored_once_per_scope(puzzles: Puzzles) -> None:
    assert await puzzles.store(GUILD, None, [crystal_puzzle(), crystal_puzzle()]) == 1
    assert await puzzles.store(GUILD, None, [crystal_puzzle(), crown_puzzle()]) == 1
    assert await puzzles.store(PUBLIC_POOL, None, [crystal_puzzle()]) == 1
    assert await puzzles.count(GUILD) == 2
    assert await puzzles.count(PUBLIC_POOL) == 1


async def test_a_right_answer_raises_the_member_and_lowers_the_puzzle(puzzles: Puzzles) -> None:
    await puzzles.store(GUILD, None, [crystal_puzzle()])
    shown = await puzzles.next_puzzle(GUILD, ALICE, "crystal")
    assert shown.puzzle == crystal_puzzle()
    assert shown.match_id is None

    answered = await puzzles.answer(GUILD, ALICE, shown.id, "1")

    assert answered.correct and answered.counted
    assert answered.before == DEFAULT
    assert answered.after.rating > DEFAULT.rating
    assert answered.after.deviation < DEFAULT.deviation
    assert (answered.streak, answered.best_streak) == (1, 1)
    after = await puzzles.puzzle(GUILD, shown.id)
    assert after.rating.rating < DEFAULT.rating
    (mine,) = await puzzles.ratings(ALICE)
    assert (mine.game, mine.tries, mine.solves, mine.streak) == ("crystal", 1, 1, 1)
    assert mine.rating == answered.after


async def test_a_wrong_answer_lowers_the_member_and_ends_the_streak(puzzles: Puzzles) -> None:
    await puzzles.store(GUILD, None, [crystal_puzzle(1), crystal_puzzle(2)])
    first = await puzzles.next_puzzle(GUILD, ALICE, None)
    right = await puzzles.answer(GUILD, ALICE, first.id, "1")
    second = await puzzles.next_puzzle(GUILD, ALICE, None)
    assert second.id != first.id

    wrong = await puzzles.answer(GUILD, ALICE, second.id, "2")

    assert not wrong.correct and wrong.counted
    assert wrong.before == right.after
    assert wrong.after.rating < right.after.rating
    assert (wrong.streak, wrong.best_streak) == (0, 1)
    with pytest.raises(NoPuzzleLeft):
        await puzzles.next_puzzle(GUILD, ALICE, None)


async def test_the_next_puzzle_is_the_one_nearest_the_members_rating(
    puzzles: Puzzles, sessions: async_sessionmaker[AsyncSession]
) -> None:
    await puzzles.store(GUILD, None, [crystal_puzzle(seed) for seed in (1, 2, 3)])
    first = await puzzles.next_puzzle(GUILD, BOB, "crystal")
    await puzzles.answer(GUILD, BOB, first.id, "2")  # wrong: the puzzle rises to ~1660
    await puzzles.answer(GUILD, CAROL, first.id, "2")  # ~1760
    high = await puzzles.puzzle(GUILD, first.id)
    assert high.rating.rating > 1700

    await puzzles.answer(GUILD, ALICE, first.id, "1")  # ALICE ~1900 now
    (alice,) = await puzzles.ratings(ALICE)
    assert alice.rating.rating > 1700
    # The remaining two are both at 1500: the nearest, the lower id first.
    nearest = await puzzles.next_puzzle(GUILD, ALICE, "crystal")
    assert nearest.id != first.id and nearest.rating.rating == 1500


async def test_a_second_press_counts_for_nothing(
    puzzles: Puzzles, sessions: async_sessionmaker[AsyncSession]
) -> None:
    await puzzles.store(GUILD, None, [crystal_puzzle()])
    shown = await puzzles.next_puzzle(GUILD, ALICE, None)

    answers = await asyncio.gather(
        *(puzzles.answer(GUILD, ALICE, shown.id, action) for action in ("1", "2", "1"))
    )

    assert sum(answered.counted for answered in answers) == 1
    counted = next(answered for answered in answers if answered.counted)
    for again in answers:
        assert (again.action, again.correct) == (counted.action, counted.correct)
    (mine,) = await puzzles.ratings(ALICE)
    assert mine.tries == 1
    async with sessions() as session:
        count = select(func.count()).select_from(PuzzleAttempt)
        assert (await session.execute(count)).scalar_one() == 1


async def test_an_answer_that_is_no_choice_is_refused_and_changes_nothing(
    puzzles: Puzzles,
) -> None:
    await puzzles.store(GUILD, None, [crystal_puzzle()])
    shown = await puzzles.next_puzzle(GUILD, ALICE, None)

    with pytest.raises(NotAChoice) as refused:
        await puzzles.answer(GUILD, ALICE, shown.id, "7")

    assert refused.value.choices == ("1", "2", "3")
    assert await puzzles.ratings(ALICE) == []
    assert (await puzzles.next_puzzle(GUILD, ALICE, None)).id == shown.id


async def test_another_servers_puzzle_does_not_exist_here(puzzles: Puzzles) -> None:
    await puzzles.store(OTHER_GUILD, None, [crystal_puzzle()])
    (theirs,) = [await puzzles.next_puzzle(OTHER_GUILD, ALICE, None)]

    with pytest.raises(NoPuzzleLeft):
        await puzzles.next_puzzle(GUILD, ALICE, None)
    with pytest.raises(NoPuzzleLeft):
        await puzzles.next_puzzle(None, ALICE, None)
    with pytest.raises(NoPuzzle):
        await puzzles.answer(GUILD, ALICE, theirs.id, "1")
    with pytest.raises(NoPuzzle):
        await puzzles.answer(None, ALICE, theirs.id, "1")
    with pytest.raises(NoPuzzle):
        await puzzles.puzzle(GUILD, theirs.id)
    assert await puzzles.ratings(ALICE) == []


async def test_the_public_pool_is_seen_everywhere(puzzles: Puzzles) -> None:
    await puzzles.store(PUBLIC_POOL, None, [crown_puzzle()])

    for where in (GUILD, OTHER_GUILD, None):
        shown = await puzzles.next_puzzle(where, ALICE, "crown")
        assert shown.puzzle == crown_puzzle()
    answered = await puzzles.answer(None, ALICE, shown.id, "3 3")
    assert answered.correct


async def test_a_puzzle_from_a_match_the_member_played_is_not_theirs_to_solve(
    puzzles: Puzzles, service: MatchParts
) -> None:
    match_id = await start(service, "crystal")
    await service.play.resign(match_id, ALICE)
    await puzzles.store(GUILD, match_id, [crystal_puzzle()])

    for player in (ALICE, BOB):
        with pytest.raises(NoPuzzleLeft):
            await puzzles.next_puzzle(GUILD, player, None)
    shown = await puzzles.next_puzzle(GUILD, CAROL, None)
    assert shown.match_id == match_id


async def test_a_button_answers_with_its_choices_index(puzzles: Puzzles) -> None:
    await puzzles.store(GUILD, None, [crystal_puzzle()])
    shown = await puzzles.next_puzzle(GUILD, ALICE, None)

    with pytest.raises(NotAChoice):
        await puzzles.answer(GUILD, ALICE, shown.id, 3)
    answered = await puzzles.answer(GUILD, ALICE, shown.id, 0)

    assert answered.action == "1" and answered.correct and answered.counted
