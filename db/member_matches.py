"""A member's finished matches in a server, as ``/stats``, ``/history`` and the web pages list
them: one type, one query, and the one reading of a match's result from a player's side.

The query starts from the member's own rows in ``match_players`` (their index), so its cost
follows the member's history, never the server's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import and_, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import Match, MatchPlayer, MatchStatus, RatingChange

Result = Literal["win", "loss", "draw"]
"""A finished match from one player's side."""
POINTS: dict[Result, float] = {"win": 1.0, "draw": 0.5, "loss": 0.0}
"""What a result scores in a Glicko-2 rating."""


def result_for(seat: int, winner_seat: int | None) -> Result:
    """The result for the player in ``seat`` of a match won by ``winner_seat`` (``None``: drawn)."""
    if winner_seat is None:
        return "draw"
    return "win" if winner_seat == seat else "loss"


@dataclass(frozen=True)
class MemberMatch:
    """A finished match seen from one of its players."""

    id: int
    game: str
    seat: int
    """The member's seat."""
    opponent_id: int
    vs_bot: bool
    winner_seat: int | None
    end_reason: str | None
    finished_at: datetime | None
    channel_id: int
    message_id: int | None
    """The board's message, for a link to it (``None``: never posted)."""
    rating_before: float | None
    """The member's rating around the match; ``None`` when it was not rated (against the bot,
    or before rating history was kept)."""
    rating_after: float | None

    @property
    def result(self) -> Result:
        return result_for(self.seat, self.winner_seat)

    @property
    def rating_change(self) -> float | None:
        """How much the match moved the member's rating; ``None`` when it was not rated."""
        if self.rating_before is None or self.rating_after is None:
            return None
        return self.rating_after - self.rating_before


async def member_matches(
    session: AsyncSession,
    guild_id: int,
    user_id: int,
    *,
    game: str | None = None,
    offset: int = 0,
    limit: int,
    by_finish: bool = False,
) -> list[MemberMatch]:
    """Rows ``offset`` to ``offset + limit`` of the member's finished matches in the server (of
    ``game`` only, if given), newest first: by match number, which walks the member's rows in
    ``match_players`` in their index's order so a page costs what it skips and shows; or, with
    ``by_finish``, by when each ended, which sorts the member's matches first."""
    mine = MatchPlayer.__table__.alias("mine")
    other = MatchPlayer.__table__.alias("other")
    newest = (Match.finished_at.desc(), Match.id.desc()) if by_finish else (mine.c.match_id.desc(),)
    statement = (
        select(
            Match.id,
            Match.game,
            mine.c.seat,
            other.c.user_id,
            Match.vs_bot,
            Match.winner_seat,
            Match.end_reason,
            Match.finished_at,
            Match.channel_id,
            Match.message_id,
            RatingChange.rating_before,
            RatingChange.rating_after,
        )
        .select_from(mine)
        .join(Match, Match.id == mine.c.match_id)
        .join(other, and_(other.c.match_id == mine.c.match_id, other.c.seat != mine.c.seat))
        .outerjoin(
            RatingChange,
            and_(RatingChange.match_id == Match.id, RatingChange.user_id == user_id),
        )
        .where(
            mine.c.user_id == user_id,
            Match.guild_id == guild_id,
            Match.status == MatchStatus.FINISHED,
        )
        .order_by(*newest)
        .offset(offset)
        .limit(limit)
    )
    if game is not None:
        statement = statement.where(Match.game == game)
    return [
        MemberMatch(
            id=row[0],
            game=row[1],
            seat=row[2],
            opponent_id=row[3],
            vs_bot=bool(row[4]),
            winner_seat=row[5],
            end_reason=row[6],
            finished_at=row[7],
            channel_id=row[8],
            message_id=row[9],
            rating_before=row[10],
            rating_after=row[11],
        )
        for row in await session.execute(statement)
    ]
