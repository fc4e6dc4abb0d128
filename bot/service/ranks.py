"""Rank roles: the roles a server hands out by rating, and what each member should hold.

A server sets ranks (``/ranks set``): a game (or ``best``, a member's best rating over every
game), the rating it takes, and the role. Within one game, a member holds the highest rank their
rating reaches; a rating provisional at the update, its deviation grown since it last changed
(``ratings.as_of``), reaches none. After each rated
match the players are owed an update (``owe_after_match``, in the match's own transaction), and
when a season ends the holders of the ranks tied to it (``owe_season_update``); the Discord side
takes what is owed (``due``), asks what must change (``change``), gives and takes the roles,
and says what it did (``applied``). Parlor takes away only the roles it gave (``rank_grants``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.service.errors import MatchError, refusal
from bot.service.match_state import Clock
from bot.service.ratings import PROVISIONAL_DEVIATION, Rating, as_of
from db import ranks as stored
from db.connection import Db, session_of, session_transaction
from db.models import BEST, utcnow
from db.ranks import RankRow, RatingRow

__all__ = [
    "BEST",
    "MOST_RANKS",
    "NoSuchRank",
    "Owed",
    "Rank",
    "RankRoles",
    "RankTaken",
    "RoleChange",
    "TooManyRanks",
    "owe_after_match",
    "owe_season_update",
    "wanted_roles",
]

MOST_RANKS = 25
"""Ranks a server may set: one page of ``/ranks list``, and a bounded update per member."""
RATING_LOW, RATING_HIGH = 0, 4000
"""The ratings a rank may take."""
OWED_AT_ONCE = 500
"""Members owed an update when a rank is set, the highest rated first: at Discord's 10 role
changes a server each 10 seconds, about ten minutes of the keeper's work. The others get the
rank at their next rated match."""
CLAIM = timedelta(minutes=2)
"""How long a claimed update is kept from the other processes."""


@refusal
class RankTaken(MatchError):
    """``game`` already has a rank at ``rating``: the role ``role_id``'s."""

    game: str
    rating: int
    role_id: int


@refusal
class TooManyRanks(MatchError):
    """The server has ``most`` ranks already."""

    most: int


@refusal
class NoSuchRank(MatchError):
    """Nothing to clear: no rank of ``game`` (``None``: any), or of the role ``role_id``."""

    game: str | None
    role_id: int | None


@dataclass(frozen=True)
class Rank:
    """A rank: members whose ``game`` rating (``best``: their best) reaches ``rating`` hold
    ``role_id``; ``season``: brought up to date when a season ends too."""

    role_id: int
    game: str
    rating: int
    season: bool = False


@dataclass(frozen=True)
class Owed:
    """A member whose rank roles are owed, claimed until ``claimed_until``."""

    guild_id: int
    user_id: int
    attempts: int
    claimed_until: datetime


@dataclass(frozen=True)
class RoleChange:
    """What must change for a member: the rank roles to give and those Parlor gave to take."""

    guild_id: int
    user_id: int
    give: frozenset[int]
    take: frozenset[int]

    @property
    def nothing(self) -> bool:
        return not self.give and not self.take


def ranked(rows: Iterable[RatingRow], moment: datetime) -> dict[str, float]:
    """The member's ratings that may earn a rank at ``moment``, by game: a rating provisional
    then, its deviation grown since it last changed (``ratings.as_of``), earns none."""
    return {
        row.game: row.rating
        for row in rows
        if not as_of(
            Rating(row.rating, row.deviation, row.volatility), row.since, moment
        ).provisional
    }


def wanted_roles(ranks: Sequence[Rank], ratings: dict[str, float]) -> set[int]:
    """The rank roles a member with ``ratings`` (by game, provisional ones left out) holds:
    in each game, and in ``best``, the highest rank their rating reaches."""
    reached: dict[str, Rank] = {}
    best = max(ratings.values(), default=None)
    for rank in ranks:
        rating = best if rank.game == BEST else ratings.get(rank.game)
        if rating is None or rating < rank.rating:
            continue
        held = reached.get(rank.game)
        if held is None or rank.rating > held.rating:
            reached[rank.game] = rank
    return {rank.role_id for rank in reached.values()}


async def owe_after_match(db: Db, guild_id: int, user_ids: Sequence[int], now: datetime) -> None:
    """Within a rated match's transaction: its players' rank roles are owed, if the server has
    ranks (matches outside servers, ``guild_id`` 0, have none)."""
    if guild_id and await stored.has_ranks(db, guild_id):
        await stored.owe_updates(db, guild_id, user_ids, now)


async def owe_season_update(db: Db, guild_id: int, now: datetime) -> None:
    """Within the transaction that ends a season: every member Parlor gave a rank tied to the
    season is owed an update (their widened deviation may have made them provisional)."""
    await stored.owe_updates(db, guild_id, await stored.holders_of_season_ranks(db, guild_id), now)


def _rank(row: RankRow) -> Rank:
    return Rank(row.role_id, row.game, row.rating, row.season)


