"""When a season starts and ends, and how far a new season widens every deviation.

Pure: calendar periods in UTC and the soft reset's arithmetic, shared by the match's
transaction (which opens a season when none is running) and the sweeper (which closes one).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

from bot.service.ratings import MAX_DEVIATION
from db.models import SeasonLength, SeasonScore

__all__ = [
    "DEFAULT_LENGTH",
    "DEFAULT_SCORE",
    "SOFT_RESET",
    "SeasonLength",
    "SeasonScore",
    "length_of",
    "next_season",
    "period",
    "score_of",
    "widened",
]

DEFAULT_LENGTH = SeasonLength.QUARTER
DEFAULT_SCORE = SeasonScore.RATING
"""Standings are ranked by rating unless a server chooses points (docs/rules.md says why)."""

MONTHS = {SeasonLength.MONTH: 1, SeasonLength.QUARTER: 3, SeasonLength.HALF_YEAR: 6}

SOFT_RESET = 60.0
"""What a new season adds to every deviation, in quadrature (docs/rules.md, "Seasons"): a
settled rating (deviation 50) moves about twice as far in its first matches of the season, and
any rating still ranked with a deviation up to 90 stays under the provisional line (110)."""


def length_of(stored: str | None) -> SeasonLength:
    """A server's season length as stored (``None``: the default)."""
    return DEFAULT_LENGTH if stored is None else SeasonLength(stored)


def score_of(stored: str | None) -> SeasonScore:
    return DEFAULT_SCORE if stored is None else SeasonScore(stored)


def period(length: SeasonLength, moment: datetime) -> tuple[datetime, datetime]:
    """The calendar month, quarter or half-year (UTC) holding ``moment``: its start and end."""
    months = MONTHS[length]
    moment = moment.astimezone(UTC)
    first = (moment.month - 1) // months * months + 1
    start = datetime(moment.year, first, 1, tzinfo=UTC)
    after = first - 1 + months
    end = datetime(moment.year + after // 12, after % 12 + 1, 1, tzinfo=UTC)
    return start, end


def next_season(
    length: SeasonLength, moment: datetime, previous_end: datetime | None
) -> tuple[datetime, datetime]:
    """The season to open at ``moment``: its calendar period, begun no earlier than the last
    season's end (a server that shortened its seasons does not count a match twice). Periods
    that passed with the bot away are skipped: no match could be played in them."""
    start, end = period(length, moment)
    if previous_end is not None and previous_end > start:
        start = previous_end
    return start, end


def widened(deviation: float) -> float:
    """A deviation after the soft reset that opens a season."""
    return min(math.hypot(deviation, SOFT_RESET), MAX_DEVIATION)
