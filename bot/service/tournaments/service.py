"""The tournament service: what members ask of a server's tournaments (sign-up, start,
leaving, cancelling, standings, organizers), with no Discord in sight.

Every use case names the server it is asked from: another server's tournament is refused
exactly as one that does not exist (``NoSuchTournament``), whatever the member may do in
their own server. What moves an event on is ``TournamentProgress``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy.ext.asyncio import AsyncSession

import games
from bot.service.errors import GameRefused, WrongStatus
from bot.service.lines import Say, Saying
from bot.service.match_parts import MatchParts
from bot.service.notices import Report
from bot.service.ratings import Rating, as_of
from bot.service.tournaments.pairing import Entrant
from bot.service.tournaments.progress import (
    CANCELLED,
    OPEN,
    RUNNING,
    SIGNUP,
    TournamentProgress,
)
from bot.service.tournaments.refusals import (
    AlreadyEntered,
    NoSuchFormat,
    NotEntered,
    NotOrganizer,
    NoTournamentMeant,
    OpenTournamentsLimit,
    OutOfRange,
    RoundsOnlyForSwiss,
    Setting,
    SeveralTournaments,
    TooFewPlayers,
    TournamentClosed,
    TournamentFull,
    TournamentRefused,
    TournamentStep,
    UnknownGame,
)
from bot.service.tournaments.rounds import FORMATS, LEFT, Format, advance, round_count
from bot.service.tournaments.view import TournamentView
from db import tournaments as q
from db.connection import session_of, session_transaction
from games.base import GameError

MAX_ENTRANTS = 64
"""The most players a tournament takes: its standings and pairings must fit one message."""
MAX_ROUNDS = 20
MAX_OPEN_PER_GUILD = 3
"""The most tournaments a server may have in sign-up or running at once."""
MAX_OPEN_PER_ORGANIZER = 2
"""The most a member may have created that are in sign-up or running at once."""


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


class TournamentService:
    """Tournaments over the match service's matches; each use case is one transaction."""

    def __init__(self, progress: TournamentProgress) -> None:
        self.progress = progress
        """What moves tournaments on, and the transaction each use case runs in."""
        self.sessions = progress.sessions
        self.clock = progress.clock

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
            raise NotOrganizer(TournamentStep.CREATE)
        if game not in games.GAMES:
            raise UnknownGame(game, tuple(games.GAMES))
        engine = games.get(game)
        if format not in FORMATS:
            raise NoSuchFormat(tuple(FORMATS))
        if rounds is not None and format != "swiss":
            raise RoundsOnlyForSwiss()
        if rounds is not None and not 1 <= rounds <= MAX_ROUNDS:
            raise OutOfRange(Setting.ROUNDS, 1, MAX_ROUNDS)
        if max_players is not None and not 2 <= max_players <= MAX_ENTRANTS:
            raise OutOfRange(Setting.PLAYERS, 2, MAX_ENTRANTS)
        try:
            normalised = engine.options(engine.new(dict(options or {}), 0))
        except GameError as error:
            raise GameRefused(error) from None
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
        async with session_transaction(self.sessions) as session:
            await q.lock_guild(session, guild_id)
            _check_room(await q.guild_tournaments(session, guild_id, OPEN), creator_id)
            tournament_id = await q.insert_tournament(session, values)
        return await self.progress.load(tournament_id)

    async def set_message(self, tournament_id: int, message_id: int) -> None:
        """Remember the sign-up message, to close it when the event starts or is cancelled."""
        async with session_transaction(self.sessions) as session:
            await q.set_message_id(session, tournament_id, message_id)

    async def join(self, tournament_id: int, user_id: int, *, guild_id: int) -> TournamentView:
        """Enter the member, while sign-up is open and there is room."""

        async def step(
            session: AsyncSession, row: q.TournamentRow
        ) -> tuple[dict[str, Any] | None, None]:
            if row.status != SIGNUP:
                raise TournamentClosed(row.id, TournamentStep.JOIN)
            entrants = await q.entrants(session, row.id)
            if any(e.user_id == user_id for e in entrants):
                raise AlreadyEntered(row.id)
            if len(entrants) >= (row.max_players or MAX_ENTRANTS):
                raise TournamentFull(row.id)
            await q.add_entrant(session, row.id, user_id, self.clock())
            return {"updated_at": self.clock()}, None

        await self.progress.change(tournament_id, step, guild_id=guild_id)
        return await self.progress.load(tournament_id)

    async def leave(self, tournament_id: int, user_id: int, *, guild_id: int) -> Left:
        """Leave: during sign-up the member is taken off the list; once started they are
        withdrawn, and a match of theirs in play is resigned (an ordinary loss)."""

        async def step(
            session: AsyncSession, row: q.TournamentRow
        ) -> tuple[dict[str, Any] | None, str]:
            entrant = next(
                (e for e in await q.entrants(session, row.id) if e.user_id == user_id), None
            )
            if row.status not in OPEN:
                raise TournamentClosed(row.id, TournamentStep.LEAVE)
            if entrant is None or entrant.withdrawn is not None:
                raise NotEntered(row.id)
            if row.status == SIGNUP:
                await q.remove_entrant(session, row.id, user_id)
            else:
                await q.withdraw(session, row.id, {user_id: LEFT})
            return {"updated_at": self.clock()}, row.status

        status = await self.progress.change(tournament_id, step, guild_id=guild_id)
        report = None
        if status == RUNNING:
            async with session_of(self.sessions) as session:
                match_id = await q.member_match(session, tournament_id, user_id)
            if match_id is not None:
                try:
                    report = await self.progress.play.resign(match_id, user_id)
                except WrongStatus:
                    report = None  # it ended meanwhile
            await self.progress.settle(tournament_id)
        return Left(await self.progress.load(tournament_id), report)

    # ------------------------------------------------------------------ running

    async def start(
        self, tournament_id: int, user_id: int, *, guild_id: int, may_organize: bool
    ) -> TournamentView:
        """Close sign-up and pair round 1 (the creator or an organizer)."""

        async def step(
            session: AsyncSession, row: q.TournamentRow
        ) -> tuple[dict[str, Any] | None, None]:
            if row.status != SIGNUP:
                raise TournamentClosed(row.id, TournamentStep.START)
            self._check_organizer(row, user_id, may_organize, TournamentStep.START)
            found = await q.entrants(session, row.id)
            if len(found) < 2:
                raise TooFewPlayers(row.id)
            stored = await q.ratings(session, row.guild_id, row.game, [e.user_id for e in found])
            now = self.clock()
            rating = {
                user_id: as_of(Rating(s.rating, s.deviation, s.volatility), s.deviation_at, now)
                for user_id, s in stored.items()
            }
            await q.set_ratings(
                session, row.id, {u: (r.rating, r.provisional) for u, r in rating.items()}
            )
            entrants = [
                Entrant(e.user_id, rating[e.user_id].rating, None, rating[e.user_id].provisional)
                for e in found
            ]
            total = round_count(cast(Format, row.format), entrants, row.rounds)
            progress = advance(cast(Format, row.format), total, entrants, [], 0, {})
            await self.progress.write(session, row, progress)
            return {
                "status": RUNNING,
                "rounds": total,
                **self.progress.progressed(row, progress),
            }, None

        await self.progress.change(tournament_id, step, guild_id=guild_id)
        return await self.progress.load(tournament_id)

    async def cancel(
        self, tournament_id: int, user_id: int, *, guild_id: int, may_organize: bool
    ) -> Cancelled:
        """Cancel the event (the creator or an organizer): its matches in play are called off,
        without a result and without any change to ratings."""

        async def step(
            session: AsyncSession, row: q.TournamentRow
        ) -> tuple[dict[str, Any] | None, None]:
            if row.status not in OPEN:
                raise TournamentClosed(row.id, TournamentStep.CANCEL)
            self._check_organizer(row, user_id, may_organize, TournamentStep.CANCEL)
            for pairing in await q.pairings(session, row.id):
                if not pairing.ended:
                    await q.record_result(session, pairing.id, None, (False, False))
            now = self.clock()
            # The command announces it (with who cancelled): no end post.
            return {"status": CANCELLED, "announced": True, "finished_at": now}, None

        await self.progress.change(tournament_id, step, guild_id=guild_id)
        async with session_of(self.sessions) as session:
            unfinished = await q.unfinished_matches(session, tournament_id)
        line = Saying.of(Say.TOURNAMENT_CANCELLED, id=tournament_id)
        reports = []
        for match_id in unfinished:
            try:
                reports.append(await self.progress.organizing.cancel(match_id, line))
            except WrongStatus:
                continue  # it ended meanwhile
        return Cancelled(await self.progress.load(tournament_id), reports)

    # ------------------------------------------------------------------ queries

    async def view(self, tournament_id: int, *, guild_id: int) -> TournamentView:
        """The server's tournament; another server's is refused as one that does not exist."""
        return await self.progress.load(tournament_id, guild_id=guild_id)

    async def find(
        self,
        guild_id: int,
        channel_ids: Collection[int],
        statuses: Iterable[str],
        *,
        entrant: int | None = None,
        newest: bool = False,
    ) -> TournamentView:
        """The one tournament a command means when it names none: among the server's in
        ``statuses``, those of this channel (or, with ``entrant``, those the member plays in);
        of those, the one running if only one is, else (with ``newest``) the newest. Refused
        when none or several are left (``NoTournamentMeant``, ``SeveralTournaments``)."""
        async with session_of(self.sessions) as session:
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
            raise NoTournamentMeant(entrant is not None)
        if len(rows) > 1:
            raise SeveralTournaments(tuple(r.id for r in rows[:10]))
        return await self.progress.load(rows[0].id)

    async def organizer_role(self, guild_id: int) -> int | None:
        async with session_of(self.sessions) as session:
            return await q.organizer_role(session, guild_id)

    async def set_organizer_role(self, guild_id: int, role_id: int) -> None:
        async with session_transaction(self.sessions) as session:
            await q.set_organizer_role(session, guild_id, role_id, self.clock())

    async def clear_organizer_role(self, guild_id: int) -> bool:
        """Leave tournaments to Manage Server alone; ``True`` if a role was set."""
        async with session_transaction(self.sessions) as session:
            return await q.clear_organizer_role(session, guild_id)

    def _check_organizer(
        self, row: q.TournamentRow, user_id: int, may_organize: bool, step: TournamentStep
    ) -> None:
        """Refuse ``step`` to a member who neither created the tournament nor organizes."""
        if user_id != row.creator_id and not may_organize:
            raise NotOrganizer(step, row.id, row.creator_id)


def _check_room(open_here: list[q.TournamentRow], creator_id: int) -> None:
    """Refuse another tournament when the member, or the server, has as many open as allowed."""
    mine = [row for row in open_here if row.creator_id == creator_id]
    if len(mine) >= MAX_OPEN_PER_ORGANIZER:
        raise OpenTournamentsLimit(tuple(row.id for row in mine), mine=True)
    if len(open_here) >= MAX_OPEN_PER_GUILD:
        raise OpenTournamentsLimit(tuple(row.id for row in open_here), mine=False)


__all__ = [
    "OPEN",
    "Cancelled",
    "Left",
    "TournamentRefused",
    "TournamentService",
]


def tournament_service(matches: MatchParts) -> TournamentService:
    """Tournaments over ``matches``' use cases, on their database and clock."""
    runner = matches.runner
    progress = TournamentProgress(
        runner.sessions,
        organizing=matches.organizing,
        lookups=matches.lookups,
        play=matches.play,
        clock=runner.clock,
    )
    return TournamentService(progress)
