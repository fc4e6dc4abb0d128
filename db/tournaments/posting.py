"""What a tournament has left to do, and the claims of the process posting it."""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import and_, exists, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import TournamentStatus
from db.tournaments.rows import (
    ENDED,
    MATCHES,
    OVER,
    PAIRINGS,
    ROUNDS,
    TOURNAMENTS,
)

# ---------------------------------------------------------------------- posting


async def needing_attention(
    session: AsyncSession, now: datetime, created_before: datetime
) -> list[int]:
    """The tournaments with something to do: a match over whose result is not recorded, a
    round to post or whose matches to start, a board never posted, or an end to announce."""
    games, matches = PAIRINGS.alias("g"), MATCHES.alias("m")
    free = or_(ROUNDS.c.claimed_until.is_(None), ROUNDS.c.claimed_until < now)
    result_due = exists().where(
        games.c.tournament_id == TOURNAMENTS.c.id,
        games.c.ended.is_(False),
        matches.c.id == games.c.match_id,
        or_(
            matches.c.status.in_(OVER),
            and_(matches.c.message_id.is_(None), matches.c.created_at < created_before),
        ),
    )
    match_due = exists().where(
        PAIRINGS.c.tournament_id == TOURNAMENTS.c.id,
        PAIRINGS.c.ended.is_(False),
        PAIRINGS.c.match_id.is_(None),
    )
    round_due = exists().where(
        ROUNDS.c.tournament_id == TOURNAMENTS.c.id, ROUNDS.c.message_id.is_(None), free
    )
    end_due = and_(
        TOURNAMENTS.c.status.in_(ENDED),
        TOURNAMENTS.c.announced.is_(False),
        or_(TOURNAMENTS.c.claimed_until.is_(None), TOURNAMENTS.c.claimed_until < now),
    )
    running = and_(
        TOURNAMENTS.c.status == TournamentStatus.RUNNING.value,
        or_(result_due, match_due, round_due),
    )
    rows = await session.execute(
        select(TOURNAMENTS.c.id).where(or_(running, end_due)).order_by(TOURNAMENTS.c.id)
    )
    return [tournament_id for (tournament_id,) in rows]


async def claim_round(
    session: AsyncSession, tournament_id: int, now: datetime, until: datetime
) -> int | None:
    """Claim the first round not yet posted, unless another process holds it; its number."""
    number = await session.scalar(
        select(ROUNDS.c.number)
        .where(ROUNDS.c.tournament_id == tournament_id, ROUNDS.c.message_id.is_(None))
        .order_by(ROUNDS.c.number)
        .limit(1)
    )
    if number is None:
        return None
    result = await session.execute(
        update(ROUNDS)
        .where(
            ROUNDS.c.tournament_id == tournament_id,
            ROUNDS.c.number == number,
            ROUNDS.c.message_id.is_(None),
            or_(ROUNDS.c.claimed_until.is_(None), ROUNDS.c.claimed_until < now),
        )
        .values(claimed_until=until)
    )
    return int(number) if cast(int, getattr(result, "rowcount", 0)) == 1 else None


async def record_round_post(
    session: AsyncSession, tournament_id: int, number: int, channel_id: int, message_id: int
) -> None:
    """The round is posted: its message, and the channel (or thread) its matches go in."""
    await session.execute(
        update(ROUNDS)
        .where(ROUNDS.c.tournament_id == tournament_id, ROUNDS.c.number == number)
        .values(channel_id=channel_id, message_id=message_id, claimed_until=None)
    )


async def claim_end(
    session: AsyncSession, tournament_id: int, now: datetime, until: datetime
) -> bool:
    """Claim the announcement of the tournament's end, unless it is made or held."""
    result = await session.execute(
        update(TOURNAMENTS)
        .where(
            TOURNAMENTS.c.id == tournament_id,
            TOURNAMENTS.c.status.in_(ENDED),
            TOURNAMENTS.c.announced.is_(False),
            or_(TOURNAMENTS.c.claimed_until.is_(None), TOURNAMENTS.c.claimed_until < now),
        )
        .values(claimed_until=until)
    )
    return cast(int, getattr(result, "rowcount", 0)) == 1


async def mark_announced(session: AsyncSession, tournament_id: int) -> None:
    await session.execute(
        update(TOURNAMENTS)
        .where(TOURNAMENTS.c.id == tournament_id)
        .values(announced=True, claimed_until=None)
    )


async def set_message_id(session: AsyncSession, tournament_id: int, message_id: int) -> None:
    """Remember the sign-up message (not a change of the tournament: no version change)."""
    await session.execute(
        update(TOURNAMENTS).where(TOURNAMENTS.c.id == tournament_id).values(message_id=message_id)
    )
