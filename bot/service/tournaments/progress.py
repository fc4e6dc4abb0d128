"""Moving a tournament on, with no Discord in sight: results, rounds, their matches, and the
claims of the process posting them.

Every change to a tournament is one transaction that saves it with a version check, so of two
writers (two processes, or a button and the sweeper) exactly one applies a change and the other
re-reads. A round's pairings are stored before any of its matches starts; each match is started
by the match service in a transaction that also records it on its pairing, so a pairing never
gets two matches. Results are read from the matches themselves (``settle``), which may run any
number of times: a restart at any point loses nothing and pairs nobody twice.

Announcing is left to the caller, which claims each round's post and the end's post for a while
(``claim_round``, ``claim_end``) and records them once posted.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, TypeVar, cast

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.lines import Say, Saying
from bot.service.lookups import Lookups
from bot.service.match_state import Clock
from bot.service.notices import Public, Report
from bot.service.organizing import Organizing
from bot.service.play import Play
from bot.service.tournaments.refusals import NoSuchTournament, TournamentBusy
from bot.service.tournaments.rounds import Format, Progress, advance, result_of
from bot.service.tournaments.view import (
    Round,
    TournamentView,
    entrants_of,
    match_end_of,
    pairing_of,
    view_of,
)
from db import tournaments as q
from db.connection import session_of, session_transaction
from db.models import TournamentStatus, utcnow
from games.base import Ask

RETRIES = 5
CLAIM = timedelta(minutes=2)
"""How long a process posting a round or an end holds it before another may try."""
UNPOSTED_AFTER = timedelta(minutes=2)
"""How old a match whose board was never posted must be before its board is posted again."""

SIGNUP, RUNNING = TournamentStatus.SIGNUP.value, TournamentStatus.RUNNING.value
FINISHED, CANCELLED = TournamentStatus.FINISHED.value, TournamentStatus.CANCELLED.value
OPEN = (SIGNUP, RUNNING)

T = TypeVar("T")


class _Conflict(Exception):
    """The version check failed: another writer changed the tournament first."""


class _Taken(Exception):
    """Another process started the pairing's match first."""


Step = Callable[[AsyncSession, q.TournamentRow], Awaitable[tuple[dict[str, Any] | None, T]]]
"""A use case's part of a transaction: what to change in the tournament's row (``None``:
nothing, and no version change) and what to answer."""


