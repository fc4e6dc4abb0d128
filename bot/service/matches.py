"""The match service: every use case a match goes through, with no Discord in sight.

Each use case is one transaction (``MatchCore``): a secret, a move or a hint, resign, and the
lookups of a member's matches. A challenge up to the match's start is in ``challenges.py``, what
organizers and departures do to a match in ``organizing.py``, deadlines in ``deadlines.py``, what
must still be shown in ``outbox.py``, stats and settings in ``servers.py``.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from datetime import datetime
from functools import partial

from sqlalchemy.ext.asyncio import AsyncConnection

import games
from bot.i18n import _
from bot.i18n.formats import command
from bot.service.challenges import Challenges
from bot.service.errors import InvalidMove, MatchNotFound, NotYourMatch, NotYourTurn, WrongStatus
from bot.service.match_state import OVER, LoadedMatch
from bot.service.notices import BoardRoute, MatchSnapshot, Notice, Prompt, Public, Report
from bot.service.wording import NO_MATCH, NOT_YOUR_MATCH, ended, not_what_was_asked
from db import matches
from db.matches import MatchContext, channel_matches, unfinished_matches
from db.models import MatchStatus
from games.base import Ask, Event, GameError, Outcome, Reason, other
from games.worded import Worded

log = logging.getLogger(__name__)


class MatchService(Challenges):
    """Play, resign, look up: a match's rules around a game's rules."""

    async def submit(
        self,
        match_id: int,
        user_id: int,
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
        target = self._in_guild(match_id, guild_id)
        return await self._run(target, user_id, expected_version, act, board)

    async def play_in_channel(
        self,
        guild_id: int,
        channel_id: int,
        game: str,
        user_id: int,
        text: str,
        *,
        board: BoardRoute | None = None,
    ) -> Report:
        """Play ``text`` in the caller's match of ``game`` in this channel (a slash command):
        the match is found in the move's own transaction."""

        async def find(connection: AsyncConnection) -> LoadedMatch:
            found = await channel_matches(
                connection, guild_id, channel_id, game, user_id, for_update=True
            )
            return self._match(self._pick(found, game, user_id))

        # A command makes a public move only: a secret or a hint is chosen in private.
        act = partial(self._act, text=text, answering=(Ask.ACTION,))
        return await self._run(find, user_id, None, act, board)

    async def resign(
        self,
        match_id: int,
        user_id: int,
        *,
        guild_id: int | None = None,
        board: BoardRoute | None = None,
    ) -> Report:
        """Give up: a loss while the match is active, an abort before it starts."""
        return await self._run(
            self._in_guild(match_id, guild_id), user_id, None, self._resign, board
        )

    async def in_play(
        self, match_ids: Collection[int], channel_ids: Collection[int]
    ) -> tuple[set[int], set[int]]:
        """Of ``match_ids``, those not over; of ``channel_ids``, those with a match not over
        (whichever process ended the others): what a process may forget of the rest."""
        async with self.sessions() as session:
            return await matches.in_play(session, match_ids, channel_ids)

    async def snapshot(self, match_id: int, *, guild_id: int | None = None) -> MatchSnapshot:
        """The match as anyone may see it (in ``guild_id``, when asked from a server)."""
        async with self.sessions() as session:
            return self._snapshot(_in(await self._read(session, match_id), guild_id))

    async def prompt(self, match_id: int, user_id: int, *, guild_id: int | None = None) -> Prompt:
        """What ``user_id`` is privately asked for now (to resend a DM or ask in the channel)."""
        async with self.sessions() as session:
            loaded = _in(await self._read(session, match_id), guild_id)
        seat = loaded.seat(user_id)
        if seat is None:
            raise NotYourMatch(_(NOT_YOUR_MATCH))
        if loaded.row.status in OVER:
            raise WrongStatus(_("This match is over."))
        if seat not in loaded.game.to_act(loaded.state):
            raise NotYourTurn(_("Nothing is asked of you right now: the other player is to act."))
        ask = loaded.game.ask(loaded.state, seat)
        return self._prompt(loaded, seat, ask)

    async def find_match(self, guild_id: int, channel_id: int, game: str, user_id: int) -> int:
        """The caller's unfinished match of ``game`` in this channel, for a slash command.

        With several, the one where the caller is to act; refused when that is still ambiguous.
        """
        async with self.sessions() as session:
            found = await channel_matches(session, guild_id, channel_id, game, user_id)
        return self._pick(found, game, user_id).match.id

    def _pick(self, found: list[MatchContext], game: str, user_id: int) -> MatchContext:
        """The one of the caller's matches in a channel a command means: the only one, or the
        only one where they are to act."""
        engine = games.get(game)
        if not found:
            raise MatchNotFound(
                _(
                    "You have no {game} match in this channel: start one with {command}.",
                    game=engine.title,
                    command=command(f"{game} challenge"),
                )
            )
        if len(found) == 1:
            return found[0]
        mine = [ctx for ctx in found if user_id in self._context_snapshot(ctx).to_act]
        if len(mine) == 1:
            return mine[0]
        raise MatchNotFound(
            _(
                "You have {n} {game} matches in this channel: use the buttons on the board of "
                "the one you mean.",
                n=len(found),
                game=engine.title,
            )
        )

    async def unfinished(self, user_id: int, guild_id: int | None = None) -> list[MatchSnapshot]:
        """The member's matches not yet over, newest first (in one server, if given)."""
        async with self.sessions() as session:
            found = await unfinished_matches(session, user_id, guild_id)
        return [self._context_snapshot(context) for context in found]

    async def waiting_for(self, user_id: int) -> list[MatchSnapshot]:
        """The member's started matches that wait for them to act, in any server."""
        snapshots = await self.unfinished(user_id)
        return [s for s in snapshots if s.status != MatchStatus.CHALLENGED and user_id in s.to_act]

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
            raise WrongStatus(
                _("This match has not started: the challenge must be accepted first.")
            )
        if row.status in OVER:
            raise WrongStatus(
                _("This match is over ({reason}): start a new one.", reason=ended(row))
            )
        seat = loaded.seat(user_id)
        if seat is None:
            raise NotYourMatch(_(NOT_YOUR_MATCH))
        state = loaded.state
        if seat not in engine.to_act(state):
            raise NotYourTurn(self._whose_turn(loaded))
        asked = engine.ask(state, seat)
        if answering is not None and asked not in answering:
            raise WrongStatus(not_what_was_asked(asked, engine))
        try:
            action = engine.parse(state, seat, text)
            new_state, events = engine.apply(state, seat, action)
        except GameError as error:
            raise InvalidMove(str(error)) from None
        return self._played(loaded, seat, action, new_state, events, now)

    def _resign(self, loaded: LoadedMatch, user_id: int | None, now: datetime) -> list[Notice]:
        row = loaded.row
        if row.status in OVER:
            raise WrongStatus(_("This match is already over ({reason}).", reason=ended(row)))
        if user_id not in (row.challenger_id, row.opponent_id):
            raise NotYourMatch(_("This is not your match: only its two players can resign it."))
        if row.status in (MatchStatus.CHALLENGED, MatchStatus.SETUP):
            events: list[Event] = []
            if loaded.state is not None:
                loaded.state, events = loaded.game.conclude(
                    loaded.state, Outcome(None, Reason.RESIGN)
                )
            self._abort(loaded, "resign", now)
            loaded.row.called_off_by = user_id
            loaded.log.append((None, "abort", None, {"by": user_id}))
            loaded.record(events)
            member = self.mention(user_id)
            line = Worded(
                lambda: _(
                    "{member} called the match off before it started. No result.", member=member
                )
            )
            snap = self._snapshot(loaded)
            return [Public(snap, (line, *self._render(loaded, events, None)), kind="end")]
        seat = loaded.seat(user_id)
        assert seat is not None
        return self._conclude(loaded, Outcome(other(seat), Reason.RESIGN), now)


def _in(loaded: LoadedMatch, guild_id: int | None) -> LoadedMatch:
    """``loaded``, unless it belongs to another server than the one asked from: then it is
    answered as if it did not exist."""
    if guild_id is not None and loaded.row.guild_id != guild_id:
        raise MatchNotFound(_(NO_MATCH, id=loaded.row.id))
    return loaded
