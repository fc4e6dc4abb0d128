"""Records, streaks and Glicko-2 ratings: written when a match finishes, read by ``/stats``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from bot.service.ratings import (
    INACTIVE_AFTER,
    Listing,
    Rating,
    as_of,
    display,
    listing_of,
    provisional_from,
    ranked_until,
    rate_match,
)
from bot.service.season_results import count_in_season
from db import after_match as history
from db import records
from db.connection import Db
from db.member_matches import POINTS, MemberMatch, member_matches, result_for
from db.member_matches import Result as MatchResult
from db.models import PlayerStats
from db.records import StatsKey, StatsRow, lock_records, save_records
from db.seasons import SeasonResult


@dataclass(frozen=True)
class Result:
    """A finished match as the records see it."""

    guild_id: int
    game: str
    players: tuple[int, int]
    """User ids by seat."""
    winner_seat: int | None
    vs_bot: bool
    bot_id: int | None = None
    """The bot's own seat is not recorded."""
    match_id: int | None = None
    """The match whose result this is: its rating changes are kept under it."""

    @property
    def results(self) -> tuple[MatchResult, MatchResult]:
        """Each seat's result."""
        return (result_for(0, self.winner_seat), result_for(1, self.winner_seat))

    def records(self) -> list[StatsKey]:
        """The records this result changes."""
        return [
            (self.guild_id, self.game, uid, self.vs_bot)
            for uid in self.players
            if uid != self.bot_id
        ]


async def add_result(db: Db, result: Result, now: datetime) -> None:
    """Add a finished match to both players' records (and ratings, unless against the bot).

    The records are read locked, so two matches ending together for one player both count.
    Each player is rated from their rating as it stands now: the deviation grown for the time
    since it was last set (``ratings.as_of``), which is also the "before" the history keeps.
    """
    rows = await lock_records(db, result.records(), now)
    results = result.results
    if not result.vs_bot:
        a, b = (rows[key] for key in result.records())
        before_a, before_b = (standing_rating(row, now) for row in (a, b))
        new_a, new_b = rate_match(before_a, before_b, POINTS[results[0]])
        moves = [
            history.RatingMove(row.user_id, old.rating, old.deviation, new.rating, new.deviation)
            for row, old, new in ((a, before_a, new_a), (b, before_b, new_b))
        ]
        for row, new in ((a, new_a), (b, new_b)):
            row.rating, row.deviation, row.volatility = new.rating, new.deviation, new.volatility
            row.rated_at = row.deviation_at = now
            row.ranked_until = ranked_until(new, now, now)
        await history.add_rating_changes(
            db, result.match_id, result.guild_id, result.game, moves, now
        )
        await count_in_season(
            db,
            result.guild_id,
            result.game,
            [
                SeasonResult(
                    uid,
                    POINTS[won],
                    int(won == "win"),
                    int(won == "loss"),
                    int(won == "draw"),
                    new.rating,
                    new.deviation,
                    provisional_from(new, now),
                    new.provisional,
                )
                for uid, won, new in zip(result.players, results, (new_a, new_b), strict=True)
            ],
            now,
        )
    for uid, won in zip(result.players, results, strict=True):
        if uid != result.bot_id:
            _count(rows[(result.guild_id, result.game, uid, result.vs_bot)], won)
    for row in rows.values():
        row.updated_at = now
    await save_records(db, list(rows.values()))


def standing_rating(row: StatsRow | PlayerStats, moment: datetime) -> Rating:
    """A record's rating as it stands at ``moment``: its deviation grown since it was set."""
    return as_of(Rating(row.rating, row.deviation, row.volatility), row.deviation_at, moment)


def _count(row: StatsRow, result: MatchResult) -> None:
    row.games_played = (row.games_played or 0) + 1
    if result == "win":
        row.wins = (row.wins or 0) + 1
        row.streak = max(row.streak or 0, 0) + 1
    elif result == "loss":
        row.losses = (row.losses or 0) + 1
        row.streak = min(row.streak or 0, 0) - 1
    else:
        row.draws = (row.draws or 0) + 1
        row.streak = 0
    row.best_streak = max(row.best_streak or 0, row.streak)