class TournamentProgress:
    """What moves tournaments on, whichever server they are in: for the process running them,
    never to answer a member (``TournamentService`` does that, server by server)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        organizing: Organizing,
        lookups: Lookups,
        play: Play,
        clock: Clock = utcnow,
    ) -> None:
        self.sessions = sessions
        self.organizing = organizing
        self.lookups = lookups
        self.play = play
        self.clock = clock
        self._reposted: dict[int, set[int]] = {}
        """Tournament -> its matches whose never-posted board this process posted again (at
        most once each); only those still unposted are kept."""

    def mention(self, user_id: int) -> str:
        return self.organizing.runner.mention(user_id)

    async def load(self, tournament_id: int, *, guild_id: int | None = None) -> TournamentView:
        """The tournament as it is now. With ``guild_id``, another server's is refused exactly
        as one that does not exist."""
        async with session_of(self.sessions) as session:
            row = await q.load_tournament(session, tournament_id, guild_id=guild_id)
            if row is None:
                raise NoSuchTournament(tournament_id)
            entrants = entrants_of(await q.entrants(session, tournament_id))
            pairings = tuple(pairing_of(p) for p in await q.pairings(session, tournament_id))
            found = await q.rounds(session, tournament_id)
        info = {
            r.number: Round(r.number, tuple(r.entrants or ()), r.channel_id, r.message_id)
            for r in found
        }
        return view_of(row, tuple(entrants), pairings, info)

    # ------------------------------------------------------------------ results and rounds

    async def settle(self, tournament_id: int) -> bool:
        """Record the results of the tournament's matches that are over and move it on: replays,
        withdrawals, the next round, the end. Idempotent; ``True`` when anything changed."""

        async def step(
            session: AsyncSession, row: q.TournamentRow
        ) -> tuple[dict[str, Any] | None, bool]:
            if row.status != RUNNING:
                return None, False
            entrants = entrants_of(await q.entrants(session, row.id))
            pairings = [pairing_of(p) for p in await q.pairings(session, row.id)]
            brackets = {r.number: tuple(r.entrants or ()) for r in await q.rounds(session, row.id)}
            waiting = [p for p in pairings if not p.ended and p.match_id is not None]
            ends = await q.match_ends(session, [p.match_id for p in waiting if p.match_id])
            recorded = {
                p.id: result_of(p, match_end_of(ends[p.match_id]))
                for p in waiting
                if p.match_id in ends
            }
            pairings = [recorded.get(p.id, p) for p in pairings]
            format = cast(Format, row.format)
            progress = advance(format, row.rounds or 0, entrants, pairings, row.round, brackets)
            changed = recorded or progress.withdrawn or progress.new_pairings or progress.over
            if not changed:
                return None, False
            for pairing in recorded.values():
                assert pairing.id is not None
                await q.record_result(session, pairing.id, pairing.score0, pairing.lapsed)
            await self.write(session, row, progress)
            return self.progressed(row, progress), True

        return await self.change(tournament_id, step)

    async def start_matches(self, tournament_id: int) -> list[Report]:
        """Start the match of every pairing of a posted round that has none yet; their reports.

        A pairing another process has just started is skipped.
        """
        tournament = await self.load(tournament_id)
        if tournament.status != RUNNING:
            return []
        reports = []
        for pairing in tournament.pairings:
            info = tournament.round_info.get(pairing.round)
            if pairing.ended or pairing.match_id is not None or pairing.seat1 is None:
                continue
            if info is None or info.channel_id is None:
                continue
            pairing_id = pairing.id
            assert pairing_id is not None

            async def link(
                session: AsyncSession, match_id: int, pairing_id: int = pairing_id
            ) -> None:
                if not await q.link_match(session, pairing_id, match_id):
                    raise _Taken

            if pairing.replay:
                heading = Saying.of(
                    Say.ROUND_GAME,
                    id=tournament.id,
                    round=pairing.round,
                    game=pairing.replay + 1,
                )
            else:
                heading = Saying.of(Say.ROUND, id=tournament.id, round=pairing.round)
            try:
                report = await self.organizing.start_pairing(
                    guild_id=tournament.guild_id,
                    channel_id=info.channel_id,
                    game=tournament.game,
                    options=tournament.options,
                    players=(pairing.seat0, pairing.seat1),
                    heading=heading,
                    link=link,
                    tournament_id=tournament.id,
                )
            except _Taken:
                continue
            reports.append(report)
        return reports

    async def unposted(self, tournament_id: int) -> list[Report]:
        """The boards of the tournament's matches that were started but never posted (their
        process stopped in between), with the secrets or hints they ask for: once each."""
        before = self.clock() - UNPOSTED_AFTER
        async with session_of(self.sessions) as session:
            found = await q.unposted_matches(session, tournament_id, before)
        reposted = self._reposted.pop(tournament_id, set()) & set(found)
        if found:
            self._reposted[tournament_id] = reposted
        reports = []
        for match_id in found:
            if match_id in reposted:
                continue
            reposted.add(match_id)
            snap = await self.lookups.snapshot(match_id)
            notices: list[Any] = [
                Public(snap, (Saying.of(Say.YOUR_MATCH, id=tournament_id),), kind="start")
            ]
            for user_id, ask in snap.asks.items():
                if ask in (Ask.SECRET, Ask.HINT):
                    notices.append(await self.lookups.prompt(match_id, user_id))
            reports.append(Report(snap, notices))
        return reports

    # ------------------------------------------------------------------ announcing

    async def claim_round(self, tournament_id: int) -> int | None:
        """Claim the next round to announce, for ``CLAIM``; its number, or ``None``."""
        now = self.clock()
        async with session_transaction(self.sessions) as session:
            return await q.claim_round(session, tournament_id, now, now + CLAIM)

    async def record_round(
        self, tournament_id: int, number: int, channel_id: int, message_id: int
    ) -> None:
        """The round is announced, and its matches go in ``channel_id``."""
        async with session_transaction(self.sessions) as session:
            await q.record_round_post(session, tournament_id, number, channel_id, message_id)

    async def claim_end(self, tournament_id: int) -> bool:
        """Claim the announcement of the tournament's end, for ``CLAIM``."""
        now = self.clock()
        async with session_transaction(self.sessions) as session:
            return await q.claim_end(session, tournament_id, now, now + CLAIM)

    async def record_end(self, tournament_id: int) -> None:
        async with session_transaction(self.sessions) as session:
            await q.mark_announced(session, tournament_id)

    async def needing_attention(self) -> list[int]:
        """The tournaments with a result to record, a round to post or start, a board never
        posted, or an end to announce."""
        now = self.clock()
        async with session_of(self.sessions) as session:
            return await q.needing_attention(session, now, now - UNPOSTED_AFTER)

    # ------------------------------------------------------------------ the transaction

    async def change(self, tournament_id: int, step: Step[T], *, guild_id: int | None = None) -> T:
        """Run ``step`` on the tournament in one transaction, saved with the version check;
        re-run against the new state when another writer came first. With ``guild_id``, another
        server's tournament is refused exactly as one that does not exist."""
        for _attempt in range(RETRIES):
            try:
                async with session_transaction(self.sessions) as session:
                    row = await q.load_tournament(
                        session, tournament_id, guild_id=guild_id, for_update=True
                    )
                    if row is None:
                        raise NoSuchTournament(tournament_id)
                    changes, answer = await step(session, row)
                    if changes is not None and not await q.save_tournament(
                        session, row.id, row.version, changes
                    ):
                        raise _Conflict  # rolls the transaction back
                return answer
            except _Conflict:
                continue
        raise TournamentBusy()

    async def write(self, session: AsyncSession, row: q.TournamentRow, progress: Progress) -> None:
        """Store what ``advance`` decided: withdrawals, new rounds and their pairings."""
        now = self.clock()
        if progress.withdrawn:
            await q.withdraw(session, row.id, progress.withdrawn)
        for number in range(row.round + 1, progress.round + 1):
            bracket = progress.brackets.get(number)
            await q.insert_round(session, row.id, number, bracket, now)
        await q.insert_pairings(
            session,
            row.id,
            [
                {
                    "round": p.round,
                    "board": p.board,
                    "replay": p.replay,
                    "seat0": p.seat0,
                    "seat1": p.seat1,
                    "ended": p.ended,
                    "score0": p.score0,
                }
                for p in progress.new_pairings
            ],
        )

    def progressed(self, row: q.TournamentRow, progress: Progress) -> dict[str, Any]:
        now = self.clock()
        values: dict[str, Any] = {"round": progress.round, "updated_at": now}
        if progress.over:
            values.update(status=FINISHED, winner_id=progress.winner, finished_at=now)
        return values
