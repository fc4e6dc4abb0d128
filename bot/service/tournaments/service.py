"""The tournament service: sign-up, start, results, rounds, standings and the end, with no
Discord in sight.

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

from collections.abc import Awaitable, Callable, Collection, Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar, cast

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.service.errors import MatchError, WrongStatus
from bot.service.matches import Clock, MatchService
from bot.service.notices import Public, Report
from bot.service.tournaments.pairing import Entrant
from bot.service.tournaments.rounds import (
    FORMATS,
    LEFT,
    Format,
    Progress,
    advance,
    result_of,
    round_count,
)
from bot.service.tournaments.view import (
    Round,
    TournamentView,
    entrants_of,
    match_end_of,
    pairing_of,
    view_of,
)
from db import tournaments as q
from db.models import TournamentStatus, utcnow
from games.base import Ask, GameError

MAX_ENTRANTS = 64
"""The most players a tournament takes: its standings and pairings must fit one message."""
MAX_ROUNDS = 20
RETRIES = 5
CLAIM = timedelta(minutes=2)
"""How long a process posting a round or an end holds it before another may try."""
UNPOSTED_AFTER = timedelta(minutes=2)
"""How old a match whose board was never posted must be before its board is posted again."""

SIGNUP, RUNNING = TournamentStatus.SIGNUP.value, TournamentStatus.RUNNING.value
FINISHED, CANCELLED = TournamentStatus.FINISHED.value, TournamentStatus.CANCELLED.value
OPEN = (SIGNUP, RUNNING)

T = TypeVar("T")


class TournamentRefused(MatchError):
    """A tournament request that may not be made; the message says why, safe to show."""


class _Conflict(Exception):
    """The version check failed: another writer changed the tournament first."""


class _Taken(Exception):
    """Another process started the pairing's match first."""


@dataclass(frozen=True)
class Left:
    """A member left: the tournament now, and their match's end if they left one in play."""

    tournament: TournamentView
    report: Report | None = None


@dataclass(frozen=True)
class Cancelled:
    """A cancelled tournament and the reports of the matches it called off."""

    tournament: TournamentView
    reports: list[Report]


Step = Callable[[AsyncSession, q.TournamentRow], Awaitable[tuple[dict[str, Any] | None, T]]]
"""A use case's part of a transaction: what to change in the tournament's row (``None``:
nothing, and no version change) and what to answer."""