class RankRoles:
    """A server's ranks, and the updates owed to its members' roles; each one transaction."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], *, clock: Clock = utcnow):
        self.sessions = sessions
        self.clock = clock

    async def ranks(self, guild_id: int) -> list[Rank]:
        """The server's ranks by game, then rating."""
        async with session_of(self.sessions) as session:
            return [_rank(row) for row in await stored.ranks(session, guild_id)]

    async def set(self, guild_id: int, rank: Rank) -> list[Rank]:
        """Set ``rank`` (the role's earlier rank, if any, is replaced); the server's ranks.

        The members whose rating reaches it (up to ``OWED_AT_ONCE``) and those Parlor gave the
        role are owed an update at once. Refused when another role has the game's rank at that
        rating, or the server has ``MOST_RANKS`` already. A game that is not one, or a rating
        outside ``RATING_LOW`` to ``RATING_HIGH``, is a caller's mistake (``ValueError``):
        Discord's choices and range keep members from sending them."""
        if rank.game != BEST and rank.game not in games.GAMES:
            raise ValueError(f"no game {rank.game!r}")  # the command offers only choices
        if not RATING_LOW <= rank.rating <= RATING_HIGH:
            raise ValueError(f"a rating of {rank.rating}")  # the command's range holds it
        async with session_transaction(self.sessions) as session:
            found = [_rank(row) for row in await stored.ranks(session, guild_id)]
            for other in found:
                same_step = other.game == rank.game and other.rating == rank.rating
                if same_step and other.role_id != rank.role_id:
                    raise RankTaken(rank.game, rank.rating, other.role_id)
            if len(found) >= MOST_RANKS and rank.role_id not in {r.role_id for r in found}:
                raise TooManyRanks(MOST_RANKS)
            now = self.clock()
            row = RankRow(rank.role_id, rank.game, rank.rating, rank.season)
            await stored.set_rank(session, guild_id, row, now)
            game = None if rank.game == BEST else rank.game
            reaching = await stored.members_reaching(
                session, guild_id, game, rank.rating, PROVISIONAL_DEVIATION, OWED_AT_ONCE
            )
            holding = await stored.holders(session, guild_id, rank.role_id)
            await stored.owe_updates(session, guild_id, [*reaching, *holding], now)
            return [_rank(row) for row in await stored.ranks(session, guild_id)]

    async def clear(
        self, guild_id: int, *, game: str | None = None, role_id: int | None = None
    ) -> list[Rank]:
        """Clear the rank of ``role_id``, or every rank of ``game`` (both ``None``: every rank);
        the ranks cleared. Parlor manages their roles no more: members keep them."""
        async with session_transaction(self.sessions) as session:
            found = [_rank(row) for row in await stored.ranks(session, guild_id)]
            gone = [
                rank
                for rank in found
                if (game is None or rank.game == game)
                and (role_id is None or rank.role_id == role_id)
            ]
            if not gone:
                raise NoSuchRank(game, role_id)
            await stored.clear_ranks(session, guild_id, [rank.role_id for rank in gone])
            return gone

    async def role_gone(self, guild_id: int, role_id: int) -> None:
        """The role was deleted from the server: its rank goes with it."""
        async with session_transaction(self.sessions) as session:
            await stored.clear_ranks(session, guild_id, [role_id])

    async def refresh(self, guild_id: int, members: Iterable[int]) -> None:
        """The members' rank roles are owed an update now, in a transaction of its own (use
        ``owe_season_update`` inside the transaction that ends a season)."""
        async with session_transaction(self.sessions) as session:
            await stored.owe_updates(session, guild_id, list(members), self.clock())

    async def due(self, limit: int = 20) -> list[Owed]:
        """The updates owed by now, each claimed for ``CLAIM`` so that no other process takes
        it meanwhile."""
        now = self.clock()
        until = now + CLAIM
        async with session_transaction(self.sessions) as session:
            claimed = await stored.claim_updates(session, now, until, limit)
        return [Owed(guild, user, attempts, until) for guild, user, attempts in claimed]

    async def change(self, owed: Owed) -> RoleChange:
        """What must change for the member: the rank roles their ratings reach that Parlor has
        not given them, and those it gave that they reach no more."""
        async with session_of(self.sessions) as session:
            found = [_rank(row) for row in await stored.ranks(session, owed.guild_id)]
            rows = await stored.member_ratings(session, owed.guild_id, owed.user_id)
            ratings = ranked(rows, self.clock())
            given = await stored.grants(session, owed.guild_id, owed.user_id)
        wanted = wanted_roles(found, ratings)
        return RoleChange(
            owed.guild_id, owed.user_id, frozenset(wanted - given), frozenset(given - wanted)
        )

    async def record(self, owed: Owed, given: Iterable[int], taken: Iterable[int]) -> None:
        """Parlor gave the member ``given`` and took ``taken`` away; the update goes on."""
        async with session_transaction(self.sessions) as session:
            await stored.record_grants(
                session, owed.guild_id, owed.user_id, given, taken, self.clock()
            )

    async def applied(
        self, owed: Owed, given: Iterable[int], taken: Iterable[int], *, done: bool = True
    ) -> None:
        """Parlor gave the member ``given`` and took ``taken`` away: the update is done, or
        (``done`` false: Discord failed) the rest is tried again later, sooner at first."""
        async with session_transaction(self.sessions) as session:
            await stored.record_grants(
                session, owed.guild_id, owed.user_id, given, taken, self.clock()
            )
            if done:
                await stored.forget_update(session, owed.guild_id, owed.user_id, owed.claimed_until)
            else:
                await self._delay(session, owed)

    async def left(self, owed: Owed) -> None:
        """The member is no longer in the server: nothing of theirs is Parlor's to take."""
        async with session_transaction(self.sessions) as session:
            await stored.forget_member(session, owed.guild_id, owed.user_id)
            await stored.forget_update(session, owed.guild_id, owed.user_id, owed.claimed_until)

    async def retry_later(self, owed: Owed) -> None:
        """The update failed (Discord is down): try again later, sooner at first."""
        async with session_transaction(self.sessions) as session:
            await self._delay(session, owed)

    async def _delay(self, session: AsyncSession, owed: Owed) -> None:
        backoff = timedelta(seconds=min(5 * 2**owed.attempts, 600))
        await stored.delay_update(
            session, owed.guild_id, owed.user_id, owed.claimed_until, self.clock() + backoff
        )