@dataclass(frozen=True)
class Line:
    """One game's record for one member."""

    game: str
    vs_bot: bool
    wins: int
    losses: int
    draws: int
    streak: int
    best_streak: int
    rating: str
    """Displayed rating as it stands (deviation grown since the last rated match), ``"1500?"``
    while provisional."""
    rating_value: float
    deviation: float
    """As it stands, grown since the last rated match."""
    listing: Listing = Listing.RANKED
    """Where the member is listed on the game's leaderboard (against people)."""


@dataclass(frozen=True)
class Standing:
    """A leaderboard row: the member's place in their section (ranked, provisional or
    inactive) and record in the game, and the name a chart shows them by (kept at the end of
    their latest match; ``""`` where none was asked for or kept)."""

    rank: int
    user_id: int
    line: Line
    name: str = ""

    @property
    def rating(self) -> float:
        return self.line.rating_value

    @property
    def deviation(self) -> float:
        return self.line.deviation

    @property
    def listing(self) -> Listing:
        return self.line.listing


@dataclass(frozen=True)
class Ladder:
    """One game's leaderboard: the ranked members first, numbered; the provisional and the
    inactive apart, never mixed into the ranking."""

    ranked: list[Standing]
    provisional: list[Standing]
    inactive: list[Standing]

    @property
    def empty(self) -> bool:
        return not (self.ranked or self.provisional or self.inactive)


@dataclass(frozen=True)
class MemberRecord:
    """A member's record in one server: per game, overall, and their last matches."""

    user_id: int
    lines: list[Line]
    recent: list[MemberMatch]

    @property
    def total(self) -> tuple[int, int, int]:
        """Wins, losses, draws over every game, against members and the bot alike."""
        return (
            sum(x.wins for x in self.lines),
            sum(x.losses for x in self.lines),
            sum(x.draws for x in self.lines),
        )


def to_line(row: PlayerStats, moment: datetime) -> Line:
    """A record as it stands at ``moment``: the rating's deviation grown since it was set."""
    stored = Rating(row.rating, row.deviation, row.volatility)
    rating = as_of(stored, row.deviation_at, moment)
    return Line(
        game=row.game,
        vs_bot=bool(row.vs_bot),
        wins=row.wins,
        losses=row.losses,
        draws=row.draws,
        streak=row.streak,
        best_streak=row.best_streak,
        rating="-" if row.vs_bot else display(rating),
        rating_value=rating.rating,
        deviation=rating.deviation,
        listing=listing_of(stored, row.deviation_at, row.rated_at, moment),
    )


APART = 5
"""Provisional and inactive members a leaderboard lists, each, after the ranked ones."""


async def board(
    session: AsyncSession,
    guild_id: int,
    game: str,
    now: datetime,
    *,
    section: str,
    offset: int = 0,
    limit: int,
) -> list[Standing]:
    """Rows of one section of the game's leaderboard at ``now``, numbered from ``offset + 1``."""
    rows = await records.leaderboard_rows(
        session,
        guild_id,
        game,
        section,
        now=now,
        active_since=now - INACTIVE_AFTER,
        offset=offset,
        limit=limit,
    )
    return [Standing(offset + i + 1, r.user_id, to_line(r, now)) for i, r in enumerate(rows)]


async def leaderboards(
    session: AsyncSession,
    guild_id: int,
    games: Sequence[str],
    limit: int,
    now: datetime,
    apart: int = APART,
) -> dict[str, Ladder]:
    """Each game's top ranked players in the server by rating, then up to ``apart`` provisional
    and ``apart`` inactive ones (matches against the bot never count)."""
    tables: dict[str, Ladder] = {}
    for game in games:
        sections = [
            await board(session, guild_id, game, now, section=section, limit=size)
            for section, size in (("ranked", limit), ("provisional", apart), ("inactive", apart))
        ]
        tables[game] = Ladder(*sections)
    return tables


async def member_record(
    session: AsyncSession, guild_id: int, user_id: int, now: datetime, game: str | None = None
) -> MemberRecord:
    """A member's lines per game (and ``vs bot``) as they stand at ``now``, and their last 10
    finished matches."""
    rows: Sequence[PlayerStats] = await records.record(session, guild_id, user_id)
    lines = [to_line(r, now) for r in rows if game is None or r.game == game]
    recent = await member_matches(session, guild_id, user_id, game=game, limit=10, by_finish=True)
    return MemberRecord(user_id, sorted(lines, key=lambda x: (x.game, x.vs_bot)), recent)
