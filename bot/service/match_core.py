"""The transaction every use case of a match runs in, and what it works out on the way.

A use case is one transaction on a Core connection of the engine (not a session: its unit of
work would cost a move as much as one of its statements, and a use case keeps no ORM objects):
read the match (``FOR UPDATE`` on PostgreSQL), check who may act, ask the engine, then save
what changed with a version check (``UPDATE ... WHERE version = :seen``). Losing that check
means someone else moved first; the request is answered "already played" (when the caller named
the version it saw, as a button does) or re-run against the new state (when it did not, as a
slash command does not). A finished match updates both players' stats in the same transaction.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession, async_sessionmaker

import games
from bot.i18n import _
from bot.service import stats
from bot.service.errors import AlreadyPlayed, MatchNotFound
from bot.service.languages import Languages
from bot.service.match_state import (
    ALREADY_PLAYED,
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
    history_lines,
    no_names,
    recent_texts,
    row_values,
    shown_version,
    to_user,
)
from bot.service.notices import BoardRoute, MatchSnapshot, Notice, Private, Prompt, Public, Report
from bot.service.timeouts import Timeouts, merge_timeouts
from bot.service.wording import NO_MATCH, choice_label
from db import history, queue
from db.connection import Db
from db.engine import bound_engine
from db.match_events import append_events
from db.matches import MatchContext, load_match, save_match, seat_players
from db.models import MatchStatus, utcnow
from db.outbox import add_deliveries
from db.server_timeouts import ServerTimeouts
from games.base import Ask, Event, Outcome, Seat, other
from games.players import DEFAULT_LEVEL, player_for
from games.worded import Worded


class MatchCore:
    """What every use case of a match shares: its transaction, the engine, and the notices.

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
        bot_user_id: int | None = None,
        names: Names = no_names,
        languages: Languages | None = None,
    ) -> None:
        self.sessions = sessions
        self.languages = languages
        """Where the acting member's locale is stored, for their DMs (``None``: nowhere)."""
        self.engine = bound_engine(sessions)
        """Where a use case of a match takes its connection: it runs on Core, not a session."""
        self.names = names
        """Members' display names as the chat knows them, kept with a match as it ends."""
        self.bot_user_id = bot_user_id
        """The bot's own user id: challenging it starts a match against the built-in player."""
        self.defaults = timeouts or Timeouts()
        self.clock = clock
        self.seeds = seeds
        self.mention = mention

    async def _run(
        self,
        target: int | Finder,
        user_id: int | None,
        expected_version: int | None,
        step: Step,
        board: BoardRoute | None = None,
    ) -> Report:
        """Run ``step`` on the match in one transaction, saved with the version check.

        ``target`` is the match's id, or how to find it inside the transaction (a slash
        command's match in its channel). A lost race is re-run against the new state, unless
        the caller named the version it saw (a button does): then it is answered "already
        played". ``board`` says whether the caller's own response will carry the board.
        """
        for _attempt in range(RETRIES):
            try:
                now = self.clock()
                async with self._transaction() as connection:
                    match = await self._find(connection, target)
                    notices = await self._apply(
                        connection, match, user_id, expected_version, step, now, board
                    )
                return self._report(match, notices)
            except Conflict:
                if expected_version is not None:
                    raise AlreadyPlayed(_(ALREADY_PLAYED)) from None
        raise AlreadyPlayed(_("The match is busy: try again in a moment."))

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[AsyncConnection]:
        """A use case's transaction, which also stores the acting member's locale when it
        changed (``bot.service.languages.speaks``)."""
        heard = None
        async with self.engine.begin() as connection:
            yield connection
            if self.languages is not None:
                heard = await self.languages.note(connection)
        if heard is not None and self.languages is not None:
            self.languages.noted(heard)

    async def _find(self, connection: AsyncConnection, target: int | Finder) -> LoadedMatch:
        if isinstance(target, int):
            return await self._read(connection, target, for_update=True)
        return await target(connection)

    async def _apply(
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
        await self._save_rest(db, match, now)
        board_shown = board is not None and _rides(board, notices)
        entries = deliveries(match, notices, user_id, self.bot_user_id, board_shown=board_shown)
        await add_deliveries(db, entries, now + DELIVERY_GRACE)
        return notices

    def _report(self, loaded: LoadedMatch, notices: Sequence[Notice]) -> Report:
        """The caller's answer: the saved match, and the notices not addressed to the bot."""
        snap = self._snapshot(loaded)
        mine = [n for n in notices if not to_user(n, self.bot_user_id)]
        ended_in = loaded.row.tournament_id if loaded.row.status in OVER else None
        return Report(snap, mine, tournament_id=ended_in)

    async def _read(self, db: Db, match_id: int, *, for_update: bool = False) -> LoadedMatch:
        if not 0 < match_id <= MAX_MATCH_ID:  # a typed number: no query can take it
            raise MatchNotFound(_(NO_MATCH, id=match_id))
        found = await load_match(db, match_id, for_update=for_update)
        if found is None:
            raise MatchNotFound(_(NO_MATCH, id=match_id))
        return self._match(found)

    def _match(self, found: MatchContext) -> LoadedMatch:
        # Not in the session: changes reach the database by the version-checked UPDATE only.
        row = found.match
        engine = games.get(row.game)
        state = engine.load(row.state) if row.state is not None else None
        match = LoadedMatch(row, list(found.players), engine, state, stored=row_values(row))
        match.timeouts = self._merge(found.settings)
        match.last_seq = found.last_seq
        return match

    def _played(
        self,
        loaded: LoadedMatch,
        seat: Seat,
        action: Any,
        new_state: Any,
        events: list[Event],
        now: datetime,
    ) -> list[Notice]:
        """Take ``seat``'s applied action in: log it, let the bot answer, move the match on."""
        engine, state = loaded.game, loaded.state
        asks_before = {s: engine.ask(state, s) for s in engine.to_act(state)}
        in_setup = loaded.row.status == MatchStatus.SETUP
        loaded.state = new_state
        loaded.played(seat, asks_before[seat], action, events)
        events = [*events, *self._play_bot(loaded)]
        self._advance(loaded, loaded.timeouts, now, keep_setup_deadline=in_setup)
        return self._notices(loaded, events, asks_before)

    def _conclude(self, loaded: LoadedMatch, outcome: Outcome, now: datetime) -> list[Notice]:
        """End the match from outside the game's rules; the engine words the result."""
        loaded.state, events = loaded.game.conclude(loaded.state, outcome)
        self._finish(loaded, outcome, now)
        loaded.record(events)
        snap = self._snapshot(loaded)
        return [Public(snap, tuple(self._render(loaded, events, None)), kind="end")]

    def _merge(self, settings: ServerTimeouts | None) -> Timeouts:
        """The server's own timeouts where set, the host's defaults elsewhere."""
        return merge_timeouts(self.defaults, settings)

    def _advance(
        self,
        loaded: LoadedMatch,
        timeouts: Timeouts,
        now: datetime,
        *,
        keep_setup_deadline: bool = False,
    ) -> None:
        """Set status and deadline from the engine state after a change."""
        row, engine, state = loaded.row, loaded.game, loaded.state
        outcome = engine.outcome(state)
        if outcome is not None:
            self._finish(loaded, outcome, now)
            return
        asks = {engine.ask(state, s) for s in engine.to_act(state)}
        if Ask.SECRET in asks:
            row.status = MatchStatus.SETUP
            if not keep_setup_deadline:
                row.deadline, row.deadline_kind = now + timeouts.delta("setup"), "setup"
        else:
            row.status = MatchStatus.ACTIVE
            kind = "hint" if Ask.HINT in asks else "turn"
            row.deadline, row.deadline_kind = now + timeouts.delta(kind), kind
        row.state = engine.dump(state)

    def _finish(self, loaded: LoadedMatch, outcome: Outcome, now: datetime) -> None:
        row = loaded.row
        row.status = MatchStatus.FINISHED
        row.state = loaded.game.dump(loaded.state)
        row.deadline = row.deadline_kind = None
        row.winner_seat = outcome.winner
        row.end_reason = outcome.reason.value
        row.finished_at = now

    def _abort(self, loaded: LoadedMatch, reason: str, now: datetime) -> None:
        row = loaded.row
        if loaded.state is not None:
            row.state = loaded.game.dump(loaded.state)
        row.status = MatchStatus.ABORTED
        row.deadline = row.deadline_kind = None
        row.end_reason = reason
        row.finished_at = now

    def _play_bot(self, loaded: LoadedMatch) -> list[Event]:
        """Let the built-in player act for as long as it is asked (its secret, hint or move).

        It decides from its own seat's view only. Its random choices are seeded from the match,
        so a replay makes the same ones.
        """
        row, engine = loaded.row, loaded.game
        if not row.vs_bot or self.bot_user_id not in loaded.players:
            return []
        seat = loaded.players.index(self.bot_user_id)
        player = player_for(row.game, row.bot_level or DEFAULT_LEVEL)
        events: list[Event] = []
        state = loaded.state
        while engine.outcome(state) is None and seat in engine.to_act(state):
            rng = random.Random(f"{row.seed}:{row.version}:{len(loaded.log)}")
            ask = engine.ask(state, seat)
            legal = engine.legal_actions(state, seat)
            action = player.choose(engine.view(state, seat), ask, legal, rng)
            state, happened = engine.apply(state, seat, action)
            loaded.played(seat, ask, action, happened)
            events += happened
        loaded.state = state
        return events

    async def _save_rest(self, db: Db, match: LoadedMatch, now: datetime) -> None:
        """After the version check: seats (and out of the quick-pair queue), the event log,
        and a result in the stats."""
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
            known = {seat: self.names(row.guild_id, uid) for seat, uid in enumerate(match.players)}
            await history.keep_names(
                db, row.id, {seat: name for seat, name in known.items() if name}
            )

    def _names(self, loaded: LoadedMatch) -> list[str]:
        return [self.mention(uid) for uid in loaded.players]

    def _render(
        self, loaded: LoadedMatch, events: Sequence[Event], audience: Seat | None
    ) -> list[str]:
        names = self._names(loaded)
        return [e.render(names) for e in events if e.audience == audience]

    def _whose_turn(self, loaded: LoadedMatch) -> str:
        seats = sorted(loaded.game.to_act(loaded.state))
        if len(seats) != 1:
            return _("Nothing is asked of you right now: wait for the other player.")
        who = self.mention(loaded.players[seats[0]])
        ask = loaded.game.ask(loaded.state, seats[0])
        if ask is Ask.HINT:
            return _("It is not your turn: it is {member}'s turn to choose a hint.", member=who)
        if ask is Ask.SECRET:
            return _("It is not your turn: {member} is still choosing a secret.", member=who)
        return _("It is not your turn: it is {member}'s turn to move.", member=who)

    def _notices(
        self, loaded: LoadedMatch, events: Sequence[Event], asks_before: Mapping[Seat, Ask]
    ) -> list[Notice]:
        snap = self._snapshot(loaded)
        notices: list[Notice] = []
        public = self._render(loaded, events, None)
        if public:
            kind = "end" if loaded.row.status in OVER else "update"
            notices.append(Public(snap, tuple(public), kind=kind))
        for seat, uid in enumerate(loaded.players):
            for text in self._render(loaded, events, seat):
                notices.append(Private(snap, uid, text))
        notices.extend(self._new_prompts(loaded, asks_before))
        return notices

    def _new_prompts(self, loaded: LoadedMatch, asks_before: Mapping[Seat, Ask]) -> list[Prompt]:
        """Prompts for seats newly asked for something private (a secret or a hint)."""
        engine, state = loaded.game, loaded.state
        if engine.outcome(state) is not None:
            return []
        prompts = []
        for seat in sorted(engine.to_act(state)):
            ask = engine.ask(state, seat)
            if ask in (Ask.SECRET, Ask.HINT) and asks_before.get(seat) is not ask:
                prompts.append(self._prompt(loaded, seat, ask))
        return prompts

    def _prompt(self, loaded: LoadedMatch, seat: Seat, ask: Ask) -> Prompt:
        engine, state = loaded.game, loaded.state
        opponent = self.mention(loaded.players[other(seat)])
        choices: tuple[tuple[str, str], ...] = ()
        if ask is Ask.HINT:
            actions = engine.legal_actions(state, seat)
            choices = tuple((choice_label(engine, a), str(a)) for a in actions)
            text = Worded(
                lambda: _(
                    "Your opponent {opponent} missed. Choose the hint you give.", opponent=opponent
                )
            )
        elif ask is Ask.SECRET:
            text = Worded(
                lambda: _(
                    "Choose your secret for {game} against {opponent}.",
                    game=engine.title,
                    opponent=opponent,
                )
            )
        else:
            text = Worded(
                lambda: _(
                    "Your move in {game} against {opponent}.", game=engine.title, opponent=opponent
                )
            )
        snap = self._snapshot(loaded)
        return Prompt(snap, loaded.players[seat], ask, text, choices, engine.view(state, seat))

    def _context_snapshot(self, found: MatchContext) -> MatchSnapshot:
        return self._snapshot(self._match(found))

    def _snapshot(self, loaded: LoadedMatch) -> MatchSnapshot:
        row, engine, state = loaded.row, loaded.game, loaded.state
        to_act: tuple[int, ...] = ()
        asks: dict[int, Ask] = {}
        public_view = None
        if state is not None:
            public_view = engine.view(state, None)
            if row.status not in OVER:
                seats = sorted(engine.to_act(state))
                to_act = tuple(loaded.players[s] for s in seats)
                asks = {loaded.players[s]: engine.ask(state, s) for s in seats}
        winner = (
            loaded.players[row.winner_seat]
            if row.winner_seat is not None and loaded.players
            else None
        )
        return MatchSnapshot(
            id=row.id,
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            game=row.game,
            options=dict(row.options or {}),
            status=row.status,
            version=shown_version(loaded),
            challenger_id=row.challenger_id,
            opponent_id=row.opponent_id,
            players=tuple(loaded.players),
            to_act=to_act,
            asks=asks,
            public_view=public_view,
            deadline=row.deadline,
            deadline_kind=row.deadline_kind,
            winner_id=winner,
            end_reason=row.end_reason,
            message_id=row.message_id,
            vs_bot=bool(row.vs_bot),
            history=self._history(loaded),
        )

    def _history(self, loaded: LoadedMatch) -> tuple[str, ...]:
        """The board's log: the public events before this use case's, named."""
        if len(loaded.players) != 2:
            return ()
        p0, p1 = self._names(loaded)
        earlier = loaded.stored.get("recent") or []
        return history_lines(loaded.row.game, earlier[-4:], (p0, p1))


Finder = Callable[[AsyncConnection], Awaitable[LoadedMatch]]
"""How a use case finds its match inside its own transaction, read for update."""


def _rides(board: BoardRoute, notices: Sequence[Notice]) -> bool:
    """Whether the caller's response carries the board this use case changed."""
    public = next((n for n in notices if isinstance(n, Public)), None)
    return public is not None and board.rides_on_response(public.match)
