"""The queries of tournaments, as plain async functions over a caller's session.

As in ``db.repository``, every function takes the ``AsyncSession`` first and never commits. A
tournament changes under a version check (``save_tournament``), so of two writers who read it at
the same version exactly one goes on; its rounds' announcements and its end are posted by the
process that claims them (``claim_round``, ``claim_end``) for a while, so a process that dies
while posting leaves them to be posted again once its claim has run out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, and_, delete, exists, insert, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import (
    DEFAULT_RATING,
    UNFINISHED_STATUSES,
    GuildOrganizers,
    Match,
    MatchPlayer,
    MatchStatus,
    PlayerStats,
    Tournament,
    TournamentEntrant,
    TournamentGame,
    TournamentRound,
    TournamentStatus,
)

_TOURNAMENTS = cast(Table, Tournament.__table__)
_ENTRANTS = cast(Table, TournamentEntrant.__table__)
_ROUNDS = cast(Table, TournamentRound.__table__)
_GAMES = cast(Table, TournamentGame.__table__)
_MATCHES = cast(Table, Match.__table__)
_PLAYERS = cast(Table, MatchPlayer.__table__)
_STATS = cast(Table, PlayerStats.__table__)
_OVER = (MatchStatus.FINISHED.value, MatchStatus.ABORTED.value)
_ENDED = (TournamentStatus.FINISHED.value, TournamentStatus.CANCELLED.value)


@dataclass(slots=True)
class TournamentRow:
    """A tournament's columns as plain values, outside any session."""

    id: int
    guild_id: int
    channel_id: int
    creator_id: int
    game: str
    options: dict[str, Any]
    format: str
    rounds: int | None
    max_players: int | None
    status: str
    round: int
    version: int
    message_id: int | None
    winner_id: int | None
    announced: bool
    claimed_until: datetime | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class EntrantRow:
    user_id: int
    joined_at: datetime
    rating: float | None
    withdrawn: str | None


@dataclass(frozen=True, slots=True)
class RoundRow:
    number: int
    entrants: list[int | None] | None
    channel_id: int | None
    message_id: int | None


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    round: int
    board: int
    replay: int
    seat0: int
    seat1: int | None
    match_id: int | None
    ended: bool
    score0: float | None
    lapsed0: bool
    lapsed1: bool


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """How a match ended: its status and result, the seats that ever acted in it, and the
    member who called it off before it started (a resignation in setup), if one did."""

    match_id: int
    status: str
    winner_seat: int | None
    end_reason: str | None
    acted: frozenset[int]
    called_off_by: int | None


_TOURNAMENT_COLUMNS = tuple(f.name for f in fields(TournamentRow))
_ENTRANT_COLUMNS = tuple(f.name for f in fields(EntrantRow))
_ROUND_COLUMNS = tuple(f.name for f in fields(RoundRow))
_GAME_COLUMNS = tuple(f.name for f in fields(GameRow))


# ---------------------------------------------------------------------- tournaments


async def insert_tournament(session: AsyncSession, values: Mapping[str, Any]) -> int:
    """Store a new tournament; its id."""
    result = await session.execute(
        insert(_TOURNAMENTS).values(dict(values)).returning(_TOURNAMENTS.c.id)
    )
    return int(result.scalar_one())


async def load_tournament(
    session: AsyncSession, tournament_id: int, *, for_update: bool = False
) -> TournamentRow | None:
    """The tournament, or ``None``; ``for_update`` locks its row until the transaction ends
    (PostgreSQL; SQLite has one writer at a time)."""
    statement = select(*(_TOURNAMENTS.c[name] for name in _TOURNAMENT_COLUMNS)).where(
        _TOURNAMENTS.c.id == tournament_id
    )
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
        update(_TOURNAMENTS)
        .where(_TOURNAMENTS.c.id == tournament_id, _TOURNAMENTS.c.version == seen_version)
        .values({**values, "version": _TOURNAMENTS.c.version + 1})
    )
    return cast(int, getattr(result, "rowcount", 0)) == 1


async def guild_tournaments(
    session: AsyncSession, guild_id: int, statuses: Iterable[str]
) -> list[TournamentRow]:
    """The server's tournaments in ``statuses``, newest first."""
    rows = await session.execute(
        select(*(_TOURNAMENTS.c[name] for name in _TOURNAMENT_COLUMNS))
        .where(_TOURNAMENTS.c.guild_id == guild_id, _TOURNAMENTS.c.status.in_(list(statuses)))
        .order_by(_TOURNAMENTS.c.id.desc())
    )
    return [TournamentRow(*row) for row in rows]


