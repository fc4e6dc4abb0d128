"""Puzzles, answers to them, members' puzzle ratings and the daily puzzle posts: the queries.

A puzzle's scope is its server's id, or ``PUBLIC_POOL`` (0); a reader passes the scopes it may
see, so a puzzle of one server is never read from another.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, and_, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.connection import upsert
from db.models import (
    DEFAULT_DEVIATION,
    DEFAULT_RATING,
    DEFAULT_VOLATILITY,
    PUBLIC_POOL,
    DailyPuzzle,
    GuildSettings,
    Match,
    MatchPlayer,
    MatchStatus,
    Puzzle,
    PuzzleAttempt,
    PuzzleRating,
    PuzzleSource,
)


@dataclass(frozen=True, slots=True)
class NewPuzzle:
    """A puzzle to store: its game, key and ``games.puzzles.Puzzle.dump()``."""

    game: str
    key: str
    data: dict[str, Any]


async def add_puzzles(
    session: AsyncSession,
    guild_id: int,
    match_id: int | None,
    puzzles: Sequence[NewPuzzle],
    now: datetime,
) -> int:
    """Store ``puzzles`` in ``guild_id``'s scope, each position once: how many were new."""
    if not puzzles:
        return 0
    rows = [
        {
            "guild_id": guild_id,
            "match_id": match_id,
            "game": puzzle.game,
            "key": puzzle.key,
            "data": puzzle.data,
            "rating": DEFAULT_RATING,
            "deviation": DEFAULT_DEVIATION,
            "volatility": DEFAULT_VOLATILITY,
            "tries": 0,
            "solves": 0,
            "created_at": now,
        }
        for puzzle in puzzles
    ]
    statement = upsert(session, Puzzle).values(rows).on_conflict_do_nothing()
    result = cast(CursorResult[Any], await session.execute(statement))
    return max(result.rowcount, 0)


async def count_puzzles(session: AsyncSession, guild_id: int) -> int:
    """How many puzzles ``guild_id``'s scope holds."""
    query = select(func.count()).select_from(Puzzle).where(Puzzle.guild_id == guild_id)
    return (await session.execute(query)).scalar_one()


async def nearest_puzzle(
    session: AsyncSession,
    scopes: Iterable[int],
    user_id: int,
    game: str | None,
    rating: float,
) -> Puzzle | None:
    """The puzzle of ``scopes`` (and ``game``) rated nearest ``rating`` that ``user_id`` never
    answered and whose match they did not play; ``None`` when none is left."""
    answered = select(PuzzleAttempt.puzzle_id).where(PuzzleAttempt.user_id == user_id)
    played = select(MatchPlayer.match_id).where(MatchPlayer.user_id == user_id)
    query = (
        select(Puzzle)
        .where(
            Puzzle.guild_id.in_(list(scopes)),
            Puzzle.id.not_in(answered),
            or_(Puzzle.match_id.is_(None), Puzzle.match_id.not_in(played)),
        )
        .order_by(func.abs(Puzzle.rating - rating), Puzzle.id)
        .limit(1)
    )
    if game is not None:
        query = query.where(Puzzle.game == game)
    return (await session.execute(query)).scalar_one_or_none()


async def puzzle_in(
    session: AsyncSession, puzzle_id: int, scopes: Iterable[int], *, lock: bool = False
) -> Puzzle | None:
    """Puzzle ``puzzle_id`` if it is of one of ``scopes``, else ``None``; ``lock`` reads it
    ``FOR UPDATE`` (its rating is about to change)."""
    query = select(Puzzle).where(Puzzle.id == puzzle_id, Puzzle.guild_id.in_(list(scopes)))
    if lock:
        query = query.with_for_update()
    return (await session.execute(query)).scalar_one_or_none()


async def attempt(session: AsyncSession, puzzle_id: int, user_id: int) -> PuzzleAttempt | None:
    """``user_id``'s answer to the puzzle, if they gave one."""
    return await session.get(PuzzleAttempt, (puzzle_id, user_id))


async def add_attempt(
    session: AsyncSession,
    puzzle_id: int,
    user_id: int,
    action: str,
    correct: bool,
    now: datetime,
) -> bool:
    """Record ``user_id``'s answer; ``False`` (and nothing changed) when they already gave one,
    a press before or at the same moment."""
    statement = (
        upsert(session, PuzzleAttempt)
        .values(puzzle_id=puzzle_id, user_id=user_id, action=action, correct=correct, at=now)
        .on_conflict_do_nothing()
    )
    result = cast(CursorResult[Any], await session.execute(statement))
    return result.rowcount == 1


async def member_rating(
    session: AsyncSession, user_id: int, game: str, *, lock: bool = False
) -> PuzzleRating | None:
    """``user_id``'s puzzle rating for ``game``, if they answered one."""
    query = select(PuzzleRating).where(PuzzleRating.user_id == user_id, PuzzleRating.game == game)
    if lock:
        query = query.with_for_update()
    return (await session.execute(query)).scalar_one_or_none()


async def member_ratings(session: AsyncSession, user_id: int) -> list[PuzzleRating]:
    """``user_id``'s puzzle ratings, one per game they answered puzzles of."""
    query = select(PuzzleRating).where(PuzzleRating.user_id == user_id)
    return list((await session.execute(query.order_by(PuzzleRating.game))).scalars())


