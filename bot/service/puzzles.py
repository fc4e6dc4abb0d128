"""Puzzles as members meet them: the next one near their puzzle rating, an answer rated with
Glicko-2 (the member against the puzzle, the puzzle against the member), their streak, and the
puzzles stored after a match or from the public pool (docs/puzzles.md).

A puzzle belongs to a scope: the server whose match it came from, or the public pool
(``PUBLIC_POOL``), which every server and every DM sees. A use case is asked from a server (its
id) or from outside servers (``None``: the public pool only); a puzzle outside what it may see
is answered as if it did not exist (``NoPuzzle``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.errors import NoPuzzle, NoPuzzleLeft, NotAChoice
from bot.service.match_state import Clock
from bot.service.puzzle_finding import PublicPool
from bot.service.ratings import DEFAULT, Rating, rate
from db import puzzles as stored
from db.connection import session_of, session_transaction
from db.models import PUBLIC_POOL, DailyPuzzle, PuzzleRating, utcnow
from db.models import Puzzle as PuzzleRow
from games.puzzles import Puzzle

__all__ = [
    "FIRST_SOLVERS",
    "Answered",
    "MemberPuzzles",
    "PuzzleShown",
    "Puzzles",
    "scopes_of",
    "shown_of",
]

FIRST_SOLVERS = 5
"""The day's first solvers a daily puzzle post names."""


def scopes_of(guild_id: int | None) -> tuple[int, ...]:
    """The scopes a use case asked from ``guild_id`` may read: the server's and the public
    pool, or the public pool alone outside servers."""
    return (PUBLIC_POOL,) if guild_id is None else (guild_id, PUBLIC_POOL)


@dataclass(frozen=True)
class PuzzleShown:
    """A puzzle to solve: its id, the position and question, and where it comes from."""

    id: int
    puzzle: Puzzle
    match_id: int | None
    """The match of this server it was found in (``None`` for the public pool)."""
    rating: Rating
    """The puzzle's own rating."""


@dataclass(frozen=True)
class Answered:
    """An answer taken: right or wrong, the puzzle's answer and why, and the member's puzzle
    rating before and after. ``counted`` is ``False`` for a second press (or a race lost): the
    first answer stands and nothing changed."""

    shown: PuzzleShown
    action: str
    correct: bool
    counted: bool
    before: Rating
    after: Rating
    streak: int
    best_streak: int


@dataclass(frozen=True)
class MemberPuzzles:
    """A member's puzzle rating for one game, with their answers and streaks."""

    game: str
    rating: Rating
    tries: int
    solves: int
    streak: int
    best_streak: int