async def entered(
    session: AsyncSession, guild_id: int, user_id: int, statuses: Iterable[str]
) -> list[int]:
    """The ids of the server's tournaments in ``statuses`` where the member is an entrant
    still paired, newest first."""
    rows = await session.execute(
        select(_TOURNAMENTS.c.id)
        .join(_ENTRANTS, _ENTRANTS.c.tournament_id == _TOURNAMENTS.c.id)
        .where(
            _ENTRANTS.c.user_id == user_id,
            _ENTRANTS.c.withdrawn.is_(None),
            _TOURNAMENTS.c.guild_id == guild_id,
            _TOURNAMENTS.c.status.in_(list(statuses)),
        )
        .order_by(_TOURNAMENTS.c.id.desc())
    )
    return [tournament_id for (tournament_id,) in rows]


# ---------------------------------------------------------------------- entrants


async def entrants(session: AsyncSession, tournament_id: int) -> list[EntrantRow]:
    """The tournament's entrants in the order they joined."""
    rows = await session.execute(
        select(*(_ENTRANTS.c[name] for name in _ENTRANT_COLUMNS))
        .where(_ENTRANTS.c.tournament_id == tournament_id)
        .order_by(_ENTRANTS.c.joined_at, _ENTRANTS.c.user_id)
    )
    return [EntrantRow(*row) for row in rows]


async def add_entrant(
    session: AsyncSession, tournament_id: int, user_id: int, now: datetime
) -> None:
    await session.execute(
        insert(_ENTRANTS).values(tournament_id=tournament_id, user_id=user_id, joined_at=now)
    )


async def remove_entrant(session: AsyncSession, tournament_id: int, user_id: int) -> None:
    await session.execute(
        delete(_ENTRANTS).where(
            _ENTRANTS.c.tournament_id == tournament_id, _ENTRANTS.c.user_id == user_id
        )
    )


async def set_ratings(
    session: AsyncSession, tournament_id: int, ratings: Mapping[int, float]
) -> None:
    """Fix each entrant's seeding rating."""
    for user_id, rating in ratings.items():
        await session.execute(
            update(_ENTRANTS)
            .where(_ENTRANTS.c.tournament_id == tournament_id, _ENTRANTS.c.user_id == user_id)
            .values(rating=rating)
        )


async def withdraw(
    session: AsyncSession, tournament_id: int, withdrawals: Mapping[int, str]
) -> None:
    """Pair these entrants no more, each for its reason."""
    for user_id, reason in withdrawals.items():
        await session.execute(
            update(_ENTRANTS)
            .where(_ENTRANTS.c.tournament_id == tournament_id, _ENTRANTS.c.user_id == user_id)
            .values(withdrawn=reason)
        )


async def ratings(
    session: AsyncSession, guild_id: int, game: str, user_ids: Sequence[int]
) -> dict[int, float]:
    """The members' ratings in ``game`` against people in the server (the starting rating for
    a member without a record)."""
    rows = await session.execute(
        select(_STATS.c.user_id, _STATS.c.rating).where(
            _STATS.c.guild_id == guild_id,
            _STATS.c.game == game,
            _STATS.c.vs_bot.is_(False),
            _STATS.c.user_id.in_(list(user_ids)),
        )
    )
    found = {user_id: rating for user_id, rating in rows}
    return {user_id: float(found.get(user_id, DEFAULT_RATING)) for user_id in user_ids}


# ---------------------------------------------------------------------- rounds and games


async def rounds(session: AsyncSession, tournament_id: int) -> list[RoundRow]:
    rows = await session.execute(
        select(*(_ROUNDS.c[name] for name in _ROUND_COLUMNS))
        .where(_ROUNDS.c.tournament_id == tournament_id)
        .order_by(_ROUNDS.c.number)
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
        insert(_ROUNDS).values(
            tournament_id=tournament_id,
            number=number,
            entrants=None if bracket is None else list(bracket),
            created_at=now,
        )
    )


async def games(session: AsyncSession, tournament_id: int) -> list[GameRow]:
    """The tournament's games, round by round, board by board, in the order played."""
    rows = await session.execute(
        select(*(_GAMES.c[name] for name in _GAME_COLUMNS))
        .where(_GAMES.c.tournament_id == tournament_id)
        .order_by(_GAMES.c.round, _GAMES.c.board, _GAMES.c.replay)
    )
    return [GameRow(*row) for row in rows]


