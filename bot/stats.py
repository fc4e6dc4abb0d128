"""Records, streaks and Glicko-2 ratings: written when a match finishes, read by ``/stats``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from bot.ratings import Rating, display, rate_match
from db import repository as repo
from db.models import Match, PlayerStats


async def record_result(
    session: AsyncSession,
    *,
    guild_id: int,
    game: str,
    players: tuple[int, int],
    winner_seat: int | None,
    vs_bot: bool,
    bot_id: int | None = None,
    now: datetime,
) -> None:
    """Add a finished match to both players' records (and ratings, unless it was against the bot).

    Rows are locked for the update so two matches ending at once for one player both count.
    """
    scores = (0.5, 0.5) if winner_seat is None else ((1.0, 0.0) if winner_seat == 0 else (0.0, 1.0))
    counted = [(uid, score) for uid, score in zip(players, scores, strict=True) if uid != bot_id]
    rows = [await repo.lock_stats(session, guild_id, game, uid, vs_bot) for uid, _ in counted]
    if not vs_bot:
        a, b = (Rating(r.rating, r.deviation, r.volatility) for r in rows)
        new_a, new_b = rate_match(a, b, scores[0])
        for row, new in zip(rows, (new_a, new_b), strict=True):
            row.rating, row.deviation, row.volatility = new.rating, new.deviation, new.volatility
    for row, (_, score) in zip(rows, counted, strict=True):
        _count(row, score)
        row.updated_at = now
    await session.flush()


def _count(row: PlayerStats, score: float) -> None:
    row.games_played = (row.games_played or 0) + 1
    if score == 1.0:
        row.wins = (row.wins or 0) + 1
        row.streak = max(row.streak or 0, 0) + 1
    elif score == 0.0:
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


@dataclass(frozen=True)
class Standing:
    """A leaderboard row."""

    rank: int
    user_id: int
    line: Line


@dataclass(frozen=True)
class MemberRecord:
    """A member's record in one server: per game, overall, and their last matches."""

    user_id: int
    lines: list[Line]
    recent: list[Match]

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
    )


async def leaderboard(
    session: AsyncSession, guild_id: int, game: str, limit: int = 10
) -> list[Standing]:
    """The server's top players of ``game`` by rating (matches against the bot never count)."""
    rows = await repo.leaderboard(session, guild_id, game, limit)
    return [Standing(i + 1, r.user_id, to_line(r)) for i, r in enumerate(rows)]


async def member_record(
    session: AsyncSession, guild_id: int, user_id: int, game: str | None = None
) -> MemberRecord:
    """A member's lines per game (and ``vs bot``), and their last 10 finished matches."""
    rows: Sequence[PlayerStats] = await repo.record(session, guild_id, user_id)
    lines = [to_line(r) for r in rows if game is None or r.game == game]
    recent = await repo.recent_matches(session, guild_id, user_id, 10)
    if game is not None:
        recent = [m for m in recent if m.game == game]
    return MemberRecord(user_id, sorted(lines, key=lambda x: (x.game, x.vs_bot)), recent)
