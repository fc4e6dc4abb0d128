"""The queries of what stays after a match: rating changes, stored reviews, and the names
players had when their matches ended (a member's finished matches: ``db.member_matches``).

Every read starts from an index on what it shows: a rating chart from the member's rows in
``rating_history``.

Rows of ``rating_history`` without a match are of two kinds, told apart by their deviations
(``SEASON_RESET``): where a member's history began (migration 0010: before and after alike),
and a season's soft reset (``db.seasons.widen_deviations``: the deviation widened, so after
is wider). A reader after matches joins ``matches`` on ``match_id``, which neither has.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import BigInteger, Table, and_, bindparam, column, insert, select, update, values
from sqlalchemy.ext.asyncio import AsyncSession

from db.connection import Db, core_connection, upsert
from db.models import Match, MatchPlayer, MatchReview, RatingChange


@dataclass(frozen=True)
class RatingMove:
    """One member's rating around one rated match."""

    user_id: int
    rating_before: float
    deviation_before: float
    rating_after: float
    deviation_after: float


async def add_rating_changes(
    session: Db,
    match_id: int | None,
    guild_id: int,
    game: str,
    moves: Sequence[RatingMove],
    at: datetime,
) -> None:
    """Record the rating changes of a rated match, in the transaction that records its result."""
    if not moves:
        return
    await session.execute(
        insert(RatingChange),
        [
            {
                "match_id": match_id,
                "guild_id": guild_id,
                "game": game,
                "user_id": move.user_id,
                "rating_before": move.rating_before,
                "deviation_before": move.deviation_before,
                "rating_after": move.rating_after,
                "deviation_after": move.deviation_after,
                "at": at,
            }
            for move in moves
        ],
    )


@dataclass(frozen=True)
class RatingPoint:
    """A member's Glicko-2 rating in one game right after a rated match (or when history
    began, or a season's soft reset widened its deviation)."""

    at: datetime
    rating: float
    deviation: float
    reset: bool = False
    """A season's soft reset, not a match: the rating kept, the deviation widened."""


SEASON_RESET = and_(
    RatingChange.match_id.is_(None),
    RatingChange.deviation_after > RatingChange.deviation_before,
)
"""A row of a season's soft reset: no match, and a deviation widened. The rows history began
with have no match either, but keep their deviation; a reset that would not widen one (at
its cap already) writes no row."""


async def rating_points(
    session: AsyncSession, guild_id: int, user_id: int, game: str | None = None
) -> dict[str, list[RatingPoint]]:
    """The member's ratings in the server by game, each oldest first (of ``game`` only, if
    given), season resets among them."""
    statement = select(
        RatingChange.game,
        RatingChange.at,
        RatingChange.rating_after,
        RatingChange.deviation_after,
        SEASON_RESET,
    ).where(RatingChange.guild_id == guild_id, RatingChange.user_id == user_id)
    if game is not None:
        statement = statement.where(RatingChange.game == game)
    rows = await session.execute(statement.order_by(RatingChange.at, RatingChange.id))
    found: dict[str, list[RatingPoint]] = {}
    for name, at, rating, deviation, reset in rows:
        found.setdefault(name, []).append(RatingPoint(at, rating, deviation, bool(reset)))
    return found


# ---------------------------------------------------------------------- a finished match


async def match_status(session: AsyncSession, guild_id: int, match_id: int) -> str | None:
    """The match's status, if it is one of the server's."""
    found: str | None = await session.scalar(
        select(Match.status).where(Match.id == match_id, Match.guild_id == guild_id)
    )
    return found


# ---------------------------------------------------------------------- names


_SEATS = cast(Table, MatchPlayer.__table__)
_KEEP_NAME = (
    update(_SEATS)
    .where(_SEATS.c.match_id == bindparam("m"), _SEATS.c.seat == bindparam("s"))
    .values(display_name=bindparam("n"))
)


async def keep_names(session: Db, match_id: int, names: Mapping[int, str]) -> None:
    """Store each seat's display name (``{seat: name}``) as the match ends: one statement."""
    if not names:
        return
    connection = await core_connection(session)
    rows = [{"m": match_id, "s": seat, "n": name} for seat, name in names.items()]
    await connection.execute(_KEEP_NAME, rows)


async def latest_names(
    session: AsyncSession, guild_id: int, user_ids: Iterable[int]
) -> dict[int, str]:
    """Each member's name as stored at the end of their latest match in the server that has one.

    One statement for all of them (a page's members): for each member, their rows in
    ``match_players`` walked newest first through ``ix_match_players_user_match`` to the first
    with a name, which stops at their latest match once names are kept (a window numbering
    each member's rows would read all of them). The members are a ``VALUES`` list in a ``WITH``,
    the form SQLite and PostgreSQL both take. A member with no stored name there is left
    out."""
    wanted = sorted(set(user_ids))
    if not wanted:
        return {}
    members = (
        values(column("user_id", BigInteger), name="members")
        .data([(user_id,) for user_id in wanted])
        .cte("members")
    )
    name = (
        select(MatchPlayer.display_name)
        .join(Match, Match.id == MatchPlayer.match_id)
        .where(
            MatchPlayer.user_id == members.c.user_id,
            MatchPlayer.display_name.is_not(None),
            Match.guild_id == guild_id,
        )
        .order_by(MatchPlayer.match_id.desc())
        .limit(1)
        .correlate(members)
        .scalar_subquery()
    )
    rows = await session.execute(select(members.c.user_id, name))
    return {user_id: found for user_id, found in rows if found is not None}


# ---------------------------------------------------------------------- reviews


async def stored_review(session: AsyncSession, match_id: int) -> tuple[int, dict[str, Any]] | None:
    """The match's stored review, with its format version, if one was stored."""
    row = (
        await session.execute(
            select(MatchReview.version, MatchReview.review).where(MatchReview.match_id == match_id)
        )
    ).first()
    return None if row is None else (row[0], dict(row[1]))


async def store_review(
    session: AsyncSession, match_id: int, version: int, review: dict[str, Any], now: datetime
) -> None:
    """Keep the match's review, replacing one of an older format."""
    statement = upsert(session, MatchReview).values(
        match_id=match_id, version=version, review=review, created_at=now
    )
    await session.execute(
        statement.on_conflict_do_update(
            index_elements=[MatchReview.match_id],
            set_={"version": version, "review": review, "created_at": now},
        )
    )
