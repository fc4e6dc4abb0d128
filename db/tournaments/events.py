"""A tournament, its entrants, its rounds and their pairings: reads and writes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import DEFAULT_DEVIATION, DEFAULT_RATING, DEFAULT_VOLATILITY
from db.tournaments.rows import (
    ENTRANT_COLUMNS,
    ENTRANTS,
    PAIRING_COLUMNS,
    PAIRINGS,
    ROUND_COLUMNS,
    ROUNDS,
    STATS,
    TOURNAMENT_COLUMNS,
    TOURNAMENTS,
    EntrantRow,
    PairingRow,
    RoundRow,
    TournamentRow,
)

# ---------------------------------------------------------------------- tournaments


async def insert_tournament(session: AsyncSession, values: Mapping[str, Any]) -> int:
    """Store a new tournament; its id."""
    result = await session.execute(
        insert(TOURNAMENTS).values(dict(values)).returning(TOURNAMENTS.c.id)
    )
    return int(result.scalar_one())


async def load_tournament(
    session: AsyncSession,
    tournament_id: int,
    *,
    guild_id: int | None = None,
    for_update: bool = False,
) -> TournamentRow | None:
    """The tournament, or ``None``; with ``guild_id``, ``None`` too when it is another
    server's. ``for_update`` locks its row until the transaction ends (PostgreSQL; SQLite has
    one writer at a time)."""
    statement = select(*(TOURNAMENTS.c[name] for name in TOURNAMENT_COLUMNS)).where(
        TOURNAMENTS.c.id == tournament_id
    )
    if guild_id is not None:
        statement = statement.where(TOURNAMENTS.c.guild_id == guild_id)
    if for_update:
        statement = statement.with_for_update()
    row = (await session.execute(statement)).one_or_none()
    return None if row is None else TournamentRow(*row)


async def save_tournament(
    session: AsyncSession, tournament_id: int, seen_version: int, values: Mapping[str, Any]
) -> bool:
    """Apply ``values`` if the tournament is still at ``seen_version`` (and move its version
    on); ``True`` if it was applied."""
    result = await session.execute(
        update(TOURNAMENTS)
        .where(TOURNAMENTS.c.id == tournament_id, TOURNAMENTS.c.version == seen_version)
        .values({**values, "version": TOURNAMENTS.c.version + 1})
    )
    return cast(int, getattr(result, "rowcount", 0)) == 1


async def guild_tournaments(
    session: AsyncSession, guild_id: int, statuses: Iterable[str]
) -> list[TournamentRow]:
    """The server's tournaments in ``statuses``, newest first."""
    rows = await session.execute(
        select(*(TOURNAMENTS.c[name] for name in TOURNAMENT_COLUMNS))
        .where(TOURNAMENTS.c.guild_id == guild_id, TOURNAMENTS.c.status.in_(list(statuses)))
        .order_by(TOURNAMENTS.c.id.desc())
    )
    return [TournamentRow(*row) for row in rows]


async def lock_guild(session: AsyncSession, guild_id: int) -> None:
    """Hold the server's tournaments until the transaction ends, so that two created at once
    cannot both pass its limits (on PostgreSQL an advisory lock on the server's id; SQLite has
    one writer at a time)."""
    if session.get_bind().dialect.name == "postgresql":
        await session.execute(select(func.pg_advisory_xact_lock(guild_id)))


async def entered(
    session: AsyncSession, guild_id: int, user_id: int, statuses: Iterable[str]
) -> list[int]:
    """The ids of the server's tournaments in ``statuses`` where the member is an entrant
    still paired, newest first."""
    rows = await session.execute(
        select(TOURNAMENTS.c.id)
        .join(ENTRANTS, ENTRANTS.c.tournament_id == TOURNAMENTS.c.id)
        .where(
            ENTRANTS.c.user_id == user_id,
            ENTRANTS.c.withdrawn.is_(None),
            TOURNAMENTS.c.guild_id == guild_id,
            TOURNAMENTS.c.status.in_(list(statuses)),
        )
        .order_by(TOURNAMENTS.c.id.desc())
    )
    return [tournament_id for (tournament_id,) in rows]


# ---------------------------------------------------------------------- entrants


async def entrants(session: AsyncSession, tournament_id: int) -> list[EntrantRow]:
    """The tournament's entrants in the order they joined."""
    rows = await session.execute(
        select(*(ENTRANTS.c[name] for name in ENTRANT_COLUMNS))
        .where(ENTRANTS.c.tournament_id == tournament_id)
        .order_by(ENTRANTS.c.joined_at, ENTRANTS.c.user_id)
    )
    return [EntrantRow(*row) for row in rows]


async def add_entrant(
    session: AsyncSession, tournament_id: int, user_id: int, now: datetime
) -> None:
    await session.execute(
        insert(ENTRANTS).values(tournament_id=tournament_id, user_id=user_id, joined_at=now)
    )