class Puzzles:
    """Puzzles' use cases, each one transaction of ``sessions``."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        clock: Clock = utcnow,
        pool: PublicPool | None = None,
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.pool = pool
        """The public pool, stored before the first puzzle is picked (``None``: never)."""

    @property
    def pool_ready(self) -> bool:
        """Whether picking a puzzle needs no storing of the public pool first."""
        return self.pool is None or self.pool.held

    async def next_puzzle(
        self, guild_id: int | None, user_id: int, game: str | None
    ) -> PuzzleShown:
        """The puzzle nearest the member's puzzle rating (for ``game``, or any game) they never
        had, from no match of theirs; ``NoPuzzleLeft`` when none is."""
        if self.pool is not None:
            await self.pool.ensure()
        async with session_of(self.sessions) as session:
            rating = DEFAULT.rating
            if game is not None:
                row = await stored.member_rating(session, user_id, game)
                rating = row.rating if row is not None else rating
            else:
                rows = await stored.member_ratings(session, user_id)
                if rows:
                    rating = sum(row.rating for row in rows) / len(rows)
            found = await stored.nearest_puzzle(session, scopes_of(guild_id), user_id, game, rating)
            if found is None:
                raise NoPuzzleLeft(game)
            return shown_of(found)

    async def puzzle(self, guild_id: int | None, puzzle_id: int) -> PuzzleShown:
        """Puzzle ``puzzle_id``, if it may be seen from ``guild_id``."""
        async with session_of(self.sessions) as session:
            found = await stored.puzzle_in(session, puzzle_id, scopes_of(guild_id))
            if found is None:
                raise NoPuzzle(puzzle_id)
            return shown_of(found)

    async def answer(
        self, guild_id: int | None, user_id: int, puzzle_id: int, action: str | int
    ) -> Answered:
        """Take the member's answer once: rate them and the puzzle, move their streak on, and
        count it on today's daily post when it is that post's puzzle. A second answer changes
        nothing and answers as the first did. ``action`` is a choice's action, or its index
        among the choices (what a button carries)."""
        now = self.clock()
        async with session_transaction(self.sessions) as session:
            found = await stored.puzzle_in(session, puzzle_id, scopes_of(guild_id), lock=True)
            if found is None:
                raise NoPuzzle(puzzle_id)
            shown = shown_of(found)
            puzzle = shown.puzzle
            actions = tuple(choice.action for choice in puzzle.choices)
            if isinstance(action, int):
                if not 0 <= action < len(actions):
                    raise NotAChoice(f"#{action + 1}", actions)
                action = actions[action]
            if action not in actions:
                raise NotAChoice(action, actions)
            correct = action == puzzle.answer
            if not await stored.add_attempt(session, puzzle_id, user_id, action, correct, now):
                return await _repeated(session, shown, user_id)
            member = await stored.new_member_rating(session, user_id, puzzle.game, now)
            before = _rating(member)
            score = 1.0 if correct else 0.0
            after = rate(before, [(shown.rating, score)])
            puzzle_after = rate(shown.rating, [(before, 1.0 - score)])
            _rate_member(member, after, correct, now)
            found.rating, found.deviation = puzzle_after.rating, puzzle_after.deviation
            found.volatility = puzzle_after.volatility
            found.tries += 1
            found.solves += int(correct)
            if guild_id is not None:
                day = now.date().isoformat()
                post = await stored.daily_of_puzzle(session, guild_id, puzzle_id, day)
                if post is not None:
                    _count_daily(post, user_id, correct)
            return Answered(
                shown, action, correct, True, before, after, member.streak, member.best_streak
            )

    async def ratings(self, user_id: int) -> list[MemberPuzzles]:
        """The member's puzzle ratings, a game each, the same in every server."""
        async with session_of(self.sessions) as session:
            rows = await stored.member_ratings(session, user_id)
        return [
            MemberPuzzles(
                row.game, _rating(row), row.tries, row.solves, row.streak, row.best_streak
            )
            for row in rows
        ]

    async def store(self, guild_id: int, match_id: int | None, puzzles: Sequence[Puzzle]) -> int:
        """Keep ``puzzles`` in ``guild_id``'s scope (``PUBLIC_POOL`` for the pool), each
        position once: how many were new."""
        rows = [stored.NewPuzzle(p.game, p.key, dict(p.dump())) for p in puzzles]
        async with session_transaction(self.sessions) as session:
            return await stored.add_puzzles(session, guild_id, match_id, rows, self.clock())

    async def count(self, guild_id: int) -> int:
        """How many puzzles ``guild_id``'s scope holds."""
        async with session_of(self.sessions) as session:
            return await stored.count_puzzles(session, guild_id)


def shown_of(row: PuzzleRow) -> PuzzleShown:
    """A stored puzzle as the use cases hand it out."""
    match_id = row.match_id if row.guild_id != PUBLIC_POOL else None
    rating = Rating(row.rating, row.deviation, row.volatility)
    return PuzzleShown(row.id, Puzzle.load(row.data), match_id, rating)


def _rating(row: PuzzleRating) -> Rating:
    return Rating(row.rating, row.deviation, row.volatility)


async def _repeated(session: AsyncSession, shown: PuzzleShown, user_id: int) -> Answered:
    """The member's first answer, as it stands (their rating now on both sides)."""
    first = await stored.attempt(session, shown.id, user_id)
    row = await stored.member_rating(session, user_id, shown.puzzle.game)
    assert first is not None  # the insert that lost found it
    rating = _rating(row) if row is not None else DEFAULT
    streak, best = (row.streak, row.best_streak) if row is not None else (0, 0)
    return Answered(shown, first.action, first.correct, False, rating, rating, streak, best)


def _rate_member(row: PuzzleRating, after: Rating, correct: bool, now: datetime) -> None:
    row.rating, row.deviation, row.volatility = after.rating, after.deviation, after.volatility
    row.tries += 1
    if correct:
        row.solves += 1
        row.streak += 1
        row.best_streak = max(row.best_streak, row.streak)
    else:
        row.streak = 0
    row.updated_at = now


def _count_daily(post: DailyPuzzle, user_id: int, correct: bool) -> None:
    post.tries += 1
    if correct:
        post.solves += 1
        if len(post.first_solvers) < FIRST_SOLVERS:
            post.first_solvers = [*post.first_solvers, user_id]
    post.version += 1