async def insert_games(
    session: AsyncSession, tournament_id: int, rows: Sequence[Mapping[str, Any]]
) -> None:
    """Store new games: each a mapping of ``round``, ``board``, ``replay``, ``seat0``,
    ``seat1`` and, for a bye, ``ended`` and ``score0``."""
    if rows:
        await session.execute(
            insert(_GAMES),
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
    session: AsyncSession, game_id: int, score0: float | None, lapsed: tuple[bool, bool]
) -> None:
    """Mark the game ended with its result."""
    await session.execute(
        update(_GAMES)
        .where(_GAMES.c.id == game_id)
        .values(ended=True, score0=score0, lapsed0=lapsed[0], lapsed1=lapsed[1])
    )


async def link_match(session: AsyncSession, game_id: int, match_id: int) -> bool:
    """Record the match that plays the game, unless one already does; ``True`` if recorded."""
    result = await session.execute(
        update(_GAMES)
        .where(_GAMES.c.id == game_id, _GAMES.c.match_id.is_(None), _GAMES.c.ended.is_(False))
        .values(match_id=match_id)
    )
    return cast(int, getattr(result, "rowcount", 0)) == 1


async def game_of_match(session: AsyncSession, match_id: int) -> tuple[int, int] | None:
    """``(tournament id, game id)`` of the tournament game a match plays, or ``None``."""
    row = (
        await session.execute(
            select(_GAMES.c.tournament_id, _GAMES.c.id).where(_GAMES.c.match_id == match_id)
        )
    ).one_or_none()
    return None if row is None else (row[0], row[1])


