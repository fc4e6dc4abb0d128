"""The transaction every use case of a match runs in: the unit of work.

A use case is one transaction on a Core connection of the engine (not a session: its unit of
work would cost a move as much as one of its statements, and a use case keeps no ORM objects):
read the match (``FOR UPDATE`` on PostgreSQL), check who may act, ask the engine, then save
what changed with a version check (``UPDATE ... WHERE version = :seen``). Losing that check
means someone else moved first; the request is answered "already played" (when the caller named
the version it saw, as a button does) or re-run against the new state (when it did not, as a
slash command does not). A finished match updates both players' stats in the same transaction.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from datetime import datetime
from typing import TypeVar

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession, async_sessionmaker

import games
from bot.service import stats
from bot.service.acting import Acting
from bot.service.errors import MatchBusy, MovedOn, NoMatch
from bot.service.languages import Languages
from bot.service.match_state import (
    DELIVERY_GRACE,
    MAX_MATCH_ID,
    OVER,
    RETRIES,
    Clock,
    Conflict,
    LoadedMatch,
    Names,
    Step,
    changes,
    check_version,
    default_mention,
    deliveries,
    no_names,
    recent_texts,
    row_values,
    to_user,
)
from bot.service.notices import BoardRoute, MatchSnapshot, Notice, Public, Report
from bot.service.observers import TransactionObserver
from bot.service.ranks import owe_after_match
from bot.service.snapshots import snapshot_of
from bot.service.timeouts import Timeouts, merge_timeouts
from db import after_match as history
from db import queue
from db.connection import Db, core_transaction, session_transaction
from db.engine import bound_engine
from db.match_events import append_events
from db.matches import MatchContext, load_match, save_match, seat_players
from db.models import MatchPlace, MatchStatus, utcnow
from db.outbox import add_deliveries, owed_lines
from db.server_timeouts import ServerTimeouts

D = TypeVar("D", AsyncConnection, AsyncSession)

Finder = Callable[[AsyncConnection], Awaitable[LoadedMatch]]
"""How a use case finds its match inside its own transaction, read for update."""


class MatchRunner:
    """Runs a use case's step on a match in one transaction, and what every use case shares:
    the database, the clock, the seeds, how members are named, and the bot's own user id.

    Nothing of a match is kept between two transactions.
    """

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        clock: Clock = utcnow,
        seeds: Callable[[], int] = lambda: secrets.randbits(62),
        mention: Callable[[int], str] = default_mention,
        timeouts: Timeouts | None = None,
        names: Names = no_names,
        languages: Languages | None = None,
        observer: TransactionObserver | None = None,
    ) -> None:
        self.sessions = sessions
        self.observer = observer
        """Told how long each transaction took (``None``: nobody)."""
        self.languages = languages
        """Where the acting member's locale is stored, for their DMs (``None``: nowhere)."""
        self.engine = bound_engine(sessions)
        """Where a use case of a match takes its connection: it runs on Core, not a session."""
        self.names = names
        """Members' display names as the chat knows them, kept with a match as it ends."""
        self.defaults = timeouts or Timeouts()
        self.clock = clock
        self.seeds = seeds
        self.mention = mention
        self._bot_user_id: int | None = None

    @property
    def bot_user_id(self) -> int | None:
        """The bot's own user id: challenging it starts a match against the built-in player
        (``None`` until the bot has logged in)."""
        return self._bot_user_id

    def know_bot(self, user_id: int) -> None:
        """Learn the bot's own user id, once: it never changes while the process runs."""
        if self._bot_user_id not in (None, user_id):
            raise ValueError("the bot's user id is already known, and it is another")
        self._bot_user_id = user_id

    async def run(
        self,
        target: int | Finder,
        member: Acting | None,
        expected_version: int | None,
        step: Step,
        board: BoardRoute | None = None,
    ) -> Report:
        """Run ``step`` on the match in one transaction, saved with the version check.

        ``target`` is the match's id, or how to find it inside the transaction (a slash
        command's match in its channel); ``member`` is who acts (``None``: no member, as for
        a deadline), whose locale the transaction stores when it changed. A lost race is re-run
        against the new state, unless the caller named the version it saw (a button does): then
        it is answered "already played". ``board`` says whether the caller's own response will
        carry the board.
        """
        for _attempt in range(RETRIES):
            try:
                now = self.clock()
                user_id = member.user_id if member is not None else None
                async with self.transaction(member) as connection:
                    match = await self.find(connection, target)
                    notices = await self.apply(
                        connection, match, user_id, expected_version, step, now, board
                    )
                return replace(self.report(match, notices), board_owed=match.board_entry)
            except Conflict:
                if expected_version is not None:
                    raise MovedOn() from None
        raise MatchBusy()

    @asynccontextmanager
    async def transaction(self, member: Acting | None = None) -> AsyncIterator[AsyncConnection]:
        """A use case's transaction on a Core connection, which also stores the acting
        ``member``'s locale when it changed."""
        async with self._noting(core_transaction(self.engine), member, "core") as connection:
            yield connection

    @asynccontextmanager
    async def session(self, member: Acting | None = None) -> AsyncIterator[AsyncSession]:
        """A use case's transaction on a session (the queue's, a pairing's), which also stores
        the acting ``member``'s locale when it changed."""
        async with self._noting(session_transaction(self.sessions), member, "session") as session:
            yield session

    @asynccontextmanager
    async def _noting(
        self, opened: AbstractAsyncContextManager[D], member: Acting | None, kind: str
    ) -> AsyncIterator[D]:
        heard = None
        began = time.perf_counter()
        outcome = "rollback"
        try:
            async with opened as db:
                yield db
                if self.languages is not None:
                    heard = await self.languages.note(db, member)
            outcome = "commit"
        finally:
            if self.observer is not None:
                self.observer.transaction(kind, outcome, time.perf_counter() - began)
        if heard is not None and self.languages is not None:
            self.languages.noted(heard)
        # SQLite's statements run on the event loop's thread: let the others run between two
        # use cases, now that the connection is back in the pool, so that a loop of them (a
        # sweep after downtime) never holds the loop, nor the connection, for long.
        await asyncio.sleep(0)

    async def find(self, connection: AsyncConnection, target: int | Finder) -> LoadedMatch:
        if isinstance(target, int):
            return await self.read(connection, target, for_update=True)
        return await target(connection)

    def in_guild(self, match_id: int, guild_id: int | None) -> int | Finder:
        """The match to act on: by id, and refused as unknown when it belongs to another
        server than ``guild_id`` (``None``: asked from a DM, where only its players may act)."""
        if guild_id is None:
            return match_id

        async def find(connection: AsyncConnection) -> LoadedMatch:
            loaded = await self.read(connection, match_id, for_update=True)
            if loaded.row.guild_id != guild_id:
                raise NoMatch(match_id)
            return loaded

        return find

    async def apply(
        self,
        db: Db,
        match: LoadedMatch,
        user_id: int | None,
        expected_version: int | None,
        step: Step,
        now: datetime,
        board: BoardRoute | None = None,
    ) -> list[Notice]:
        """Within the caller's transaction, on the match it read for update: run ``step``, and
        save what changed with the version check (``Conflict`` when it fails).

        Every use case and every deadline the sweeper claims is saved here, in the caller's
        transaction, with the outbox entries of what it must show with a bot-token call: its
        board, unless ``board`` says the caller's response carries it, and its DMs.
        """
        check_version(match, expected_version)
        match.next_version = match.row.version + 1
        notices = step(match, user_id, now)
        match.row.recent = recent_texts(match)
        changed = {**changes(match), "updated_at": now}
        if not await save_match(db, match.row.id, match.row.version, changed):
            raise Conflict  # rolls the transaction back
        match.row.version += 1
        await self.save_rest(db, match, now)
        board_shown = board is not None and _rides(board, notices)
        entries = deliveries(
            match, notices, user_id, self.bot_user_id, board_shown=board_shown, mention=self.mention
        )
        await add_deliveries(db, entries, now + DELIVERY_GRACE)
        match.board_entry = any(kind == "board" for _m, _v, kind, _u, _t in entries)
        if match.row.place == MatchPlace.INTERACTION and notices:
            # What its message still owes, read here rather than in a transaction of its own
            # as the board is shown (``Outbox.with_owed``).
            match.kept = tuple(await owed_lines(db, match.row.id, match.row.version))
        return notices

    def report(self, loaded: LoadedMatch, notices: Sequence[Notice]) -> Report:
        """The caller's answer: the saved match, and the notices not addressed to the bot.

        A step words its notices on the match as it saves it, so their snapshot is the saved
        match's: it is taken, not built again between the COMMIT and the board, with the
        lines its message still owes when the use case read them (``apply``)."""
        snap = notices[0].match if notices else self.snapshot(loaded)
        if loaded.kept is not None:
            snap = replace(snap, kept=loaded.kept)
        mine = [n for n in notices if not to_user(n, self.bot_user_id)]
        ended_in = loaded.row.tournament_id if loaded.row.status in OVER else None
        return Report(snap, mine, tournament_id=ended_in)

    async def read(self, db: Db, match_id: int, *, for_update: bool = False) -> LoadedMatch:
        if not 0 < match_id <= MAX_MATCH_ID:  # a typed number: no query can take it
            raise NoMatch(match_id)
        found = await load_match(db, match_id, for_update=for_update)
        if found is None:
            raise NoMatch(match_id)
        return self.loaded(found)

    def loaded(self, found: MatchContext) -> LoadedMatch:
        """A match as read, with its engine state and its server's timeouts."""
        # Not in the session: changes reach the database by the version-checked UPDATE only.
        row = found.match
        engine = games.get(row.game)
        state = engine.load(row.state) if row.state is not None else None
        match = LoadedMatch(row, list(found.players), engine, state, stored=row_values(row))
        match.timeouts = self.merge(found.settings)
        match.threads = found.threads
        match.last_seq = found.last_seq
        return match

    def merge(self, settings: ServerTimeouts | None) -> Timeouts:
        """The server's own timeouts where set, the host's defaults elsewhere."""
        return merge_timeouts(self.defaults, settings)

    async def save_rest(self, db: Db, match: LoadedMatch, now: datetime) -> None:
        """After the version check: seats (and out of the quick-pair queue), the event log,
        and a result in the stats (its players' rank roles owed, when the server has ranks)."""
        row = match.row
        if match.new_players:
            await seat_players(db, row.id, match.players)
            await queue.remove(db, match.players)  # a match started: no more waiting
        await append_events(db, row.id, match.last_seq, match.log, now)
        if row.status == MatchStatus.FINISHED:
            result = stats.Result(
                guild_id=row.guild_id,
                game=row.game,
                players=(match.players[0], match.players[1]),
                winner_seat=row.winner_seat,
                vs_bot=bool(row.vs_bot),
                bot_id=row.opponent_id if row.vs_bot else None,
                match_id=row.id,
            )
            await stats.add_result(db, result, now)
            if not result.vs_bot:
                await owe_after_match(db, row.guild_id, result.players, now)
            known = {seat: self.names(row.guild_id, uid) for seat, uid in enumerate(match.players)}
            await history.keep_names(
                db, row.id, {seat: name for seat, name in known.items() if name}
            )

    def snapshot(self, loaded: LoadedMatch) -> MatchSnapshot:
        """The match as anyone may see it, its players named."""
        return snapshot_of(loaded, self.mention)

    def context_snapshot(self, found: MatchContext) -> MatchSnapshot:
        return self.snapshot(self.loaded(found))


def _rides(board: BoardRoute, notices: Sequence[Notice]) -> bool:
    """Whether the caller's response carries the board this use case changed."""
    public = next((n for n in notices if isinstance(n, Public)), None)
    return public is not None and board.rides_on_response(public.match)
