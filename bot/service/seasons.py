"""Seasons: a server's standings per season and game, its season settings, and a season's end
(closed by the sweeper, its podium owed to the server's channel, the next season opened, every
deviation widened).

A season's standings are written with each rated match's result (``season_results``); this
module reads them and ends seasons. Every view is of the server it was asked from: another
server's season is answered as if it did not exist.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.service.errors import NoSeason
from bot.service.match_state import Clock
from bot.service.ranks import owe_season_update
from bot.service.ratings import Rating, as_of, display, ranked_until
from bot.service.season_periods import length_of, next_season, score_of, widened
from db import season_podiums, seasons
from db.connection import session_of, session_transaction
from db.models import SeasonLength, SeasonScore, utcnow
from db.season_podiums import PodiumDue
from db.seasons import SeasonRow, Widened, Widening

__all__ = ["PodiumDue", "SeasonBoard", "SeasonLine", "SeasonOptions", "Seasons"]

log = logging.getLogger(__name__)

PODIUM = 3
"""Players on a season's podium, per game."""
CLAIM = timedelta(minutes=1)
"""How long a podium claimed by one process is kept from the others: a failed post is tried
again when its claim runs out."""
PODIUM_ATTEMPTS = 30
"""Posts of a podium tried before it is given up (its channel deleted, the bot's permission
there taken away for half an hour): it stays viewable with ``/stats season:``."""


@dataclass(frozen=True)
class SeasonLine:
    """A member's season in one game, with their place (``0`` among provisional players)."""

    rank: int
    user_id: int
    points: float
    wins: int
    losses: int
    draws: int
    rating_value: float
    deviation: float

    @property
    def rating(self) -> str:
        """Their rating after their last match of the season, ``1500?`` when listed apart."""
        shown = display(Rating(self.rating_value, self.deviation, 0.0))
        return shown if self.rank or shown.endswith("?") else f"{shown}?"


@dataclass(frozen=True)
class GameSeason:
    """One game's standings in a season: ranked players, and provisional ones listed apart."""

    game: str
    ranked: list[SeasonLine]
    provisional: list[SeasonLine]


@dataclass(frozen=True)
class SeasonBoard:
    """A season as a server sees it."""

    guild_id: int
    number: int
    starts_at: datetime
    ends_at: datetime
    open: bool
    score: SeasonScore
    games: list[GameSeason]
    latest: int
    """The server's newest season's number."""


@dataclass(frozen=True)
class SeasonOptions:
    length: SeasonLength
    score: SeasonScore
    channel_id: int | None


class Seasons:
    """The season use cases, each one transaction."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], *, clock: Clock = utcnow
    ) -> None:
        self.sessions = sessions
        self.clock = clock

    # ------------------------------------------------------------------ reading

    async def board(
        self, guild_id: int, number: int | None, game: str | None, limit: int, offset: int = 0
    ) -> SeasonBoard:
        """Season ``number`` of the server (``None``: its newest), each game's (or ``game``'s)
        standings from ``offset``, at most ``limit`` ranked and ``limit`` provisional a game."""
        names = [game] if game else list(games.GAMES)
        async with session_of(self.sessions) as session:
            return await season_board(
                session, guild_id, number, names, limit, self.clock(), offset=offset
            )

    async def numbers(self, guild_id: int) -> list[int]:
        """The server's seasons' numbers, newest first."""
        async with session_of(self.sessions) as session:
            return [s.number for s in await seasons.seasons_of(session, guild_id)]

    # ------------------------------------------------------------------ settings

    async def options(self, guild_id: int) -> SeasonOptions:
        async with session_of(self.sessions) as session:
            stored = await seasons.season_settings(session, guild_id)
        return SeasonOptions(length_of(stored.length), score_of(stored.score), stored.channel_id)

    async def set_options(
        self,
        guild_id: int,
        *,
        length: SeasonLength | None = None,
        score: SeasonScore | None = None,
        channel_id: int | None = None,
        clear_channel: bool = False,
    ) -> SeasonOptions:
        """Set some of the server's season settings; those now in force.

        A new length applies from the next season; ``off`` ends the running season now (the
        sweeper closes it and posts its podium) and opens no other."""
        values: dict[str, object] = {}
        if length is not None:
            values["season_length"] = length.value
        if score is not None:
            values["season_score"] = score.value
        if channel_id is not None:
            values["season_channel"] = channel_id
        if clear_channel:
            values["season_channel"] = None
        now = self.clock()
        async with session_transaction(self.sessions) as session:
            if values:
                await seasons.set_season_settings(session, guild_id, now, **values)
            if length == SeasonLength.OFF:
                latest = await seasons.latest_season(session, guild_id)
                if latest is not None and latest.open:
                    await seasons.end_season_now(session, latest.id, now)
            stored = await seasons.season_settings(session, guild_id)
        return SeasonOptions(length_of(stored.length), score_of(stored.score), stored.channel_id)

    # ------------------------------------------------------------------ a season's end

    async def close_due(self, limit: int = 20) -> list[int]:
        """Mark provisional, in the running seasons, the ratings that turned so since they were
        written (so that each list reads from its index); then close every season whose end has
        passed, each in its own transaction: its standings
        kept as they are, its podium owed to the server's season channel (if it has one),
        every rating of the server's members given a wider deviation, and the next season
        opened unless seasons are off. The ids of the seasons closed here."""
        now = self.clock()
        async with session_transaction(self.sessions) as session:
            await seasons.mark_turned(session, now)
            due = await seasons.due_seasons(session, now, limit)
        closed: list[int] = []
        for season_id in due:
            if await self._close(season_id, now):
                closed.append(season_id)
        return closed

    async def _close(self, season_id: int, now: datetime) -> bool:
        async with session_transaction(self.sessions) as session:
            season = await seasons.season_by_id(session, season_id, lock=True)
            if season is None or not season.open or season.ends_at > now:
                return False  # another process closed it first
            stored = await seasons.season_settings(session, season.guild_id)
            await seasons.close_season(session, season.id, score_of(stored.score).value, now)
            await seasons.mark_turned(session, season.ends_at, season_id=season.id)
            widened_count = await seasons.widen_deviations(
                session, season.guild_id, now, lambda row: soft_reset(row, now)
            )
            await owe_season_update(session, season.guild_id, now)
            if stored.channel_id is not None:
                await season_podiums.add_podium(
                    session, season.id, season.guild_id, stored.channel_id, now
                )
            length = length_of(stored.length)
            latest = await seasons.latest_season(session, season.guild_id)
            if length != SeasonLength.OFF and latest is not None and latest.id == season.id:
                start, end = next_season(length, now, season.ends_at)
                await seasons.open_season(
                    session, season.guild_id, start, end, score_of(stored.score).value
                )
        log.info(
            "server %s: season %s closed, %s ratings widened",
            season.guild_id,
            season.number,
            widened_count,
        )
        return True

    async def due_podiums(self, limit: int = 10) -> list[PodiumDue]:
        """Podiums owed and not shown, claimed for a minute so that no other process takes
        them meanwhile (one that fails is tried again when its claim runs out)."""
        now = self.clock()
        async with session_transaction(self.sessions) as session:
            return await season_podiums.claim_podiums(
                session, now, now + CLAIM, limit, PODIUM_ATTEMPTS
            )

    async def podium(self, season_id: int) -> SeasonBoard:
        """The podium of an ended season: each game's top ranked players."""
        async with session_of(self.sessions) as session:
            season = await seasons.season_by_id(session, season_id)
            if season is None:
                raise NoSeason(None, None)
            latest = await seasons.latest_season(session, season.guild_id)
            score = SeasonScore(season.score)
            return SeasonBoard(
                guild_id=season.guild_id,
                number=season.number,
                starts_at=season.starts_at,
                ends_at=season.ends_at,
                open=season.open,
                score=score,
                games=await _game_seasons(
                    session,
                    season,
                    list(games.GAMES),
                    score,
                    _moment(season, self.clock()),
                    PODIUM,
                    0,
                ),
                latest=season.number if latest is None else latest.number,
            )

    async def podium_message(self, season_id: int, message_id: int) -> None:
        """The podium's post is the message ``message_id``: recorded the moment it exists, so
        any later attempt edits it in place."""
        async with session_transaction(self.sessions) as session:
            await season_podiums.podium_message(session, season_id, message_id)

    async def podium_shown(self, season_id: int) -> None:
        """The podium's message shows it: nothing is owed any more."""
        async with session_transaction(self.sessions) as session:
            await season_podiums.podium_shown(session, season_id)


