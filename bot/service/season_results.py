"""A rated match's result in its server's season standings, counted in the match's own
transaction: the season views then read stored rows, never the matches."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bot.service.season_periods import length_of, next_season, score_of
from db import seasons
from db.connection import Db
from db.models import SeasonLength
from db.seasons import SeasonResult, SeasonRow

OUTSIDE_SERVERS = 0
"""The ladder of matches played outside servers has no seasons."""


async def current_season(db: Db, guild_id: int, now: datetime) -> SeasonRow | None:
    """The server's season running at ``now``, opened if none is (``None`` with seasons off).

    The season read is held against its close until the transaction ends, so a close never
    misses a result counted in it."""
    latest = await seasons.latest_season(db, guild_id, shared=True)
    if latest is not None and latest.open and latest.starts_at <= now < latest.ends_at:
        return latest
    settings = await seasons.season_settings(db, guild_id)
    length = length_of(settings.length)
    if length == SeasonLength.OFF:
        return None
    start, end = next_season(length, now, None if latest is None else latest.ends_at)
    return await seasons.open_season(db, guild_id, start, end, score_of(settings.score).value)


async def count_in_season(
    db: Db, guild_id: int, game: str, results: Sequence[SeasonResult], now: datetime
) -> None:
    """Count a rated match in the standings of the season running in its server."""
    if guild_id == OUTSIDE_SERVERS or not results:
        return
    season = await current_season(db, guild_id, now)
    if season is not None:
        await seasons.add_standings(db, season.id, game, results, now)
