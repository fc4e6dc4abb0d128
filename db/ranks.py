"""Rank roles: a server's ranks, the roles Parlor gave, and the members owed an update
(``db.models.ranks``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy import Table, bindparam, delete, exists, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.connection import Db, core_connection, upsert
from db.models import PlayerStats, RankGrant, RankRole, RankUpdate

_UPDATES = cast(Table, RankUpdate.__table__)


@dataclass(frozen=True)
class RankRow:
    """One of a server's ranks as stored."""

    role_id: int
    game: str
    rating: int
    season: bool


@dataclass(frozen=True)
class RatingRow:
    """A member's rating in one game against people."""

    game: str
    rating: float
    deviation: float
    volatility: float
    since: datetime | None
    """When the stored deviation was reached (it grows from there; ``None``: never rated)."""


async def ranks(session: AsyncSession, guild_id: int) -> list[RankRow]:
    """The server's ranks by game, then rating."""
    rows = await session.execute(
        select(RankRole.role_id, RankRole.game, RankRole.rating, RankRole.season)
        .where(RankRole.guild_id == guild_id)
        .order_by(RankRole.game, RankRole.rating)
    )
    return [RankRow(*row) for row in rows]


async def set_rank(session: AsyncSession, guild_id: int, rank: RankRow, now: datetime) -> None:
    """Store ``rank``, replacing the role's earlier rank (a role is one rank at most)."""
    values = {"game": rank.game, "rating": rank.rating, "season": rank.season}
    statement = upsert(session, RankRole).values(
        guild_id=guild_id, role_id=rank.role_id, created_at=now, **values
    )
    await session.execute(
        statement.on_conflict_do_update(
            index_elements=[RankRole.guild_id, RankRole.role_id], set_=values
        )
    )


async def clear_ranks(session: AsyncSession, guild_id: int, role_ids: Sequence[int]) -> None:
    """Forget the ranks of ``role_ids`` and that Parlor gave them: it manages them no more."""
    await session.execute(
        delete(RankRole).where(RankRole.guild_id == guild_id, RankRole.role_id.in_(role_ids))
    )
    await session.execute(
        delete(RankGrant).where(RankGrant.guild_id == guild_id, RankGrant.role_id.in_(role_ids))
    )


async def has_ranks(db: Db, guild_id: int) -> bool:
    """Whether the server has a rank role."""
    connection = await core_connection(db)
    return bool((await connection.execute(_HAS_RANKS, {"guild_id": guild_id})).scalar())


_HAS_RANKS = select(exists().where(RankRole.guild_id == bindparam("guild_id")))
# Built once: asked as every match between two members ends.


async def owe_updates(db: Db, guild_id: int, user_ids: Iterable[int], due: datetime) -> None:
    """The members' rank roles must be brought up to date from ``due`` on (one entry each: an
    entry already owed is brought forward, never duplicated)."""
    rows = [
        {"guild_id": guild_id, "user_id": uid, "due_at": due, "attempts": 0}
        for uid in sorted(set(user_ids))  # one order: two transactions never wait in a cycle
    ]
    if not rows:
        return
    connection = await core_connection(db)
    statement = upsert(connection, RankUpdate)
    await connection.execute(
        statement.on_conflict_do_update(
            index_elements=[RankUpdate.guild_id, RankUpdate.user_id],
            set_={"due_at": statement.excluded.due_at, "attempts": 0},
        ),
        rows,
    )


async def holders_of_season_ranks(db: Db, guild_id: int) -> list[int]:
    """The members Parlor gave a rank role tied to the season."""
    connection = await core_connection(db)
    rows = await connection.execute(
        select(RankGrant.user_id)
        .distinct()
        .join(
            RankRole,
            (RankRole.guild_id == RankGrant.guild_id) & (RankRole.role_id == RankGrant.role_id),
        )
        .where(RankGrant.guild_id == guild_id, RankRole.season.is_(True))
        .order_by(RankGrant.user_id)
    )
    return [row[0] for row in rows]


async def members_reaching(
    session: AsyncSession,
    guild_id: int,
    game: str | None,
    rating: int,
    below_deviation: float,
    limit: int,
) -> list[int]:
    """Up to ``limit`` members whose stored rating in ``game`` (``None``: any game) reaches
    ``rating`` with a deviation below ``below_deviation``, the highest rated first."""
    query = select(PlayerStats.user_id).where(
        PlayerStats.guild_id == guild_id,
        PlayerStats.vs_bot.is_(False),
        PlayerStats.rating >= rating,
        PlayerStats.deviation < below_deviation,
    )
    if game is not None:
        query = query.where(PlayerStats.game == game)
    rows = await session.execute(query.order_by(PlayerStats.rating.desc()).limit(limit))
    return list(dict.fromkeys(row[0] for row in rows))