async def season_board(
    session: AsyncSession,
    guild_id: int,
    number: int | None,
    names: list[str],
    limit: int,
    now: datetime,
    *,
    offset: int = 0,
) -> SeasonBoard:
    """Season ``number`` of the server (``None``: its newest) with the standings of the games
    ``names``, read in the caller's session; ``NoSeason`` for one the server does not have."""
    latest, chosen = await seasons.latest_with_score(session, guild_id)
    if latest is None:
        raise NoSeason(number, None)
    season = (
        latest
        if number is None or number == latest.number
        else await seasons.season_by_number(session, guild_id, number)
    )
    if season is None:
        raise NoSeason(number, latest.number)
    score = score_of(chosen) if season.open else SeasonScore(season.score)
    moment = _moment(season, now)
    return SeasonBoard(
        guild_id=guild_id,
        number=season.number,
        starts_at=season.starts_at,
        ends_at=season.ends_at,
        open=season.open,
        score=score,
        games=await _game_seasons(session, season, names, score, moment, limit, offset),
        latest=latest.number,
    )


async def _game_seasons(
    session: AsyncSession,
    season: SeasonRow,
    names: list[str],
    score: SeasonScore,
    moment: datetime,
    limit: int,
    offset: int,
) -> list[GameSeason]:
    """Each game's standings in the season: ranked players from ``offset``, and provisional
    ones apart (one statement for all)."""
    found = await seasons.standings(
        session,
        season.id,
        names,
        score,
        moment=moment,
        limit=limit,
        offset=offset,
    )
    return [
        GameSeason(
            name,
            [_line(offset + i + 1, row) for i, row in enumerate(found[(name, False)])],
            [_line(0, row) for row in found[(name, True)]],
        )
        for name in names
    ]


def _moment(season: SeasonRow, now: datetime) -> datetime:
    """The moment a season's players are classed at: now while it runs, its end once ended
    (so an ended season's standings never change), as every leaderboard classes them
    (``ratings.listing_of``): ranked, or provisional once the deviation has grown to 110."""
    return min(now, season.ends_at)


def _line(rank: int, row: seasons.StandingRow) -> SeasonLine:
    return SeasonLine(
        rank, row.user_id, row.points, row.wins, row.losses, row.draws, row.rating, row.deviation
    )


def soft_reset(row: Widening, now: datetime) -> Widened:
    """A rating's deviation when a season ends, and when it stops being ranked: the deviation
    as grown until ``now`` (docs/rules.md, "Time away"), widened by ``SOFT_RESET`` on top, so
    the time before the season's end is counted once; the rating is kept."""
    stored = Rating(row.rating, row.deviation, row.volatility)
    current = as_of(stored, row.deviation_at, now)
    wide = Rating(current.rating, widened(current.deviation), current.volatility)
    until = None if row.rated_at is None else ranked_until(wide, now, row.rated_at)
    return Widened(current.deviation, wide.deviation, until)
