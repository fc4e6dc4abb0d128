"""Matches started and stopped by someone other than their players: a tournament's organizer
pairs two members or stops their match, and a server the bot left has its matches called off."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

import games
from bot.service.errors import GameRefused, OverStep, WrongStatus
from bot.service.failures import log_failure
from bot.service.lines import PublicLine, Say, Saying
from bot.service.match_state import DELIVERY_GRACE, OVER, LoadedMatch, deliveries, over
from bot.service.notices import Notice, Public, Report
from bot.service.runner import MatchRunner
from bot.service.steps import Steps, abort, advance
from db.connection import session_of
from db.match_threads import place_at_start
from db.matches import MATCH_COLUMNS, MatchRow, guild_unfinished, guilds_in_play, insert_match
from db.models import MatchOrigin, MatchStatus
from db.outbox import add_deliveries
from db.server_timeouts import server_timeouts
from games.base import Event, GameError, Outcome, Reason

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MatchToStart:
    """A match to start between two members at once, ``players[0]`` moving first; ``heading``
    opens its board's first lines."""

    guild_id: int
    channel_id: int
    game: str
    options: Mapping[str, Any]
    players: tuple[int, int]
    heading: Saying


@dataclass(frozen=True)
class Organizing:
    """Use cases of organizers and of the bot itself on a match."""

    runner: MatchRunner
    steps: Steps

    async def call_off(self, match_id: int, reason: str) -> Report:
        """Abort the match without a result, whatever its stage (its channel is gone, say):
        nothing is posted, no record or rating changes."""
        return await self.runner.run(match_id, None, None, partial(self._call_off, reason=reason))

    async def abort_guild(self, guild_id: int) -> list[Report]:
        """The bot is no longer in the server: call off its unfinished matches.

        No result and no rating change; the reports tell nothing to post, since nothing can be
        posted there any more.
        """
        async with session_of(self.runner.sessions) as session:
            unfinished = await guild_unfinished(session, guild_id)
        reports = []
        for match_id in unfinished:
            try:
                reports.append(await self.call_off(match_id, "bot_removed"))
            except WrongStatus:
                continue  # ended meanwhile
            except Exception:
                log_failure(log, "match %s: could not be called off", match_id)
        log.info("server %s: left it, %d unfinished matches called off", guild_id, len(reports))
        return reports

    async def abort_absent_guilds(
        self, present: set[int], *, serves: Callable[[int], bool] = lambda _guild: True
    ) -> list[Report]:
        """Call off the matches of every server the bot is not in (it was removed while away).

        ``serves`` tells the servers this process answers for (those on its shards): another
        process's servers are not listed in ``present``.
        """
        async with session_of(self.runner.sessions) as session:
            in_play = await guilds_in_play(session)
        reports = []
        for guild_id in in_play:
            if guild_id not in present and serves(guild_id):
                reports += await self.abort_guild(guild_id)
        return reports

    async def start_pairing(
        self,
        *,
        guild_id: int,
        channel_id: int,
        game: str,
        options: Mapping[str, Any],
        players: tuple[int, int],
        heading: Saying,
        link: Callable[[AsyncSession, int], Awaitable[None]] | None = None,
        tournament_id: int | None = None,
    ) -> Report:
        """Start a match between ``players`` at once, ``players[0]`` moving first: a pairing
        made by an organizer (a tournament's), so there is no challenge and no coin toss.

        ``link`` runs in the transaction that stores the match, with its id: what the match
        belongs to records it there, and an error it raises leaves no match behind. ``heading``
        opens the board's first lines.
        """
        pairing = MatchToStart(guild_id, channel_id, game, dict(options), players, heading)
        async with self.runner.session() as session:
            loaded, notices = await self.start_in(
                session, pairing, tournament_id=tournament_id, origin=MatchOrigin.PAIRED
            )
            if link is not None:
                await link(session, loaded.row.id)
        return self.runner.report(loaded, notices)

    async def start_in(
        self,
        session: AsyncSession,
        pairing: MatchToStart,
        *,
        origin: MatchOrigin,
        tournament_id: int | None = None,
        outbox: bool = False,
    ) -> tuple[LoadedMatch, list[Notice]]:
        """Store and start ``pairing``'s match in the caller's transaction; ``outbox`` writes
        its board and prompts to the outbox there (nobody's response carries them)."""
        engine = games.get(pairing.game)
        seed = self.runner.seeds()
        try:
            state = engine.new(dict(pairing.options), seed)
        except GameError as error:
            raise GameRefused(error) from None
        now = self.runner.clock()
        players = pairing.players
        row = MatchRow(
            id=0,
            guild_id=pairing.guild_id,
            channel_id=pairing.channel_id,
            game=engine.name,
            options=engine.options(state),
            seed=seed,
            state=None,
            status=MatchStatus.SETUP,
            version=0,
            deadline=None,
            deadline_kind=None,
            challenger_id=players[0],
            opponent_id=players[1],
            vs_bot=False,
            bot_level=None,
            message_id=None,
            winner_seat=None,
            end_reason=None,
            created_at=now,
            updated_at=now,
            finished_at=None,
            recent=None,
            tournament_id=tournament_id,
            origin=origin.value,
        )
        loaded = LoadedMatch(row, list(players), engine, state, new_players=True)
        loaded.timeouts = self.runner.merge(await server_timeouts(session, pairing.guild_id))
        advance(loaded, loaded.timeouts, now)
        loaded.log.append((None, "paired", None, {"players": loaded.players}))
        await place_at_start(session, row)
        values = {name: getattr(row, name) for name in MATCH_COLUMNS if name != "id"}
        row.id = await insert_match(session, values)
        await self.runner.save_rest(session, loaded, now)
        heading, setup = pairing.heading, loaded.timeouts.setup
        first = self.steps.mention(players[0])
        lines: list[PublicLine] = [Saying.of(Say.MOVES_FIRST, heading=heading, player=first)]
        if row.status == MatchStatus.SETUP:
            lines.append(Saying.of(Say.CHOOSE_SECRETS, time=setup))
        notices: list[Notice] = [Public(self.steps.snapshot(loaded), tuple(lines), kind="start")]
        notices.extend(self.steps.new_prompts(loaded, {}))
        if outbox:
            entries = deliveries(
                loaded, notices, None, self.runner.bot_user_id, mention=self.runner.mention
            )
            await add_deliveries(session, entries, now + DELIVERY_GRACE)
        return loaded, notices

    async def cancel(self, match_id: int, line: Saying) -> Report:
        """End an unfinished match without a result and without touching anyone's record (its
        organizer stopped it); ``line`` says why on its board."""

        def step(loaded: LoadedMatch, user_id: int | None, now: datetime) -> list[Notice]:
            if loaded.row.status in OVER:
                raise over(loaded.row, OverStep.END)
            events: list[Event] = []
            if loaded.state is not None:
                loaded.state, events = loaded.game.conclude(
                    loaded.state, Outcome(None, Reason.RESIGN)
                )
            abort(loaded, "called_off", now)
            loaded.log.append((None, "abort", None, {"called_off": True}))
            loaded.record(events)
            lines: tuple[PublicLine, ...] = (line, *self.steps.told(loaded, events))
            return [Public(self.steps.snapshot(loaded), lines, kind="end")]

        return await self.runner.run(match_id, None, None, step)

    def _call_off(
        self, loaded: LoadedMatch, user_id: int | None, now: datetime, reason: str
    ) -> list[Notice]:
        if loaded.row.status in OVER:
            raise over(loaded.row, OverStep.CALL_OFF)
        abort(loaded, reason, now)
        loaded.log.append((None, "abort", None, {"reason": reason}))
        return []
