"""What a member has going on, counted for the limits on challenges and matches."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import BigInteger, Table, bindparam, func, or_, select

from db.connection import Db, core_connection
from db.models import Match, MatchStatus

_MATCHES = cast(Table, Match.__table__)


@dataclass(frozen=True, slots=True)
class MemberLoad:
    """What a member has going on, for the limits on challenges and matches."""

    open_challenges: int
    """Challenges they sent that wait for an answer."""
    playing: int
    """Matches they play that have started and are not over (against the bot too)."""
    sent_to_opponent: int
    """Challenges they sent to one member since a given time that did not become a match
    (waiting, withdrawn, declined or expired): a rematch played is never held back."""


_PLAYING = (MatchStatus.SETUP.value, MatchStatus.ACTIVE.value)
_UNANSWERED = ("withdrawn", "declined", "expired")
"""How a challenge that never became a match ended: what pings a member for nothing."""


async def member_load(db: Db, user_id: int, opponent_id: int | None, since: datetime) -> MemberLoad:
    """What ``user_id`` has going on (and has sent ``opponent_id`` since ``since``).

    The member's challenges are locked until the transaction ends, so that two sent at once
    cannot both pass a limit (on PostgreSQL through an advisory lock on the member's id;
    SQLite has one writer at a time). Each count reads one index.
    """
    connection = await core_connection(db)
    if connection.dialect.name == "postgresql":
        await connection.execute(_MEMBER_LOCK, {"user_id": user_id})
    parameters = {"user_id": user_id, "opponent_id": opponent_id or 0, "since": since}
    row = (await connection.execute(_MEMBER_LOAD, parameters)).one()
    return MemberLoad(row[0], row[1] + row[2], row[3])


def _member_load_statement() -> Any:
    def counted(*where: Any) -> Any:
        return select(func.count()).select_from(_MATCHES).where(*where).scalar_subquery()

    user_id = bindparam("user_id", type_=BigInteger())
    sent = counted(
        _MATCHES.c.challenger_id == user_id,
        _MATCHES.c.opponent_id == bindparam("opponent_id"),
        _MATCHES.c.created_at >= bindparam("since", type_=_MATCHES.c.created_at.type),
        or_(
            _MATCHES.c.status == MatchStatus.CHALLENGED.value,
            _MATCHES.c.end_reason.in_(_UNANSWERED),
        ),
    )
    return select(
        counted(
            _MATCHES.c.challenger_id == user_id,
            _MATCHES.c.status == MatchStatus.CHALLENGED.value,
        ),
        counted(_MATCHES.c.challenger_id == user_id, _MATCHES.c.status.in_(_PLAYING)),
        counted(_MATCHES.c.opponent_id == user_id, _MATCHES.c.status.in_(_PLAYING)),
        sent,
    )


_MEMBER_LOAD = _member_load_statement()
_MEMBER_LOCK = select(func.pg_advisory_xact_lock(bindparam("user_id", type_=BigInteger())))
# Built once, as the move's statements are: every challenge and accept runs them.
