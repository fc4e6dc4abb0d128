"""The quick-pair queue: members wait in a channel's queue for a game and are paired in waves.

Every use case is one transaction. A wave claims its queue's members (``FOR UPDATE SKIP LOCKED``
on PostgreSQL), decides the pairs (``queue_pairing.pair_wave``, pure), and starts each pair's
match in that same transaction: the match's start takes both members out of every queue, so of
several processes running waves each member is paired once. A member waiting past the server's
fallback wait is offered the bot; nobody waits longer than ``STAY``. docs/queue.md has the method
and its numbers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta

from bot.service.acting import Member, acting
from bot.service.challenges import Challenges
from bot.service.errors import MatchError, NoBotHere, refusal
from bot.service.limits import MAX_PLAYING, check_playing
from bot.service.lines import Say, Saying
from bot.service.notices import BoardRoute, Report
from bot.service.organizing import MatchToStart, Organizing
from bot.service.queue_pairing import Waiting, bot_level, pair_wave
from bot.service.ratings import DEFAULT
from bot.service.runner import MatchRunner
from bot.service.stats import standing_rating
from db import queue
from db.connection import session_of, session_transaction
from db.member_load import member_load
from db.models import MatchOrigin
from db.queue import Board, Entry, Spot
from db.server_options import server_options

STAY = timedelta(minutes=10)
"""The longest a member waits in a queue: then they are taken out."""
WAVE_EVERY = timedelta(seconds=5)
"""How often each queue with two or more members waiting has a wave."""
WAVE_AT = 10
"""A join that brings a queue to this many waiting has its wave at once."""
FALLBACK_DEFAULT = 60
"""Seconds a member waits before the bot is offered, unless the server set its own."""


@refusal
class NotQueued(MatchError):
    """The member is not in the queue they act on; ``gone``: no longer, as they took up the
    bot's offer (paired, left, or waited too long)."""

    gone: bool = False


@dataclass(frozen=True)
class Joined:
    """A member's place in a queue: how many wait there now, the queue they left for it (if
    any), and whether a wave should run at once."""

    spot: Spot
    waiting: int
    moved_from: Spot | None
    wave_now: bool


@dataclass(frozen=True)
class Wave:
    """What a wave did: the matches it started, and how many it left waiting."""

    spot: Spot
    reports: list[Report]
    waiting: int


@dataclass(frozen=True)
class Offer:
    """The bot, offered to a member who waited long enough, at the level for their rating."""

    user_id: int
    spot: Spot
    level: str