class TournamentService:
    """Tournaments over the match service's matches; each use case is one transaction."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        matches: MatchService,
        *,
        clock: Clock = utcnow,
    ) -> None:
        self.sessions = sessions
        self.matches = matches
        self.clock = clock
        self._reposted: set[int] = set()
        """Matches whose never-posted board this process posted again (at most once each)."""

    def mention(self, user_id: int) -> str:
        return self.matches.mention(user_id)

    # ------------------------------------------------------------------ sign-up

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        creator_id: int,
        may_organize: bool,
        game: str,
        format: str,
        options: dict[str, Any] | None = None,
        rounds: int | None = None,
        max_players: int | None = None,
    ) -> TournamentView:
        """Open a tournament's sign-up in this channel (organizers only)."""
        if not may_organize:
            raise TournamentRefused(
                "Only members with the Manage Server permission or the organizer role can "
                "create a tournament."
            )
        try:
            engine = games.get(game)
        except KeyError as error:
            raise TournamentRefused(str(error.args[0])) from None
        if format not in FORMATS:
            raise TournamentRefused(f"Unknown format {format!r}: choose {', '.join(FORMATS)}.")
        if rounds is not None and format != "swiss":
            raise TournamentRefused("The number of rounds is set only for a Swiss tournament.")
        if rounds is not None and not 1 <= rounds <= MAX_ROUNDS:
            raise TournamentRefused(f"A Swiss tournament has 1 to {MAX_ROUNDS} rounds.")
        if max_players is not None and not 2 <= max_players <= MAX_ENTRANTS:
            raise TournamentRefused(f"A tournament takes 2 to {MAX_ENTRANTS} players.")
        try:
            normalised = engine.options(engine.new(dict(options or {}), 0))
        except GameError as error:
            raise TournamentRefused(str(error)) from None
        now = self.clock()
        values = {
            "guild_id": guild_id,
            "channel_id": channel_id,
            "creator_id": creator_id,
            "game": engine.name,
            "options": normalised,
            "format": format,
            "rounds": rounds,
            "max_players": max_players,
            "status": SIGNUP,
            "round": 0,
            "version": 0,
            "announced": False,
            "created_at": now,
            "updated_at": now,
        }
        async with self.sessions.begin() as session:
            tournament_id = await q.insert_tournament(session, values)
        return await self.view(tournament_id)

    async def set_message(self, tournament_id: int, message_id: int) -> None:
        """Remember the sign-up message, to close it when the event starts or is cancelled."""
        async with self.sessions.begin() as session:
            await q.set_message_id(session, tournament_id, message_id)

    async def join(self, tournament_id: int, user_id: int) -> TournamentView:
        """Enter the member, while sign-up is open and there is room."""

        async def step(
            session: AsyncSession, row: q.TournamentRow
        ) -> tuple[dict[str, Any] | None, None]:
            if row.status != SIGNUP:
                raise TournamentRefused(f"Sign-up for tournament #{row.id} is closed.")
            entrants = await q.entrants(session, row.id)
            if any(e.user_id == user_id for e in entrants):
                raise TournamentRefused(f"You are already in tournament #{row.id}.")
            if len(entrants) >= (row.max_players or MAX_ENTRANTS):
                raise TournamentRefused(f"Tournament #{row.id} is full.")
            await q.add_entrant(session, row.id, user_id, self.clock())
            return {"updated_at": self.clock()}, None

        await self._change(tournament_id, step)
        return await self.view(tournament_id)

    async def leave(self, tournament_id: int, user_id: int) -> Left:
        """Leave: during sign-up the member is taken off the list; once started they are
        withdrawn, and a match of theirs in play is resigned (an ordinary loss)."""

        async def step(
            session: AsyncSession, row: q.TournamentRow
        ) -> tuple[dict[str, Any] | None, str]:
            entrant = next(
                (e for e in await q.entrants(session, row.id) if e.user_id == user_id), None
            )
            if row.status not in OPEN:
                raise TournamentRefused(f"Tournament #{row.id} is over.")
            if entrant is None or entrant.withdrawn is not None:
                raise TournamentRefused(f"You are not playing in tournament #{row.id}.")
            if row.status == SIGNUP:
                await q.remove_entrant(session, row.id, user_id)
            else:
                await q.withdraw(session, row.id, {user_id: LEFT})
            return {"updated_at": self.clock()}, row.status

        status = await self._change(tournament_id, step)
        report = None
        if status == RUNNING:
            async with self.sessions() as session:
                match_id = await q.member_match(session, tournament_id, user_id)
            if match_id is not None:
                try:
                    report = await self.matches.resign(match_id, user_id)
                except WrongStatus:
                    report = None  # it ended meanwhile
            await self.settle(tournament_id)
        return Left(await self.view(tournament_id), report)

    # ------------------------------------------------------------------ running

    async def start(
        self, tournament_id: int, user_id: int, *, may_organize: bool
    ) -> TournamentView:
        """Close sign-up and pair round 1 (the creator or an organizer)."""

        async def step(
            session: AsyncSession, row: q.TournamentRow
        ) -> tuple[dict[str, Any] | None, None]:
            if row.status != SIGNUP:
                raise TournamentRefused(f"Tournament #{row.id} has already started.")
            self._check_organizer(row, user_id, may_organize, "start")
            found = await q.entrants(session, row.id)
            if len(found) < 2:
                raise TournamentRefused(
                    f"Tournament #{row.id} needs at least two players to start."
                )
            rating = await q.ratings(session, row.guild_id, row.game, [e.user_id for e in found])
            await q.set_ratings(session, row.id, rating)
            entrants = [Entrant(e.user_id, rating[e.user_id]) for e in found]
            total = round_count(cast(Format, row.format), entrants, row.rounds)
            progress = advance(cast(Format, row.format), total, entrants, [], 0, {})
            await self._write(session, row, progress)
            return {"status": RUNNING, "rounds": total, **self._progressed(row, progress)}, None

        await self._change(tournament_id, step)
        return await self.view(tournament_id)

    async def cancel(self, tournament_id: int, user_id: int, *, may_organize: bool) -> Cancelled:
        """Cancel the event (the creator or an organizer): its matches in play are called off,
        without a result and without any change to ratings."""

        async def step(
            session: AsyncSession, row: q.TournamentRow
        ) -> tuple[dict[str, Any] | None, None]:
            if row.status not in OPEN:
                raise TournamentRefused(f"Tournament #{row.id} is already over.")
            self._check_organizer(row, user_id, may_organize, "cancel")
            for pairing in await q.pairings(session, row.id):
                if not pairing.ended:
                    await q.record_result(session, pairing.id, None, (False, False))
            now = self.clock()
            # The command's answer announces it.
            return {"status": CANCELLED, "announced": True, "finished_at": now}, None

        await self._change(tournament_id, step)
        async with self.sessions() as session:
            unfinished = await q.unfinished_matches(session, tournament_id)
        line = f"Tournament #{tournament_id} was cancelled: this match is called off, no result."
        reports = []
        for match_id in unfinished:
            try:
                reports.append(await self.matches.cancel(match_id, line))
            except WrongStatus:
                continue  # it ended meanwhile
        return Cancelled(await self.view(tournament_id), reports)

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
            await self._write(session, row, progress)
            return self._progressed(row, progress), True

        return await self._change(tournament_id, step)

    async def start_matches(self, tournament_id: int) -> list[Report]:
        """Start the match of every pairing of a posted round that has none yet; their reports.

        A pairing another process has just started is skipped.
        """
        tournament = await self.view(tournament_id)
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

            heading = f"Tournament #{tournament.id}, round {pairing.round}"
            if pairing.replay:
                heading += f", game {pairing.replay + 1}"
            try:
                report = await self.matches.start_pairing(
                    guild_id=tournament.guild_id,
                    channel_id=info.channel_id,
                    game=tournament.game,
                    options=tournament.options,
                    players=(pairing.seat0, pairing.seat1),
                    heading=f"{heading}:",
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
        async with self.sessions() as session:
            found = await q.unposted_matches(session, tournament_id, before)
        reports = []
        for match_id in found:
            if match_id in self._reposted:
                continue
            self._reposted.add(match_id)
            snap = await self.matches.snapshot(match_id)
            notices: list[Any] = [
                Public(snap, (f"Tournament #{tournament_id}: your match.",), kind="start")
            ]
            for user_id, ask in snap.asks.items():
                if ask in (Ask.SECRET, Ask.HINT):
                    notices.append(await self.matches.prompt(match_id, user_id))
            reports.append(Report(snap, notices))
        return reports

    # ------------------------------------------------------------------ announcing

    async def claim_round(self, tournament_id: int) -> int | None:
        """Claim the next round to announce, for ``CLAIM``; its number, or ``None``."""
        now = self.clock()
        async with self.sessions.begin() as session:
            return await q.claim_round(session, tournament_id, now, now + CLAIM)

    async def record_round(
        self, tournament_id: int, number: int, channel_id: int, message_id: int
    ) -> None:
        """The round is announced, and its matches go in ``channel_id``."""
        async with self.sessions.begin() as session:
            await q.record_round_post(session, tournament_id, number, channel_id, message_id)

    async def claim_end(self, tournament_id: int) -> bool:
        """Claim the announcement of the tournament's end, for ``CLAIM``."""
        now = self.clock()
        async with self.sessions.begin() as session:
            return await q.claim_end(session, tournament_id, now, now + CLAIM)

    async def record_end(self, tournament_id: int) -> None:
        async with self.sessions.begin() as session:
            await q.mark_announced(session, tournament_id)

    async def needing_attention(self) -> list[int]:
        """The tournaments with a result to record, a round to post or start, a board never
        posted, or an end to announce."""
        now = self.clock()
        async with self.sessions() as session:
            return await q.needing_attention(session, now, now - UNPOSTED_AFTER)

    # ------------------------------------------------------------------ queries

    async def view(self, tournament_id: int) -> TournamentView:
        async with self.sessions() as session:
            row = await q.load_tournament(session, tournament_id)
            if row is None:
                raise TournamentRefused(f"There is no tournament #{tournament_id}.")
            entrants = entrants_of(await q.entrants(session, tournament_id))
            pairings = tuple(pairing_of(p) for p in await q.pairings(session, tournament_id))
            found = await q.rounds(session, tournament_id)
        info = {
            r.number: Round(r.number, tuple(r.entrants or ()), r.channel_id, r.message_id)
            for r in found
        }
        return view_of(row, tuple(entrants), pairings, info)

    async def find(
        self,
        guild_id: int,
        channel_ids: Collection[int],
        statuses: Iterable[str],
        *,
        entrant: int | None = None,
        newest: bool = False,
        what: str = "tournament",
    ) -> TournamentView:
        """The one tournament a command means when it names none: among the server's in
        ``statuses``, those of this channel (or, with ``entrant``, those the member plays in);
        of those, the one running if only one is, else (with ``newest``) the newest. Refused
        when none or several are left."""
        async with self.sessions() as session:
            rows = await q.guild_tournaments(session, guild_id, statuses)
            if entrant is not None:
                mine = set(await q.entered(session, guild_id, entrant, statuses))
                rows = [r for r in rows if r.id in mine]
            else:
                rows = [r for r in rows if r.channel_id in channel_ids]
        running = [r for r in rows if r.status == RUNNING]
        if len(running) == 1:
            rows = running
        elif newest and not running:
            rows = rows[:1]
        if not rows:
            where = "you play in" if entrant is not None else "in this channel"
            raise TournamentRefused(f"There is no {what} {where}: give the tournament's number.")
        if len(rows) > 1:
            numbers = ", ".join(f"#{r.id}" for r in rows[:10])
            raise TournamentRefused(
                f"There are several tournaments here ({numbers}): give the tournament's number."
            )
        return await self.view(rows[0].id)

    async def organizer_role(self, guild_id: int) -> int | None:
        async with self.sessions() as session:
            return await q.organizer_role(session, guild_id)

    async def set_organizer_role(self, guild_id: int, role_id: int) -> None:
        async with self.sessions.begin() as session:
            await q.set_organizer_role(session, guild_id, role_id, self.clock())

    # ------------------------------------------------------------------ the transaction

    async def _change(self, tournament_id: int, step: Step[T]) -> T:
        """Run ``step`` on the tournament in one transaction, saved with the version check;
        re-run against the new state when another writer came first."""
        for _ in range(RETRIES):
            try:
                async with self.sessions.begin() as session:
                    row = await q.load_tournament(session, tournament_id, for_update=True)
                    if row is None:
                        raise TournamentRefused(f"There is no tournament #{tournament_id}.")
                    changes, answer = await step(session, row)
                    if changes is not None and not await q.save_tournament(
                        session, row.id, row.version, changes
                    ):
                        raise _Conflict  # rolls the transaction back
                return answer
            except _Conflict:
                continue
        raise TournamentRefused("The tournament is busy: try again in a moment.")

    async def _write(self, session: AsyncSession, row: q.TournamentRow, progress: Progress) -> None:
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

    def _progressed(self, row: q.TournamentRow, progress: Progress) -> dict[str, Any]:
        now = self.clock()
        values: dict[str, Any] = {"round": progress.round, "updated_at": now}
        if progress.over:
            values.update(status=FINISHED, winner_id=progress.winner, finished_at=now)
        return values

    def _check_organizer(
        self, row: q.TournamentRow, user_id: int, may_organize: bool, doing: str
    ) -> None:
        if user_id != row.creator_id and not may_organize:
            raise TournamentRefused(
                f"Only {self.mention(row.creator_id)}, who created tournament #{row.id}, or an "
                f"organizer can {doing} it."
            )


__all__ = [
    "Cancelled",
    "Left",
    "TournamentRefused",
    "TournamentService",
]