async def remove_entrant(session: AsyncSession, tournament_id: int, user_id: int) -> None:
    await session.execute(
        delete(ENTRANTS).where(
            ENTRANTS.c.tournament_id == tournament_id, ENTRANTS.c.user_id == user_id
        )
    )


async def set_ratings(
    session: AsyncSession, tournament_id: int, ratings: Mapping[int, tuple[float, bool]]
) -> None:
    """Fix each entrant's seeding rating, and whether it was provisional."""
    for user_id, (rating, provisional) in ratings.items():
        await session.execute(
            update(ENTRANTS)
            .where(ENTRANTS.c.tournament_id == tournament_id, ENTRANTS.c.user_id == user_id)
            .values(rating=rating, provisional=provisional)
        )


async def withdraw(
    session: AsyncSession, tournament_id: int, withdrawals: Mapping[int, str]
) -> None:
    """Pair these entrants no more, each for its reason."""
    for user_id, reason in withdrawals.items():
        await session.execute(
            update(ENTRANTS)
            .where(ENTRANTS.c.tournament_id == tournament_id, ENTRANTS.c.user_id == user_id)
            .values(withdrawn=reason)
        )


@dataclass(frozen=True)
class StoredRating:
    """A member's rating as stored: the deviation holds for ``deviation_at`` (None: never
    rated, the starting values)."""

    rating: float
    deviation: float
    volatility: float
    deviation_at: datetime | None


async def ratings(
    session: AsyncSession, guild_id: int, game: str, user_ids: Sequence[int]
) -> dict[int, StoredRating]:
    """The members' ratings in ``game`` against people in the server (the starting rating for
    a member without a record)."""
    rows = await session.execute(
        select(
            STATS.c.user_id,
            STATS.c.rating,
            STATS.c.deviation,
            STATS.c.volatility,
            STATS.c.deviation_at,
        ).where(
            STATS.c.guild_id == guild_id,
            STATS.c.game == game,
            STATS.c.vs_bot.is_(False),
            STATS.c.user_id.in_(list(user_ids)),
        )
    )
    found = {row.user_id: StoredRating(*row[1:]) for row in rows}
    fresh = StoredRating(DEFAULT_RATING, DEFAULT_DEVIATION, DEFAULT_VOLATILITY, None)
    return {user_id: found.get(user_id, fresh) for user_id in user_ids}


# ---------------------------------------------------------------------- rounds and games


async def rounds(session: AsyncSession, tournament_id: int) -> list[RoundRow]:
    rows = await session.execute(
        select(*(ROUNDS.c[name] for name in ROUND_COLUMNS))
        .where(ROUNDS.c.tournament_id == tournament_id)
        .order_by(ROUNDS.c.number)
    )
    return [RoundRow(*row) for row in rows]


async def insert_round(
    session: AsyncSession,
    tournament_id: int,
    number: int,
    bracket: Sequence[int | None] | None,
    now: datetime,
) -> None:
    await session.execute(
        insert(ROUNDS).values(
            tournament_id=tournament_id,
            number=number,
            entrants=None if bracket is None else list(bracket),
            created_at=now,
        )
    )


async def pairings(session: AsyncSession, tournament_id: int) -> list[PairingRow]:
    """The tournament's pairings, round by round, board by board, in the order played."""
    rows = await session.execute(
        select(*(PAIRINGS.c[name] for name in PAIRING_COLUMNS))
        .where(PAIRINGS.c.tournament_id == tournament_id)
        .order_by(PAIRINGS.c.round, PAIRINGS.c.board, PAIRINGS.c.replay)
    )
    return [PairingRow(*row) for row in rows]


async def insert_pairings(
    session: AsyncSession, tournament_id: int, rows: Sequence[Mapping[str, Any]]
) -> None:
    """Store new pairings: each a mapping of ``round``, ``board``, ``replay``, ``seat0``,
    ``seat1`` and, for a bye, ``ended`` and ``score0``."""
    if rows:
        await session.execute(
            insert(PAIRINGS),
            [
                {
                    "ended": False,
                    "score0": None,
                    "lapsed0": False,
                    "lapsed1": False,
                    **row,
                    "tournament_id": tournament_id,
                }
                for row in rows
            ],
        )


async def record_result(
    session: AsyncSession, pairing_id: int, score0: float | None, lapsed: tuple[bool, bool]
) -> None:
    """Mark the pairing ended with its result."""
    await session.execute(
        update(PAIRINGS)
        .where(PAIRINGS.c.id == pairing_id)
        .values(ended=True, score0=score0, lapsed0=lapsed[0], lapsed1=lapsed[1])
    )


async def link_match(session: AsyncSession, pairing_id: int, match_id: int) -> bool:
    """Record the match that plays the pairing, unless one already does; ``True`` if recorded."""
    result = await session.execute(
        update(PAIRINGS)
        .where(
            PAIRINGS.c.id == pairing_id, PAIRINGS.c.match_id.is_(None), PAIRINGS.c.ended.is_(False)
        )
        .values(match_id=match_id)
    )
    return cast(int, getattr(result, "rowcount", 0)) == 1