@dataclass(frozen=True)
class QuickPair:
    """Join, leave, waves, the bot's offer, and the queue's messages."""

    runner: MatchRunner
    organizing: Organizing
    challenges: Challenges

    async def join(self, guild_id: int, channel_id: int, game: str, user_id: Member) -> Joined:
        """Queue the member here (out of any other queue); refused at their match limit."""
        spot = Spot(guild_id, channel_id, game)
        now = self.runner.clock()
        member = acting(user_id)
        user_id = member.user_id
        async with self.runner.session(member) as session:
            check_playing(await member_load(session, user_id, None, now))
            before = await queue.entry_of(session, user_id, for_update=True)
            if before is not None and before.spot == spot:
                return Joined(spot, await queue.count(session, spot), None, wave_now=False)
            record = await queue.record_of(session, guild_id, game, user_id)
            rating = DEFAULT if record is None else standing_rating(record, now)
            last = await queue.last_queue_opponent(session, guild_id, game, user_id)
            await queue.put(session, user_id, spot, rating.rating, last, now, rating.deviation)
            waiting = await queue.count(session, spot)
        moved = before.spot if before is not None else None
        return Joined(spot, waiting, moved, wave_now=waiting >= WAVE_AT)

    async def leave(self, user_id: Member, spot: Spot | None = None) -> Spot:
        """Take the member out of their queue (``spot``: only if it is that one)."""
        member = acting(user_id)
        user_id = member.user_id
        async with self.runner.session(member) as session:
            entry = await queue.entry_of(session, user_id, for_update=True)
            if entry is None or (spot is not None and entry.spot != spot):
                raise NotQueued()
            await queue.remove(session, [user_id])
        return entry.spot

    async def waiting(self, spot: Spot) -> int:
        async with session_of(self.runner.sessions) as session:
            return await queue.count(session, spot)

    async def place(self, user_id: int) -> Entry | None:
        """Where the member waits, if they do."""
        async with session_of(self.runner.sessions) as session:
            return await queue.entry_of(session, user_id)

    async def wave(self, spot: Spot) -> Wave:
        """Pair the queue's members in one transaction and start each pair's match.

        A member another process's wave holds is passed over (PostgreSQL), so nobody is paired
        twice; so is a member at their match limit, or whose challenge or accept is under way
        (their lock is held), so nobody is paired past the limit: they stay queued for a later
        wave. Each match's board and prompts go to the outbox in the same transaction.
        """
        now = self.runner.clock()
        started = []
        async with session_transaction(self.runner.sessions) as session:
            entries = await queue.claim(session, spot)
            claimed = [entry.user_id for entry in entries]
            passed = await queue.passed_over(session, spot, claimed, MAX_PLAYING)
            entries = [entry for entry in entries if entry.user_id not in passed]
            waiting = [
                Waiting(
                    e.user_id,
                    e.rating,
                    (now - e.joined_at).total_seconds(),
                    e.last_opponent_id,
                    e.deviation or 0.0,
                )
                for e in entries
            ]
            for low, high in pair_wave(waiting):
                first = random.Random(self.runner.seeds()).randrange(2)
                players = (low, high) if first else (high, low)
                pairing = MatchToStart(
                    spot.guild_id,
                    spot.channel_id,
                    spot.game,
                    {},
                    players,
                    Saying.of(
                        Say.QUEUE_PAIRED,
                        first=self.runner.mention(low),
                        second=self.runner.mention(high),
                    ),
                )
                start = self.organizing.start_in(
                    session, pairing, origin=MatchOrigin.QUEUE, outbox=True
                )
                started.append(await start)
            left = await queue.count(session, spot)
        reports = [self.runner.report(loaded, notices) for loaded, notices in started]
        return Wave(spot, reports, left)

    async def busy(self) -> list[Spot]:
        """The queues with two or more waiting: those a wave may pair."""
        async with session_of(self.runner.sessions) as session:
            return await queue.busy_queues(session)

    async def tick(self) -> tuple[list[Wave], list[Entry]]:
        """What runs every ``WAVE_EVERY``: members past ``STAY`` taken out, then a wave in
        every queue with two or more waiting. The waves that paired anyone, and who left."""
        async with session_of(self.runner.sessions) as session:
            if not await queue.busy_queues(session, at_least=1):
                return [], []  # nobody waits anywhere: one read, nothing written
        gone = await self.expire()
        waves = []
        for spot in await self.busy():
            done = await self.wave(spot)
            if done.reports:
                waves.append(done)
        return waves, gone

    async def expire(self) -> list[Entry]:
        """Take out everyone who has waited ``STAY``; who they were."""
        async with session_transaction(self.runner.sessions) as session:
            return await queue.remove_joined_before(session, self.runner.clock() - STAY)

    async def offers(self, user_ids: set[int]) -> list[Offer]:
        """Of ``user_ids`` (the members whose ``/play`` this process can still answer), those
        due the bot's offer; each is offered once per stay."""
        if not user_ids:
            return []
        async with session_transaction(self.runner.sessions) as session:
            due = await queue.offers_due(session, user_ids, self.runner.clock(), FALLBACK_DEFAULT)
        return [Offer(e.user_id, e.spot, bot_level(e.rating)) for e in due]

    async def play_bot(
        self, user_id: Member, guild_id: int, *, board: BoardRoute | None = None
    ) -> Report:
        """Take up the bot's offer: out of the queue, and a match against the bot (unrated) in
        the queue's channel at the level for the member's rating."""
        if self.runner.bot_user_id is None:
            raise NoBotHere()
        member = acting(user_id)
        user_id = member.user_id
        async with self.runner.session(member) as session:
            entry = await queue.entry_of(session, user_id, for_update=True)
            if entry is None or entry.spot.guild_id != guild_id:
                raise NotQueued(gone=True)
            # At the limit, the member keeps their place: the refusal changes nothing.
            check_playing(await member_load(session, user_id, None, self.runner.clock()))
            await queue.remove(session, [user_id])
        return await self.challenges.challenge(
            guild_id=guild_id,
            channel_id=entry.spot.channel_id,
            challenger_id=member,
            opponent_id=self.runner.bot_user_id,
            game=entry.spot.game,
            level=bot_level(entry.rating),
            board=board,
            origin=MatchOrigin.QUEUE,
        )

    async def fallback_wait(self, guild_id: int) -> int:
        """Seconds a member of the server waits before the bot is offered."""
        async with session_of(self.runner.sessions) as session:
            wait = (await server_options(session, guild_id)).queue_fallback
        return FALLBACK_DEFAULT if wait is None else wait

    # The queue's messages.

    async def board(self, spot: Spot) -> Board:
        async with session_of(self.runner.sessions) as session:
            return await queue.board(session, spot)

    async def stale_boards(self, guild_ids: set[int] | None = None) -> list[Board]:
        async with session_of(self.runner.sessions) as session:
            return await queue.stale_boards(session, guild_ids)

    async def board_shown(self, spot: Spot, message_id: int | None, shown: int) -> None:
        async with session_transaction(self.runner.sessions) as session:
            await queue.record_board(session, spot, message_id, shown, self.runner.clock())

    async def close(self, spot: Spot) -> list[int]:
        """The queue's channel is gone: nobody waits there any more, and its message is
        forgotten; who was waiting."""
        async with session_transaction(self.runner.sessions) as session:
            return await queue.close(session, spot)


__all__ = [
    "FALLBACK_DEFAULT",
    "STAY",
    "WAVE_AT",
    "WAVE_EVERY",
    "Board",
    "Joined",
    "NotQueued",
    "Offer",
    "QuickPair",
    "Spot",
    "Wave",
]
