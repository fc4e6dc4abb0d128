"""Playing a match: a secret, a move or a hint, in a channel or by id, and resigning. Each is
one transaction (``MatchRunner``)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from sqlalchemy.ext.asyncio import AsyncConnection

from bot.service.acting import Member, acting
from bot.service.errors import (
    GameRefused,
    NotAPlayer,
    NotAsked,
    NotStarted,
    OverStep,
    PlayerStep,
)
from bot.service.lines import Say, Saying
from bot.service.lookups import pick
from bot.service.match_state import OVER, LoadedMatch, over
from bot.service.notices import BoardRoute, Notice, Public, Report
from bot.service.runner import MatchRunner
from bot.service.steps import Steps, abort
from db.matches import channel_matches
from db.models import MatchStatus
from games.base import Ask, Event, GameError, Outcome, Reason, other


@dataclass(frozen=True)
class Play:
    """Play and resign: a match's rules around a game's rules."""

    runner: MatchRunner
    steps: Steps

    async def submit(
        self,
        match_id: int,
        user_id: Member,
        text: str,
        *,
        expected_version: int | None = None,
        answering: Collection[Ask] | None = None,
        guild_id: int | None = None,
        board: BoardRoute | None = None,
    ) -> Report:
        """Play ``text`` for ``user_id``: a secret, a move or a Crown hint, whatever is asked.

        ``expected_version`` is the version the user saw (buttons carry it): when the match has
        moved on since, the request is refused as already played instead of re-read.
        ``answering`` is what the input was made to answer (a DM asked for a secret, a secret
        picker): when the player is now asked something else, it is refused and nothing is
        played, so a secret sent again never becomes a public move.
        """
        act = partial(self._act, text=text, answering=answering)
        target = self.runner.in_guild(match_id, guild_id)
        return await self.runner.run(target, acting(user_id), expected_version, act, board)

    async def play_in_channel(
        self,
        guild_id: int,
        channel_id: int,
        game: str,
        user_id: Member,
        text: str,
        *,
        board: BoardRoute | None = None,
    ) -> Report:
        """Play ``text`` in the caller's match of ``game`` in this channel (a slash command):
        the match is found in the move's own transaction."""
        member = acting(user_id)

        async def find(connection: AsyncConnection) -> LoadedMatch:
            found = await channel_matches(
                connection, guild_id, channel_id, game, member.user_id, for_update=True
            )
            return self.runner.loaded(pick(self.runner, found, game, member.user_id))

        # A command makes a public move only: a secret or a hint is chosen in private.
        act = partial(self._act, text=text, answering=(Ask.ACTION,))
        return await self.runner.run(find, member, None, act, board)

    async def resign(
        self,
        match_id: int,
        user_id: Member,
        *,
        guild_id: int | None = None,
        board: BoardRoute | None = None,
    ) -> Report:
        """Give up: a loss while the match is active, an abort before it starts."""
        return await self.runner.run(
            self.runner.in_guild(match_id, guild_id), acting(user_id), None, self._resign, board
        )

    def _act(
        self,
        loaded: LoadedMatch,
        user_id: int | None,
        now: datetime,
        text: str,
        answering: Collection[Ask] | None,
    ) -> list[Notice]:
        row, engine = loaded.row, loaded.game
        if row.status == MatchStatus.CHALLENGED:
            raise NotStarted()
        if row.status in OVER:
            raise over(row, OverStep.PLAY)
        seat = loaded.seat(user_id)
        if seat is None:
            raise NotAPlayer()
        state = loaded.state
        if seat not in engine.to_act(state):
            raise self.steps.whose_turn(loaded)
        asked = engine.ask(state, seat)
        if answering is not None and asked not in answering:
            raise NotAsked(asked, engine.name)
        try:
            action = engine.parse(state, seat, text)
            new_state, events = engine.apply(state, seat, action)
        except GameError as error:
            raise GameRefused(error) from None
        return self.steps.played(loaded, seat, action, new_state, events, now)

    def _resign(self, loaded: LoadedMatch, user_id: int | None, now: datetime) -> list[Notice]:
        row = loaded.row
        if row.status in OVER:
            raise over(row, OverStep.END)
        if user_id not in (row.challenger_id, row.opponent_id):
            raise NotAPlayer(PlayerStep.RESIGN)
        if row.status in (MatchStatus.CHALLENGED, MatchStatus.SETUP):
            events: list[Event] = []
            if loaded.state is not None:
                loaded.state, events = loaded.game.conclude(
                    loaded.state, Outcome(None, Reason.RESIGN)
                )
            abort(loaded, "resign", now)
            loaded.row.called_off_by = user_id
            loaded.log.append((None, "abort", None, {"by": user_id}))
            loaded.record(events)
            member = self.steps.mention(user_id)
            line = Saying.of(Say.CALLED_OFF_EARLY, member=member)
            snap = self.steps.snapshot(loaded)
            return [Public(snap, (line, *self.steps.told(loaded, events)), kind="end")]
        seat = loaded.seat(user_id)
        assert seat is not None
        return self.steps.conclude(loaded, Outcome(other(seat), Reason.RESIGN), now)