async def new_member_rating(
    session: AsyncSession, user_id: int, game: str, now: datetime
) -> PuzzleRating:
    """``user_id``'s puzzle rating for ``game``, made at the default when they have none,
    locked."""
    statement = (
        upsert(session, PuzzleRating)
        .values(
            user_id=user_id,
            game=game,
            rating=DEFAULT_RATING,
            deviation=DEFAULT_DEVIATION,
            volatility=DEFAULT_VOLATILITY,
            tries=0,
            solves=0,
            streak=0,
            best_streak=0,
            updated_at=now,
        )
        .on_conflict_do_nothing()
    )
    await session.execute(statement)
    row = await member_rating(session, user_id, game, lock=True)
    assert row is not None
    return row


async def puzzle_channel(session: AsyncSession, guild_id: int) -> int | None:
    """The server's daily puzzle channel, if a manager set one."""
    query = select(GuildSettings.puzzle_channel).where(GuildSettings.guild_id == guild_id)
    return (await session.execute(query)).scalar_one_or_none()


async def set_puzzle_channel(
    session: AsyncSession, guild_id: int, channel_id: int | None, now: datetime
) -> None:
    """Set (or, with ``None``, clear) the server's daily puzzle channel."""
    statement = upsert(session, GuildSettings).values(
        guild_id=guild_id, puzzle_channel=channel_id, updated_at=now
    )
    await session.execute(
        statement.on_conflict_do_update(
            index_elements=[GuildSettings.guild_id],
            set_={"puzzle_channel": channel_id, "updated_at": now},
        )
    )


async def puzzle_channels(session: AsyncSession) -> list[tuple[int, int]]:
    """Every server with a daily puzzle channel: ``(guild_id, channel_id)``."""
    query = select(GuildSettings.guild_id, GuildSettings.puzzle_channel).where(
        GuildSettings.puzzle_channel.is_not(None)
    )
    return [(guild, cast(int, channel)) for guild, channel in (await session.execute(query))]


async def daily(session: AsyncSession, guild_id: int, day: str) -> DailyPuzzle | None:
    return await session.get(DailyPuzzle, (guild_id, day))


async def daily_of_puzzle(
    session: AsyncSession, guild_id: int, puzzle_id: int, day: str
) -> DailyPuzzle | None:
    """The server's daily post of ``day`` when it is ``puzzle_id``'s, locked."""
    query = (
        select(DailyPuzzle)
        .where(
            DailyPuzzle.guild_id == guild_id,
            DailyPuzzle.day == day,
            DailyPuzzle.puzzle_id == puzzle_id,
        )
        .with_for_update()
    )
    return (await session.execute(query)).scalar_one_or_none()


async def add_daily(
    session: AsyncSession, guild_id: int, day: str, puzzle_id: int, channel_id: int
) -> bool:
    """The server's puzzle of ``day``, to be posted; ``False`` when it already has one."""
    statement = (
        upsert(session, DailyPuzzle)
        .values(
            guild_id=guild_id,
            day=day,
            puzzle_id=puzzle_id,
            channel_id=channel_id,
            tries=0,
            solves=0,
            first_solvers=[],
            version=1,
            shown=0,
        )
        .on_conflict_do_nothing()
    )
    result = cast(CursorResult[Any], await session.execute(statement))
    return result.rowcount == 1


async def dailies_behind(session: AsyncSession, limit: int) -> list[DailyPuzzle]:
    """Daily posts whose message does not show their latest change, oldest day first."""
    query = (
        select(DailyPuzzle)
        .where(DailyPuzzle.shown < DailyPuzzle.version)
        .order_by(DailyPuzzle.day, DailyPuzzle.guild_id)
        .limit(limit)
    )
    return list((await session.execute(query)).scalars())


async def mark_shown(
    session: AsyncSession, guild_id: int, day: str, version: int, message_id: int | None
) -> None:
    """The post now shows ``version`` (and is ``message_id``, when it was just posted)."""
    values: dict[str, Any] = {"shown": version}
    if message_id is not None:
        values["message_id"] = message_id
    await session.execute(
        update(DailyPuzzle)
        .where(
            and_(
                DailyPuzzle.guild_id == guild_id,
                DailyPuzzle.day == day,
                DailyPuzzle.shown < version,
            )
        )
        .values(**values)
    )


async def scope_puzzle_ids(session: AsyncSession, scopes: Iterable[int]) -> list[int]:
    """Every puzzle id of ``scopes``, in order: what the day's puzzle is drawn from."""
    query = select(Puzzle.id).where(Puzzle.guild_id.in_(list(scopes))).order_by(Puzzle.id)
    return list((await session.execute(query)).scalars())


async def unsearched_matches(session: AsyncSession, limit: int) -> list[tuple[int, int]]:
    """Finished matches between two members in a server, not yet searched for puzzles, oldest
    first: ``(guild_id, match_id)``. Matches outside servers (guild 0) are left out: their
    puzzles would belong to no server, and the public pool is the bot's own games."""
    searched = select(PuzzleSource.match_id)
    query = (
        select(Match.guild_id, Match.id)
        .where(
            Match.status == MatchStatus.FINISHED,
            Match.vs_bot.is_(False),
            Match.guild_id != PUBLIC_POOL,
            Match.id.not_in(searched),
        )
        .order_by(Match.id)
        .limit(limit)
    )
    return [(guild, match) for guild, match in await session.execute(query)]


async def mark_searched(session: AsyncSession, match_id: int, found: int, now: datetime) -> None:
    """Match ``match_id`` was searched for puzzles and gave ``found`` new ones."""
    statement = (
        upsert(session, PuzzleSource)
        .values(match_id=match_id, found=found, at=now)
        .on_conflict_do_nothing()
    )
    await session.execute(statement)