async def holders(session: AsyncSession, guild_id: int, role_id: int) -> list[int]:
    """The members Parlor gave the role."""
    rows = await session.execute(
        select(RankGrant.user_id).where(
            RankGrant.guild_id == guild_id, RankGrant.role_id == role_id
        )
    )
    return [row[0] for row in rows]


async def claim_updates(
    session: AsyncSession, now: datetime, retry_at: datetime, limit: int
) -> list[tuple[int, int, int]]:
    """The updates due by ``now`` as ``(guild_id, user_id, attempts)``, oldest first, each
    pushed back to ``retry_at`` so that no other process takes it meanwhile."""
    rows = (
        await session.execute(
            select(_UPDATES.c.guild_id, _UPDATES.c.user_id, _UPDATES.c.attempts)
            .where(_UPDATES.c.due_at <= now)
            .order_by(_UPDATES.c.due_at, _UPDATES.c.guild_id, _UPDATES.c.user_id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    ).all()
    for guild_id, user_id, _attempts in rows:
        await session.execute(
            update(_UPDATES)
            .where(_UPDATES.c.guild_id == guild_id, _UPDATES.c.user_id == user_id)
            .values(due_at=retry_at, attempts=_UPDATES.c.attempts + 1)
        )
    return [(guild_id, user_id, attempts) for guild_id, user_id, attempts in rows]


async def forget_update(
    session: AsyncSession, guild_id: int, user_id: int, claimed_until: datetime
) -> None:
    """The member's update is done, unless another was owed since it was claimed (its due time
    moved from ``claimed_until``): that one stays."""
    await session.execute(
        delete(RankUpdate).where(
            RankUpdate.guild_id == guild_id,
            RankUpdate.user_id == user_id,
            RankUpdate.due_at == claimed_until,
        )
    )


async def delay_update(
    session: AsyncSession, guild_id: int, user_id: int, claimed_until: datetime, until: datetime
) -> None:
    """Try the member's update again at ``until`` (unless another was owed meanwhile)."""
    await session.execute(
        update(RankUpdate)
        .where(
            RankUpdate.guild_id == guild_id,
            RankUpdate.user_id == user_id,
            RankUpdate.due_at == claimed_until,
        )
        .values(due_at=until)
    )


async def member_ratings(session: AsyncSession, guild_id: int, user_id: int) -> list[RatingRow]:
    """The member's ratings against people in the server, one a game played."""
    rows = await session.execute(
        select(
            PlayerStats.game,
            PlayerStats.rating,
            PlayerStats.deviation,
            PlayerStats.volatility,
            PlayerStats.deviation_at,
        ).where(
            PlayerStats.guild_id == guild_id,
            PlayerStats.user_id == user_id,
            PlayerStats.vs_bot.is_(False),
        )
    )
    return [RatingRow(*row) for row in rows]


async def grants(session: AsyncSession, guild_id: int, user_id: int) -> set[int]:
    """The rank roles Parlor gave the member."""
    rows = await session.execute(
        select(RankGrant.role_id).where(
            RankGrant.guild_id == guild_id, RankGrant.user_id == user_id
        )
    )
    return {row[0] for row in rows}


async def record_grants(
    session: AsyncSession,
    guild_id: int,
    user_id: int,
    given: Iterable[int],
    taken: Iterable[int],
    now: datetime,
) -> None:
    """Parlor gave the member ``given`` and took ``taken`` away."""
    taken = list(taken)
    if taken:
        await session.execute(
            delete(RankGrant).where(
                RankGrant.guild_id == guild_id,
                RankGrant.user_id == user_id,
                RankGrant.role_id.in_(taken),
            )
        )
    for role_id in given:
        statement = upsert(session, RankGrant).values(
            guild_id=guild_id, user_id=user_id, role_id=role_id, given_at=now
        )
        await session.execute(statement.on_conflict_do_nothing())


async def forget_member(session: AsyncSession, guild_id: int, user_id: int) -> None:
    """The member left the server: no role of theirs is Parlor's to take any more."""
    await session.execute(
        delete(RankGrant).where(RankGrant.guild_id == guild_id, RankGrant.user_id == user_id)
    )
