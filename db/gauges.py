"""What a host's metrics read from the database when they are scraped: a few counts, each on an
index, so a scrape costs the database next to nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func, select, text

from db.connection import Db
from db.models import Match, MatchStatus, OutboxEntry, QueueEntry

IN_PLAY = (MatchStatus.CHALLENGED, MatchStatus.SETUP, MatchStatus.ACTIVE)
"""The statuses of a match not over yet."""


@dataclass(frozen=True)
class Counts:
    """The database's side of the metrics at one moment."""

    outbox: int = 0
    """Entries waiting to be shown with a bot-token call."""
    outbox_first_due: datetime | None = None
    """When the entry longest due fell due (``None``: the outbox is empty)."""
    matches: dict[str, int] = field(default_factory=dict)
    """Matches not over, by status (every status of ``IN_PLAY`` present)."""
    queues: dict[str, int] = field(default_factory=dict)
    """Members waiting in the quick-pair queues, by game."""


async def read_counts(db: Db) -> Counts:
    """The outbox's size and first due time, the matches in play, the members queued."""
    outbox, first_due = (await db.execute(select(func.count(), func.min(OutboxEntry.due_at)))).one()
    by_status = await db.execute(
        select(Match.status, func.count()).where(Match.status.in_(IN_PLAY)).group_by(Match.status)
    )
    matches = {str(status): 0 for status in IN_PLAY}
    matches.update({str(status): count for status, count in by_status})
    by_game = await db.execute(select(QueueEntry.game, func.count()).group_by(QueueEntry.game))
    return Counts(
        outbox=outbox,
        outbox_first_due=first_due,
        matches=matches,
        queues={game: count for game, count in by_game},
    )


async def answers(db: Db) -> None:
    """One trivial query: the database answers (a health check)."""
    await db.execute(text("SELECT 1"))