async def match_ends(session: AsyncSession, match_ids: Sequence[int]) -> dict[int, MatchEnd]:
    """How each of these matches ended, for those that are over: read from the match's own
    columns (``acted_seats``, ``called_off_by``), never from its event log."""
    if not match_ids:
        return {}
    over = await session.execute(
        select(
            _MATCHES.c.id,
            _MATCHES.c.status,
            _MATCHES.c.winner_seat,
            _MATCHES.c.end_reason,
            _MATCHES.c.acted_seats,
            _MATCHES.c.called_off_by,
        ).where(_MATCHES.c.id.in_(list(match_ids)), _MATCHES.c.status.in_(_OVER))
    )
    return {
        match_id: MatchEnd(
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
        select(_MATCHES.c.id)
        .join(_GAMES, _GAMES.c.match_id == _MATCHES.c.id)
        .where(
            _GAMES.c.tournament_id == tournament_id,
            _MATCHES.c.status.in_([status.value for status in UNFINISHED_STATUSES]),
        )
        .order_by(_MATCHES.c.id)
    )
    return [match_id for (match_id,) in rows]


async def member_match(session: AsyncSession, tournament_id: int, user_id: int) -> int | None:
    """The member's match of this tournament not yet over, if any."""
    row = (
        await session.execute(
            select(_MATCHES.c.id)
            .join(_GAMES, _GAMES.c.match_id == _MATCHES.c.id)
            .join(_PLAYERS, _PLAYERS.c.match_id == _MATCHES.c.id)
            .where(
                _GAMES.c.tournament_id == tournament_id,
                _PLAYERS.c.user_id == user_id,
                _MATCHES.c.status.in_([status.value for status in UNFINISHED_STATUSES]),
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
        select(_MATCHES.c.id)
        .join(_GAMES, _GAMES.c.match_id == _MATCHES.c.id)
        .where(
            _GAMES.c.tournament_id == tournament_id,
            _GAMES.c.ended.is_(False),
            _MATCHES.c.message_id.is_(None),
            _MATCHES.c.status.in_([status.value for status in UNFINISHED_STATUSES]),
            _MATCHES.c.created_at < created_before,
        )
        .order_by(_MATCHES.c.id)
    )
    return [match_id for (match_id,) in rows]


# ---------------------------------------------------------------------- posting


async def needing_attention(
    session: AsyncSession, now: datetime, created_before: datetime
) -> list[int]:
    """The tournaments with something to do: a match over whose result is not recorded, a
    round to post or whose matches to start, a board never posted, or an end to announce."""
    games, matches = _GAMES.alias("g"), _MATCHES.alias("m")
    free = or_(_ROUNDS.c.claimed_until.is_(None), _ROUNDS.c.claimed_until < now)
    result_due = exists().where(
        games.c.tournament_id == _TOURNAMENTS.c.id,
        games.c.ended.is_(False),
        matches.c.id == games.c.match_id,
        or_(
            matches.c.status.in_(_OVER),
            and_(matches.c.message_id.is_(None), matches.c.created_at < created_before),
        ),
    )
    match_due = exists().where(
        _GAMES.c.tournament_id == _TOURNAMENTS.c.id,
        _GAMES.c.ended.is_(False),
        _GAMES.c.match_id.is_(None),
    )
    round_due = exists().where(
        _ROUNDS.c.tournament_id == _TOURNAMENTS.c.id, _ROUNDS.c.message_id.is_(None), free
    )
    end_due = and_(
        _TOURNAMENTS.c.status.in_(_ENDED),
        _TOURNAMENTS.c.announced.is_(False),
        or_(_TOURNAMENTS.c.claimed_until.is_(None), _TOURNAMENTS.c.claimed_until < now),
    )
    running = and_(
        _TOURNAMENTS.c.status == TournamentStatus.RUNNING.value,
        or_(result_due, match_due, round_due),
    )
    rows = await session.execute(
        select(_TOURNAMENTS.c.id).where(or_(running, end_due)).order_by(_TOURNAMENTS.c.id)
    )
    return [tournament_id for (tournament_id,) in rows]


async def claim_round(
    session: AsyncSession, tournament_id: int, now: datetime, until: datetime
) -> int | None:
    """Claim the first round not yet posted, unless another process holds it; its number."""
    number = await session.scalar(
        select(_ROUNDS.c.number)
        .where(_ROUNDS.c.tournament_id == tournament_id, _ROUNDS.c.message_id.is_(None))
        .order_by(_ROUNDS.c.number)
        .limit(1)
    )
    if number is None:
        return None
    result = await session.execute(
        update(_ROUNDS)
        .where(
            _ROUNDS.c.tournament_id == tournament_id,
            _ROUNDS.c.number == number,
            _ROUNDS.c.message_id.is_(None),
            or_(_ROUNDS.c.claimed_until.is_(None), _ROUNDS.c.claimed_until < now),
        )
        .values(claimed_until=until)
    )
    return int(number) if cast(int, getattr(result, "rowcount", 0)) == 1 else None


async def record_round_post(
    session: AsyncSession, tournament_id: int, number: int, channel_id: int, message_id: int
) -> None:
    """The round is posted: its message, and the channel (or thread) its matches go in."""
    await session.execute(
        update(_ROUNDS)
        .where(_ROUNDS.c.tournament_id == tournament_id, _ROUNDS.c.number == number)
        .values(channel_id=channel_id, message_id=message_id, claimed_until=None)
    )


async def claim_end(
    session: AsyncSession, tournament_id: int, now: datetime, until: datetime
) -> bool:
    """Claim the announcement of the tournament's end, unless it is made or held."""
    result = await session.execute(
        update(_TOURNAMENTS)
        .where(
            _TOURNAMENTS.c.id == tournament_id,
            _TOURNAMENTS.c.status.in_(_ENDED),
            _TOURNAMENTS.c.announced.is_(False),
            or_(_TOURNAMENTS.c.claimed_until.is_(None), _TOURNAMENTS.c.claimed_until < now),
        )
        .values(claimed_until=until)
    )
    return cast(int, getattr(result, "rowcount", 0)) == 1


async def mark_announced(session: AsyncSession, tournament_id: int) -> None:
    await session.execute(
        update(_TOURNAMENTS)
        .where(_TOURNAMENTS.c.id == tournament_id)
        .values(announced=True, claimed_until=None)
    )


async def set_message_id(session: AsyncSession, tournament_id: int, message_id: int) -> None:
    """Remember the sign-up message (not a change of the tournament: no version change)."""
    await session.execute(
        update(_TOURNAMENTS).where(_TOURNAMENTS.c.id == tournament_id).values(message_id=message_id)
    )


# ---------------------------------------------------------------------- organizers


async def organizer_role(session: AsyncSession, guild_id: int) -> int | None:
    """The role whose members may run the server's tournaments, if one is set."""
    row = await session.get(GuildOrganizers, guild_id)
    return None if row is None else row.role_id


async def set_organizer_role(
    session: AsyncSession, guild_id: int, role_id: int, now: datetime
) -> None:
    upsert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    statement = upsert(GuildOrganizers).values(guild_id=guild_id, role_id=role_id, updated_at=now)
    await session.execute(
        statement.on_conflict_do_update(
            index_elements=[GuildOrganizers.guild_id],
            set_={"role_id": role_id, "updated_at": now},
        )
    )
