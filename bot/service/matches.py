"""The match service: every use case a match goes through, with no Discord in sight.

Each use case is one transaction (``MatchCore``): challenge, accept, decline, withdraw, rematch,
a secret, a move or a hint, resign, and what organizers and departures do to a match. Deadlines
are in ``deadlines.py``, what must still be shown in ``outbox.py``, stats and settings in
``servers.py``.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Collection, Mapping
from datetime import datetime
from functools import partial
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

import games
from bot.i18n import _
from bot.i18n.formats import command
from bot.service.errors import (
    ChallengeRefused,
    InvalidMove,
    MatchError,
    MatchNotFound,
    NotYourMatch,
    NotYourTurn,
    WrongStatus,
)
from bot.service.limits import (
    CHANNEL_WINDOW,
    MAX_PAIR_CHALLENGES,
    MAX_PLAYING,
    PAIR_WINDOW,
    check_challenge,
    check_channel,
    check_playing,
)
from bot.service.match_core import Finder
from bot.service.match_state import (
    DELIVERY_GRACE,
    OVER,
    LoadedMatch,
    require_status,
)
from bot.service.notices import BoardRoute, MatchSnapshot, Notice, Prompt, Public, Report
from bot.service.organizing import Organizing
from bot.service.timeouts import human
from bot.service.wording import (
    NO_LONGER_OPEN,
    NO_MATCH,
    NOT_YOUR_MATCH,
    describe_options,
    ended,
    not_what_was_asked,
)
from db import open_challenges
from db import repository as repo
from db.models import OPEN_OPPONENT, MatchOrigin, MatchStatus
from games.base import Ask, Event, GameError, Outcome, Reason, other
from games.players import DEFAULT_LEVEL, LEVELS
from games.worded import Worded

log = logging.getLogger(__name__)


class MatchService(Organizing):
    """Challenge, accept, play, resign: a match's rules around a game's rules."""

    async def challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int | None,
        game: str,
        options: Mapping[str, Any] | None = None,
        opponent_is_bot: bool = False,
        level: str | None = None,
        board: BoardRoute | None = None,
        origin: MatchOrigin | None = None,
    ) -> Report:
        """Post a challenge the opponent may accept or decline; with no opponent, an open
        challenge any other member may accept (the first Accept wins).

        Challenging the bot itself starts the match at once against the built-in player of
        ``level`` (default normal). ``origin`` says a queue's fallback to the bot.
        """
        engine = games.get(game)
        is_open = opponent_id is None
        if opponent_id is None:
            opponent_id = OPEN_OPPONENT
        vs_bot = self.bot_user_id is not None and opponent_id == self.bot_user_id
        if opponent_id == challenger_id:
            raise ChallengeRefused(_("You cannot challenge yourself: pick another member."))
        if opponent_is_bot and not vs_bot:
            raise ChallengeRefused(
                _(
                    "Bot accounts cannot play: challenge a member of this server, or me for a "
                    "match against the built-in player."
                )
            )
        if level is not None and level not in LEVELS:
            raise InvalidMove(
                _(
                    "Unknown level {level}: choose one of {levels}.",
                    level=repr(level),
                    levels=", ".join(LEVELS),
                )
            )
        if level is not None and not vs_bot:
            raise InvalidMove(_("A level applies only to a match against me, the bot."))
        seed = self.seeds()
        try:
            normalised = engine.options(engine.new(dict(options or {}), seed))
        except GameError as error:
            raise InvalidMove(str(error)) from None
        now = self.clock()
        values: dict[str, Any] = {
            "guild_id": guild_id,
            "channel_id": channel_id,
            "game": engine.name,
            "options": normalised,
            "seed": seed,
            "state": None,
            "status": MatchStatus.CHALLENGED,
            "version": 0,
            "deadline_kind": "challenge",
            "challenger_id": challenger_id,
            "opponent_id": opponent_id,
            "vs_bot": vs_bot,
            "bot_level": (level or DEFAULT_LEVEL) if vs_bot else None,
            "message_id": None,
            "winner_seat": None,
            "end_reason": None,
            "created_at": now,
            "updated_at": now,
            "finished_at": None,
            "recent": None,
            "origin": (origin or (MatchOrigin.OPEN if is_open else MatchOrigin.NAMED)).value,
        }
        async with self._transaction() as connection:
            load = await repo.member_load(connection, challenger_id, opponent_id, now - PAIR_WINDOW)
            check_challenge(load, vs_bot=vs_bot, open_challenge=is_open)
            if is_open:
                since = now - CHANNEL_WINDOW
                check_channel(await open_challenges.posted_since(connection, channel_id, since))
            timeouts = self._merge(await repo.server_timeouts(connection, guild_id))
            values["deadline"] = now + timeouts.delta("challenge")
            match_id = await repo.insert_match(connection, values)
            logged: list[repo.EventRow] = [(None, "challenge", None, {"options": normalised})]
            await repo.append_events(connection, match_id, 0, logged, now)
            row = repo.MatchRow(id=match_id, **values)
            snap = self._snapshot(LoadedMatch(row, [], engine, None))
            if not vs_bot and (board is None or not board.rides_on_response(snap)):
                entry = [(match_id, 0, "board", None, None)]
                await repo.add_deliveries(connection, entry, now + DELIVERY_GRACE)
        if vs_bot:
            return await self._run(row.id, opponent_id, None, self._accept, board)
        challenger, opponent = self.mention(challenger_id), self.mention(opponent_id)

        def line() -> str:
            what = f"{engine.title}{describe_options(engine, normalised)}"
            if is_open:
                return _(
                    "{challenger} posts an open challenge to {game}: anyone may accept, the "
                    "first to press Accept plays. The challenge expires in {time}.",
                    challenger=challenger,
                    game=what,
                    time=human(timeouts.challenge),
                )
            return _(
                "{opponent}, {challenger} challenges you to {game}. The challenge expires in "
                "{time}.",
                opponent=opponent,
                challenger=challenger,
                game=what,
                time=human(timeouts.challenge),
            )

        return Report(snap, [Public(snap, (Worded(line),), kind="challenge")])

    async def accept(
        self,
        match_id: int,
        user_id: int,
        *,
        guild_id: int | None = None,
        board: BoardRoute | None = None,
    ) -> Report:
        """Start the match: toss the coin, seat both players, ask for secrets."""
        in_guild = self._in_guild(match_id, guild_id)

        async def find(connection: AsyncConnection) -> LoadedMatch:
            loaded = await self._find(connection, in_guild)
            row = loaded.row
            taker = user_id == row.opponent_id or (
                row.opponent_id == OPEN_OPPONENT and user_id != row.challenger_id
            )
            if row.status == MatchStatus.CHALLENGED and taker:
                load = await repo.member_load(connection, user_id, None, self.clock())
                check_playing(load, accepting=True)
            return loaded

        return await self._run(find, user_id, None, self._accept, board)

    async def decline(
        self,
        match_id: int,
        user_id: int,
        *,
        guild_id: int | None = None,
        board: BoardRoute | None = None,
    ) -> Report:
        """The challenged member says no."""
        return await self._run(
            self._in_guild(match_id, guild_id), user_id, None, self._decline, board
        )

    async def withdraw(
        self,
        match_id: int,
        user_id: int,
        *,
        guild_id: int | None = None,
        board: BoardRoute | None = None,
    ) -> Report:
        """The challenger takes the challenge back."""
        return await self._run(
            self._in_guild(match_id, guild_id), user_id, None, self._withdraw, board
        )

    async def rematch(
        self,
        match_id: int,
        user_id: int,
        *,
        guild_id: int | None = None,
        board: BoardRoute | None = None,
    ) -> Report:
        """Offer the other player the same game again: same options, same channel."""
        async with self.sessions() as session:
            loaded = await self._read(session, match_id)
        row = loaded.row
        if guild_id is not None and row.guild_id != guild_id:
            raise MatchNotFound(_(NO_MATCH, id=match_id))
        if row.status not in OVER:
            raise WrongStatus(_("A rematch can be offered once this match is over."))
        if user_id not in (row.challenger_id, row.opponent_id):
            raise NotYourMatch(_("Only the two players of this match can ask for a rematch."))
        opponent = row.opponent_id if user_id == row.challenger_id else row.challenger_id
        return await self.challenge(
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            challenger_id=user_id,
            opponent_id=opponent,
            game=row.game,
            options=row.options,
            level=row.bot_level if row.vs_bot else None,
            board=board,
        )

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
            found = await repo.channel_matches(
                connection, guild_id, channel_id, game, user_id, for_update=True
            )
            return self._match(self._pick(found, game, user_id))

        # A command makes a public move only: a secret or a hint is chosen in private.
        act = partial(self._act, text=text, answering=(Ask.ACTION,))
        return await self._run(find, user_id, None, act, board)

    def _in_guild(self, match_id: int, guild_id: int | None) -> int | Finder:
        """The match to act on: by id, and refused as unknown when it belongs to another
        server than ``guild_id`` (``None``: asked from a DM, where only its players may act)."""
        if guild_id is None:
            return match_id

        async def find(connection: AsyncConnection) -> LoadedMatch:
            loaded = await self._read(connection, match_id, for_update=True)
            if loaded.row.guild_id != guild_id:
                raise MatchNotFound(_(NO_MATCH, id=match_id))
            return loaded

        return find

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
            return await repo.in_play(session, match_ids, channel_ids)

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
            found = await repo.channel_matches(session, guild_id, channel_id, game, user_id)
        return self._pick(found, game, user_id).match.id

    def _pick(self, found: list[repo.MatchContext], game: str, user_id: int) -> repo.MatchContext:
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
            found = await repo.unfinished_matches(session, user_id, guild_id)
        return [self._context_snapshot(context) for context in found]

    async def waiting_for(self, user_id: int) -> list[MatchSnapshot]:
        """The member's started matches that wait for them to act, in any server."""
        snapshots = await self.unfinished(user_id)
        return [s for s in snapshots if s.status != MatchStatus.CHALLENGED and user_id in s.to_act]

    def _accept(self, loaded: LoadedMatch, user_id: int | None, now: datetime) -> list[Notice]:
        row = loaded.row
        taken = row.status != MatchStatus.CHALLENGED and row.opponent_id not in (
            OPEN_OPPONENT,
            user_id,
        )
        if row.origin == MatchOrigin.OPEN and taken:
            raise WrongStatus(
                _(
                    "{member} took this challenge first: it is taken.",
                    member=self.mention(row.opponent_id),
                )
            )
        require_status(row, MatchStatus.CHALLENGED, _(NO_LONGER_OPEN))
        if row.opponent_id == OPEN_OPPONENT and user_id is not None:
            if user_id == row.challenger_id:
                raise NotYourMatch(
                    _(
                        "This is your own open challenge: another member may accept it, and "
                        "you may withdraw it."
                    )
                )
            row.opponent_id = user_id
        if user_id != row.opponent_id:
            raise NotYourMatch(
                _(
                    "Only {member} can accept or decline this challenge.",
                    member=self.mention(row.opponent_id),
                )
            )
        first = random.Random(row.seed).randrange(2)
        loaded.players = (
            [row.challenger_id, row.opponent_id]
            if first == 0
            else [row.opponent_id, row.challenger_id]
        )
        loaded.new_players = True
        loaded.state = loaded.game.new(row.options, row.seed)
        bot_events = self._play_bot(loaded)
        timeouts = loaded.timeouts
        self._advance(loaded, timeouts, now)
        loaded.log.append((None, "accept", None, {"players": loaded.players}))
        first_name = self.mention(loaded.players[0])
        member = self.mention(row.challenger_id if row.vs_bot else user_id)
        vs_bot, level = row.vs_bot, row.bot_level

        def opening() -> str:
            if vs_bot:
                return _(
                    "{member} plays me at level {level}. Coin toss: {player} moves first.",
                    member=member,
                    level=level,
                    player=first_name,
                )
            return _(
                "{member} accepted. Coin toss: {player} moves first.",
                member=member,
                player=first_name,
            )

        def choose() -> str:
            if vs_bot:
                return _(
                    "{member}: choose your secret. I have sent you a DM ({time} to answer).",
                    member=member,
                    time=human(timeouts.setup),
                )
            return _(
                "Both players: choose your secret. I have sent you a DM ({time} to answer).",
                time=human(timeouts.setup),
            )

        lines: list[str] = [Worded(opening)]
        notices: list[Notice] = []
        lines += self._render(loaded, bot_events, None)
        if row.status == MatchStatus.SETUP:
            lines.append(Worded(choose))
        notices.insert(0, Public(self._snapshot(loaded), tuple(lines), kind="start"))
        notices.extend(self._new_prompts(loaded, {}))
        return notices

    def _decline(self, loaded: LoadedMatch, user_id: int | None, now: datetime) -> list[Notice]:
        if loaded.row.opponent_id == OPEN_OPPONENT:
            raise NotYourMatch(
                _("Nobody declines an open challenge: leave it, and it expires by itself.")
            )
        opponent = self.mention(loaded.row.opponent_id)
        return self._close_challenge(
            loaded,
            user_id,
            loaded.row.opponent_id,
            now,
            "declined",
            refusal=_("Only {member} can accept or decline this challenge.", member=opponent),
            line=Worded(lambda: _("{member} declined the challenge.", member=opponent)),
        )

    def _withdraw(self, loaded: LoadedMatch, user_id: int | None, now: datetime) -> list[Notice]:
        challenger = self.mention(loaded.row.challenger_id)
        return self._close_challenge(
            loaded,
            user_id,
            loaded.row.challenger_id,
            now,
            "withdrawn",
            refusal=_("Only {member} can withdraw this challenge.", member=challenger),
            line=Worded(lambda: _("{member} withdrew the challenge.", member=challenger)),
        )

    def _close_challenge(
        self,
        loaded: LoadedMatch,
        user_id: int | None,
        allowed: int,
        now: datetime,
        reason: str,
        *,
        refusal: str,
        line: str,
    ) -> list[Notice]:
        """End an open challenge without a match (declined or withdrawn by ``allowed`` only)."""
        require_status(loaded.row, MatchStatus.CHALLENGED, _(NO_LONGER_OPEN))
        if user_id != allowed:
            raise NotYourMatch(refusal)
        self._abort(loaded, reason, now)
        loaded.log.append((None, reason, None, {}))
        return [Public(self._snapshot(loaded), (line,), kind="expired")]

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


__all__ = ["MAX_PAIR_CHALLENGES", "MAX_PLAYING", "MatchError", "MatchService"]


def _in(loaded: LoadedMatch, guild_id: int | None) -> LoadedMatch:
    """``loaded``, unless it belongs to another server than the one asked from: then it is
    answered as if it did not exist."""
    if guild_id is not None and loaded.row.guild_id != guild_id:
        raise MatchNotFound(_(NO_MATCH, id=loaded.row.id))
    return loaded
