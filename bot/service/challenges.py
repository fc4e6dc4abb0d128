"""A challenge's use cases, up to the match's start: challenge, accept, decline, withdraw,
rematch. Each is one transaction (``MatchRunner``)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

import games
from bot.service.acting import Acting, Member, acting
from bot.service.errors import (
    BotAccount,
    ChallengeStep,
    ChallengeTaken,
    GameRefused,
    LevelVsBotOnly,
    NoMatch,
    NotAPlayer,
    OnlyMember,
    OpenNotDeclined,
    OwnOpenChallenge,
    PlayerStep,
    RematchTooEarly,
    SelfChallenge,
    UnknownLevel,
)
from bot.service.limits import (
    CHANNEL_WINDOW,
    PAIR_WINDOW,
    check_challenge,
    check_channel,
    check_playing,
)
from bot.service.lines import PublicLine, Say, Saying, Titled
from bot.service.match_state import DELIVERY_GRACE, OVER, LoadedMatch, require_open
from bot.service.notices import BoardRoute, Notice, Public, Report
from bot.service.runner import Finder, MatchRunner
from bot.service.steps import Steps, abort, advance
from db import open_challenges
from db.connection import session_of
from db.match_events import EventRow, append_events
from db.match_threads import place_at_start
from db.matches import MatchRow, insert_match
from db.member_load import member_load
from db.models import OPEN_OPPONENT, MatchOrigin, MatchPlace, MatchStatus
from db.outbox import add_deliveries
from db.server_timeouts import server_timeouts
from games.base import GameError
from games.players import DEFAULT_LEVEL, LEVELS


@dataclass(frozen=True)
class Challenges:
    """Challenge, accept, decline, withdraw, rematch: how two members come to a match."""

    runner: MatchRunner
    steps: Steps

    async def challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger_id: Member,
        opponent_id: int | None,
        game: str,
        options: Mapping[str, Any] | None = None,
        opponent_is_bot: bool = False,
        level: str | None = None,
        board: BoardRoute | None = None,
        origin: MatchOrigin | None = None,
        place: MatchPlace = MatchPlace.SERVER,
    ) -> Report:
        """Post a challenge the opponent may accept or decline; with no opponent, an open
        challenge any other member may accept (the first Accept wins).

        Challenging the bot itself starts the match at once against the built-in player of
        ``level`` (default normal). ``origin`` says a queue's fallback to the bot; ``place``
        how the match's message is reached, for as long as it lives.
        """
        challenger = acting(challenger_id)
        challenger_id = challenger.user_id
        engine = games.get(game)
        is_open = opponent_id is None
        if opponent_id is None:
            opponent_id = OPEN_OPPONENT
        vs_bot = self.runner.bot_user_id is not None and opponent_id == self.runner.bot_user_id
        if opponent_id == challenger_id:
            raise SelfChallenge()
        if opponent_is_bot and not vs_bot:
            raise BotAccount()
        if level is not None and level not in LEVELS:
            raise UnknownLevel(level, tuple(LEVELS))
        if level is not None and not vs_bot:
            raise LevelVsBotOnly()
        seed = self.runner.seeds()
        try:
            normalised = engine.options(engine.new(dict(options or {}), seed))
        except GameError as error:
            raise GameRefused(error) from None
        now = self.runner.clock()
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
            "place": place.value,
        }
        async with self.runner.transaction(challenger) as connection:
            load = await member_load(connection, challenger_id, opponent_id, now - PAIR_WINDOW)
            check_challenge(load, vs_bot=vs_bot, open_challenge=is_open)
            if is_open:
                since = now - CHANNEL_WINDOW
                check_channel(await open_challenges.posted_since(connection, channel_id, since))
            timeouts = self.runner.merge(await server_timeouts(connection, guild_id))
            values["deadline"] = now + timeouts.delta("challenge")
            match_id = await insert_match(connection, values)
            logged: list[EventRow] = [(None, "challenge", None, {"options": normalised})]
            await append_events(connection, match_id, 0, logged, now)
            row = MatchRow(id=match_id, **values)
            snap = self.steps.snapshot(LoadedMatch(row, [], engine, None))
            owed = not vs_bot and (board is None or not board.rides_on_response(snap))
            if owed:
                entry = [(match_id, 0, "board", None, None)]
                await add_deliveries(connection, entry, now + DELIVERY_GRACE)
        if vs_bot:
            starting = self._starting(row.id)
            return await self.runner.run(starting, Acting(opponent_id), None, self._accept, board)
        named, opponent = self.steps.mention(challenger_id), self.steps.mention(opponent_id)
        what = Titled.of(engine.name, normalised)
        line = (
            Saying.of(Say.OPEN_CHALLENGE, challenger=named, game=what, time=timeouts.challenge)
            if is_open
            else Saying.of(
                Say.CHALLENGE,
                opponent=opponent,
                challenger=named,
                game=what,
                time=timeouts.challenge,
            )
        )
        return Report(snap, [Public(snap, (line,), kind="challenge")], board_owed=owed)

    async def accept(
        self,
        match_id: int,
        user_id: Member,
        *,
        guild_id: int | None = None,
        board: BoardRoute | None = None,
    ) -> Report:
        """Start the match: toss the coin, seat both players, ask for secrets."""
        in_guild = self.runner.in_guild(match_id, guild_id)
        member = acting(user_id)
        taker_id = member.user_id

        async def find(connection: AsyncConnection) -> LoadedMatch:
            loaded = await self.runner.find(connection, in_guild)
            row = loaded.row
            taker = taker_id == row.opponent_id or (
                row.opponent_id == OPEN_OPPONENT and taker_id != row.challenger_id
            )
            if row.status == MatchStatus.CHALLENGED and taker:
                load = await member_load(connection, taker_id, None, self.runner.clock())
                check_playing(load, accepting=True)
                await place_at_start(connection, row, loaded.threads)
            return loaded

        return await self.runner.run(find, member, None, self._accept, board)

    def _starting(self, match_id: int) -> Finder:
        """How a match against the bot, which starts as it is challenged, is read: with its
        place settled in the same transaction."""

        async def find(connection: AsyncConnection) -> LoadedMatch:
            loaded = await self.runner.read(connection, match_id, for_update=True)
            await place_at_start(connection, loaded.row, loaded.threads)
            return loaded

        return find

    async def decline(
        self,
        match_id: int,
        user_id: Member,
        *,
        guild_id: int | None = None,
        board: BoardRoute | None = None,
    ) -> Report:
        """The challenged member says no."""
        return await self.runner.run(
            self.runner.in_guild(match_id, guild_id), acting(user_id), None, self._decline, board
        )

    async def withdraw(
        self,
        match_id: int,
        user_id: Member,
        *,
        guild_id: int | None = None,
        board: BoardRoute | None = None,
    ) -> Report:
        """The challenger takes the challenge back."""
        return await self.runner.run(
            self.runner.in_guild(match_id, guild_id), acting(user_id), None, self._withdraw, board
        )

    async def rematch(
        self,
        match_id: int,
        user_id: Member,
        *,
        guild_id: int | None = None,
        board: BoardRoute | None = None,
    ) -> Report:
        """Offer the other player the same game again: same options, same channel."""
        member = acting(user_id)
        user_id = member.user_id
        async with session_of(self.runner.sessions) as session:
            loaded = await self.runner.read(session, match_id)
        row = loaded.row
        if guild_id is not None and row.guild_id != guild_id:
            raise NoMatch(match_id)
        if row.status not in OVER:
            raise RematchTooEarly()
        if user_id not in (row.challenger_id, row.opponent_id):
            raise NotAPlayer(PlayerStep.REMATCH)
        opponent = row.opponent_id if user_id == row.challenger_id else row.challenger_id
        return await self.challenge(
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            challenger_id=member,
            opponent_id=opponent,
            game=row.game,
            options=row.options,
            level=row.bot_level if row.vs_bot else None,
            board=board,
            place=MatchPlace(row.place),
        )

    def _accept(self, loaded: LoadedMatch, user_id: int | None, now: datetime) -> list[Notice]:
        row = loaded.row
        taken = row.status != MatchStatus.CHALLENGED and row.opponent_id not in (
            OPEN_OPPONENT,
            user_id,
        )
        if row.origin == MatchOrigin.OPEN and taken:
            raise ChallengeTaken(row.opponent_id)
        require_open(row)
        if row.opponent_id == OPEN_OPPONENT and user_id is not None:
            if user_id == row.challenger_id:
                raise OwnOpenChallenge()
            row.opponent_id = user_id
        if user_id != row.opponent_id:
            raise OnlyMember(row.opponent_id, ChallengeStep.ANSWER)
        first = random.Random(row.seed).randrange(2)
        loaded.players = (
            [row.challenger_id, row.opponent_id]
            if first == 0
            else [row.opponent_id, row.challenger_id]
        )
        loaded.new_players = True
        loaded.state = loaded.game.new(row.options, row.seed)
        bot_events = self.steps.play_bot(loaded)
        timeouts = loaded.timeouts
        advance(loaded, timeouts, now)
        loaded.log.append((None, "accept", None, {"players": loaded.players}))
        first_name = self.steps.mention(loaded.players[0])
        member = self.steps.mention(row.challenger_id if row.vs_bot else user_id)
        opening = (
            Saying.of(Say.PLAYS_BOT, member=member, level=str(row.bot_level), player=first_name)
            if row.vs_bot
            else Saying.of(Say.ACCEPTED, member=member, player=first_name)
        )
        lines: list[PublicLine] = [opening, *self.steps.told(loaded, bot_events)]
        notices: list[Notice] = []
        if row.status == MatchStatus.SETUP:
            lines.append(choose_secrets(row.place, member if row.vs_bot else None, timeouts.setup))
        notices.insert(0, Public(self.steps.snapshot(loaded), tuple(lines), kind="start"))
        notices.extend(self.steps.new_prompts(loaded, {}))
        return notices

    def _decline(self, loaded: LoadedMatch, user_id: int | None, now: datetime) -> list[Notice]:
        if loaded.row.opponent_id == OPEN_OPPONENT:
            raise OpenNotDeclined()
        opponent = self.steps.mention(loaded.row.opponent_id)
        return self._close_challenge(
            loaded,
            user_id,
            loaded.row.opponent_id,
            now,
            "declined",
            step=ChallengeStep.ANSWER,
            line=Saying.of(Say.DECLINED, member=opponent),
        )

    def _withdraw(self, loaded: LoadedMatch, user_id: int | None, now: datetime) -> list[Notice]:
        challenger = self.steps.mention(loaded.row.challenger_id)
        return self._close_challenge(
            loaded,
            user_id,
            loaded.row.challenger_id,
            now,
            "withdrawn",
            step=ChallengeStep.WITHDRAW,
            line=Saying.of(Say.WITHDREW, member=challenger),
        )

    def _close_challenge(
        self,
        loaded: LoadedMatch,
        user_id: int | None,
        allowed: int,
        now: datetime,
        reason: str,
        *,
        step: ChallengeStep,
        line: Saying,
    ) -> list[Notice]:
        """End an open challenge without a match (declined or withdrawn by ``allowed`` only)."""
        require_open(loaded.row)
        if user_id != allowed:
            raise OnlyMember(allowed, step)
        abort(loaded, reason, now)
        loaded.log.append((None, reason, None, {}))
        return [Public(self.steps.snapshot(loaded), (line,), kind="expired")]


def choose_secrets(place: str, member: str | None, time: int) -> Saying:
    """The line asking for the secrets as a match starts (``member``: the one player who has
    one to choose, against the bot): by DM in a server, from the match's message elsewhere."""
    here = place == MatchPlace.INTERACTION
    if member is not None:
        kind = Say.CHOOSE_SECRET_HERE if here else Say.CHOOSE_SECRET
        return Saying.of(kind, member=member, time=time)
    return Saying.of(Say.CHOOSE_SECRETS_HERE if here else Say.CHOOSE_SECRETS, time=time)
