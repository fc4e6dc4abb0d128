"""Which matches are played in a thread of their own.

``matches.thread_id`` is ``NULL`` until the match's place is settled, once it is in play: ``0``
when it stays in its channel (threads off, a tournament's match, or no thread could be started),
else the id of its thread, which is then also its ``channel_id``. The transaction that starts a
match settles it (``place_at_start``) unless it may move to a thread of its own; that one is
settled once its board shows (``settle``), by the one caller who then starts its thread.
"""

from __future__ import annotations

from typing import cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from db.connection import Db, core_connection
from db.matches import MatchRow
from db.models import GuildSettings, Match, MatchPlace

IN_CHANNEL = 0
"""``thread_id`` of a match settled in its channel."""

_MATCHES = cast(Table, Match.__table__)
_SETTINGS = cast(Table, GuildSettings.__table__)


_CLAIM = (
    update(_MATCHES)
    .where(_MATCHES.c.id == bindparam("match_id"), _MATCHES.c.thread_id.is_(None))
    .values(thread_id=IN_CHANNEL)
)
_PLACE = (
    select(_MATCHES.c.channel_id, _MATCHES.c.tournament_id, _SETTINGS.c.threads)
    .outerjoin(_SETTINGS, _SETTINGS.c.guild_id == _MATCHES.c.guild_id)
    .where(_MATCHES.c.id == bindparam("match_id"))
)
_THREAD_TAKEN = (
    select(_MATCHES.c.id)
    .where(
        # A match's own thread is its channel too: the channel's index finds it, where
        # ``thread_id`` alone (no index) would read every match ever played.
        _MATCHES.c.channel_id == bindparam("thread_id"),
        _MATCHES.c.thread_id == bindparam("thread_id"),
        _MATCHES.c.id != bindparam("match_id"),
    )
    .limit(1)
)
_THREADS = select(_SETTINGS.c.threads).where(_SETTINGS.c.guild_id == bindparam("guild_id"))
_TAKE_THREAD = (
    update(_MATCHES)
    .where(_MATCHES.c.id == bindparam("match_id"))
    .values(thread_id=bindparam("thread_id"))
)
# Built once: a match's place is settled as it starts, on every accept.


async def place_at_start(db: Db, row: MatchRow, threads: bool | None = None) -> None:
    """In the transaction that starts the match of ``row``: settle where it is played unless
    it may move to a thread of its own, setting ``row.thread_id`` (saved with the match).

    Its channel, when that is another match's own thread (a rematch offered there); else its
    channel for good (``IN_CHANNEL``) when its server plays no match in threads, it is a
    tournament's, or only interactions reach it. Otherwise it stays unsettled for ``settle``.
    ``threads`` is whether its server plays matches in threads (``None``: read here).
    """
    if row.thread_id is not None:
        return
    connection = await core_connection(db)
    if await _in_a_matchs_thread(connection, row.id, row.channel_id):
        row.thread_id = row.channel_id
        return
    if row.tournament_id is not None or row.place != MatchPlace.SERVER:
        row.thread_id = IN_CHANNEL
        return
    if threads is None:
        found = await connection.execute(_THREADS, {"guild_id": row.guild_id})
        threads = bool(found.scalar())
    if not threads:
        row.thread_id = IN_CHANNEL


async def settle(session: AsyncSession, match_id: int) -> bool:
    """Settle the match in its channel unless it is settled already; whether this call did it
    and the match may move to a thread of its own (its server plays matches in threads, and
    it is not a tournament's). Of two callers, exactly one gets ``True``. A match started in
    another match's own thread (a rematch) takes that thread as its own."""
    connection = await session.connection()
    claimed = await connection.execute(_CLAIM, {"match_id": match_id})
    if not claimed.rowcount:
        return False
    row = (await connection.execute(_PLACE, {"match_id": match_id})).one()
    if await _in_a_matchs_thread(connection, match_id, row.channel_id):
        # A rematch offered in a match's own thread: played there, and the thread's match now.
        await connection.execute(_TAKE_THREAD, {"match_id": match_id, "thread_id": row.channel_id})
        return False
    return row.tournament_id is None and bool(row.threads)


async def _in_a_matchs_thread(connection: AsyncConnection, match_id: int, channel_id: int) -> bool:
    """Whether ``channel_id`` is another match's own thread (a rematch was offered there)."""
    here = {"match_id": match_id, "thread_id": channel_id}
    return (await connection.execute(_THREAD_TAKEN, here)).first() is not None


async def move_to_thread(session: AsyncSession, match_id: int, thread_id: int) -> None:
    """The match is now played in ``thread_id``: its board is posted anew there."""
    await session.execute(
        update(_MATCHES)
        .where(_MATCHES.c.id == match_id)
        .values(thread_id=thread_id, channel_id=thread_id, message_id=None)
    )
