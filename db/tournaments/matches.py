"""The matches that play a tournament's pairings: how they ended, which are still on."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import UNFINISHED_STATUSES
from db.tournaments.rows import (
    MATCHES,
    OVER,
    PAIRINGS,
    PLAYERS,
    MatchEndRow,
)


async def match_ends(session: AsyncSession, match_ids: Sequence[int]) -> dict[int, MatchEndRow]:
    """How each of these matches ended, for those that are over: read from the match's own
    columns (``acted_seats``, ``called_off_by``), never from its event log."""
    if not match_ids:
        return {}
    over = await session.execute(
        select(
            MATCHES.c.id,
            MATCHES.c.status,
            MATCHES.c.winner_seat,
            MATCHES.c.end_reason,
            MATCHES.c.acted_seats,
            MATCHES.c.called_off_by,
        ).where(MATCHES.c.id.in_(list(match_ids)), MATCHES.c.status.in_(OVER))
    )
    return {
        match_id: MatchEndRow(
            match_id,
            status,
            winner_seat,
            end_reason,
            frozenset(seat for seat in (0, 1) if (acted_seats or 0) >> seat & 1),
            called_off_by,
        )
        for match_id, status, winner_seat, end_reason, acted_seats, called_off_by in over
    }


async def unfinished_matches(session: AsyncSession, tournament_id: int) -> list[int]:
    """The tournament's matches not yet over."""
    rows = await session.execute(
        select(MATCHES.c.id)
        .join(PAIRINGS, PAIRINGS.c.match_id == MATCHES.c.id)
        .where(
            PAIRINGS.c.tournament_id == tournament_id,
            MATCHES.c.status.in_([status.value for status in UNFINISHED_STATUSES]),
        )
        .order_by(MATCHES.c.id)
    )
    return [match_id for (match_id,) in rows]


async def member_match(session: AsyncSession, tournament_id: int, user_id: int) -> int | None:
    """The member's match of this tournament not yet over, if any."""
    row = (
        await session.execute(
            select(MATCHES.c.id)
            .join(PAIRINGS, PAIRINGS.c.match_id == MATCHES.c.id)
            .join(PLAYERS, PLAYERS.c.match_id == MATCHES.c.id)
            .where(
                PAIRINGS.c.tournament_id == tournament_id,
                PLAYERS.c.user_id == user_id,
                MATCHES.c.status.in_([status.value for status in UNFINISHED_STATUSES]),
            )
            .limit(1)
        )
    ).one_or_none()
    return None if row is None else int(row[0])


async def unposted_matches(
    session: AsyncSession, tournament_id: int, created_before: datetime
) -> list[int]:
    """The tournament's matches in play whose board was never posted (their process stopped
    between starting them and posting), started before ``created_before``."""
    rows = await session.execute(
        select(MATCHES.c.id)
        .join(PAIRINGS, PAIRINGS.c.match_id == MATCHES.c.id)
        .where(
            PAIRINGS.c.tournament_id == tournament_id,
            PAIRINGS.c.ended.is_(False),
            MATCHES.c.message_id.is_(None),
            MATCHES.c.status.in_([status.value for status in UNFINISHED_STATUSES]),
            MATCHES.c.created_at < created_before,
        )
        .order_by(MATCHES.c.id)
    )
    return [match_id for (match_id,) in rows]
