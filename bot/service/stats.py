"""Records, streaks and Glicko-2 ratings: written when a match finishes, read by ``/stats``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from bot.service.ratings import Rating, display, provisional_from, rate_match
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
    """
    rows = await lock_records(db, result.records(), now)
    results = result.results
    if not result.vs_bot:
        a, b = (rows[key] for key in result.records())
        new_a, new_b = rate_match(
            Rating(a.rating, a.deviation, a.volatility),
            Rating(b.rating, b.deviation, b.volatility),
            POINTS[results[0]],
        )
        moves = [
            history.RatingMove(row.user_id, row.rating, row.deviation, new.rating, new.deviation)
            for row, new in ((a, new_a), (b, new_b))
        ]
        for row, new in ((a, new_a), (b, new_b)):
            row.rating, row.deviation, row.volatility = new.rating, new.deviation, new.volatility
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
    """Displayed rating, ``"1500?"`` while provisional."""
    rating_value: float
    deviation: float


@dataclass(frozen=True)
class Standing:
    """A leaderboard row: the member's rank and record in the game, and the name a chart shows
    them by (kept at the end of their latest match; ``""`` where none was asked for or kept)."""

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


def to_line(row: PlayerStats) -> Line:
    rating = Rating(row.rating, row.deviation, row.volatility)
    return Line(
        game=row.game,
        vs_bot=bool(row.vs_bot),
        wins=row.wins,
        losses=row.losses,
        draws=row.draws,
        streak=row.streak,
        best_streak=row.best_streak,
        rating="-" if row.vs_bot else display(rating),
        rating_value=row.rating,
        deviation=row.deviation,
    )


async def leaderboards(
    session: AsyncSession, guild_id: int, games: Sequence[str], limit: int
) -> dict[str, list[Standing]]:
    """Each game's top players in the server by rating (matches against the bot never count)."""
    tables = await records.leaderboards(session, guild_id, games, limit)
    return {
        game: [Standing(i + 1, r.user_id, to_line(r)) for i, r in enumerate(rows)]
        for game, rows in tables.items()
    }


async def member_record(
    session: AsyncSession, guild_id: int, user_id: int, game: str | None = None
) -> MemberRecord:
    """A member's lines per game (and ``vs bot``), and their last 10 finished matches."""
    rows: Sequence[PlayerStats] = await records.record(session, guild_id, user_id)
    lines = [to_line(r) for r in rows if game is None or r.game == game]
    recent = await member_matches(session, guild_id, user_id, game=game, limit=10, by_finish=True)
    return MemberRecord(user_id, sorted(lines, key=lambda x: (x.game, x.vs_bot)), recent)
