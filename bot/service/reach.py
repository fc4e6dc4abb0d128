"""Channels the bot cannot post in for now, and what their matches do meanwhile.

A missing permission or a locked thread makes a channel unreachable. Nobody can see its boards
then, so its matches' deadlines are held (the sweep passes them over), and when the bot can post
there again every deadline that fell due meanwhile starts again. A match is called off only if
its channel stays unreachable for a whole turn timeout. What is held is kept in ``bot_meta``
(``unreachable:<channel>``), so every process sees it and a restart keeps it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from bot.service.deadlines import Deadlines
from bot.service.errors import WrongStatus
from bot.service.failures import log_failure
from bot.service.lookups import Lookups
from bot.service.notices import MatchSnapshot, Report
from bot.service.organizing import Organizing
from bot.service.timeouts import Timeouts, merge_timeouts
from db.bot_meta import delete_meta, get_meta, meta_like, set_meta
from db.connection import session_of, session_transaction
from db.match_events import played_since
from db.matches import channel_unfinished
from db.outbox import forget_ended_boards, hurry_boards
from db.server_timeouts import server_timeouts

log = logging.getLogger(__name__)

PREFIX = "unreachable:"


@dataclass(frozen=True)
class Overdue:
    """What a sweep found of the channels out of reach for a whole turn timeout, now given up."""

    called_off: list[Report]
    """The matches called off: their players are to be told."""
    unseen_ends: list[MatchSnapshot]
    """Matches that ended (a result) while their channel was out of reach: the board that
    said so was never shown, and is no longer owed there."""


@dataclass(frozen=True)
class Hold:
    """An unreachable channel: its server, and since when."""

    guild_id: int
    since: datetime


class Reach:
    """Holds and releases the deadlines of channels out of the bot's reach."""

    def __init__(self, organizing: Organizing, deadlines: Deadlines, lookups: Lookups) -> None:
        self.organizing = organizing
        self.deadlines = deadlines
        self.lookups = lookups
        self.runner = deadlines.runner
        self.sessions = deadlines.runner.sessions

    async def hold(self, guild_id: int, channel_id: int, *, since: datetime | None = None) -> bool:
        """The bot may not post in the channel: hold its deadlines; whether it was reachable
        until now. ``since`` is when it went out of reach, if earlier than now (a try to post
        there again failed: the hold goes on from when it began)."""
        now = self.runner.clock()
        began = now if since is None else min(since, now)
        async with session_transaction(self.sessions) as session:
            if await get_meta(session, _key(channel_id)) is not None:
                return False
            await set_meta(session, _key(channel_id), f"{guild_id} {began.isoformat()}", now)
        log.warning("channel %s: out of reach; its matches' deadlines are held", channel_id)
        return True

    async def held(self) -> dict[int, Hold]:
        """The channels out of reach now."""
        async with session_of(self.sessions) as session:
            stored = await meta_like(session, PREFIX)
        holds = {}
        for key, value in stored.items():
            guild, since = value.split(" ", 1)
            holds[int(key.removeprefix(PREFIX))] = Hold(int(guild), datetime.fromisoformat(since))
        return holds

    async def release(self, channel_id: int) -> list[Report]:
        """The bot may post in the channel again: the time of deadlines that fell due while it
        could not is given back; the boards to post are in the reports."""
        hold = (await self.held()).get(channel_id)
        if hold is None:
            return []
        # The deadlines move before the hold ends: a sweep that sees the channel reachable
        # must not find a deadline that fell due while it was not. Moving one is a compare
        # and set, so another process releasing it too moves none twice.
        reports = await self.deadlines.extend_in_channel(hold.guild_id, channel_id, hold.since)
        async with session_transaction(self.sessions) as session:
            if await delete_meta(session, _key(channel_id)):
                log.info("channel %s: reachable again", channel_id)
        return reports

    async def hurry(self, guild_id: int, channel_id: int) -> None:
        """The channel is back: the boards it still owes are due at once in the outbox (once the
        release's own boards are shown, so that none shows an older state over theirs)."""
        async with session_transaction(self.sessions) as session:
            await hurry_boards(session, guild_id, channel_id, self.runner.clock())

    async def call_off_overdue(self) -> Overdue:
        """Call off the matches of every channel unreachable for longer than its server's turn
        timeout (no result, no rating change), and give the channel up; whom to tell what.

        A match its players went on playing meanwhile is left alone: their buttons and commands
        answer through interactions, which need no permission in the channel. Its hold ends all
        the same, so its deadlines run again. The boards the channel owes of matches that are
        over (those called off now among them) are forgotten: they are not tried there again.
        The players of a match that ended with a result meanwhile are to be told it instead."""
        now = self.runner.clock()
        reports: list[Report] = []
        unseen: list[MatchSnapshot] = []
        for channel_id, hold in (await self.held()).items():
            timeouts = await self._timeouts(hold.guild_id)
            if now - hold.since < timeouts.delta("turn"):
                continue
            async with session_transaction(self.sessions) as session:
                unfinished = await channel_unfinished(session, hold.guild_id, channel_id)
                playing = await played_since(session, unfinished, hold.since)
                await delete_meta(session, _key(channel_id))
            for match_id in unfinished:
                if match_id in playing:
                    continue
                try:
                    reports.append(await self.organizing.call_off(match_id, "unreachable"))
                except WrongStatus:
                    continue  # ended meanwhile
                except Exception:
                    log_failure(log, "match %s: could not be called off", match_id)
            unseen += await self._give_up_boards(hold.guild_id, channel_id)
        return Overdue(reports, unseen)

    async def _give_up_boards(self, guild_id: int, channel_id: int) -> list[MatchSnapshot]:
        """The channel is given up: the boards it owes of matches that are over are forgotten;
        those of the matches that ended with a result. Tried again, each board would be refused
        and hold the channel anew, for another whole turn, and so on for as long as the bot
        stays out (a refused request and a warning each time, and the deadlines of a match
        played there through interactions held for nothing)."""
        async with session_transaction(self.sessions) as session:
            forgotten = await forget_ended_boards(session, guild_id, channel_id)
        if not forgotten:
            return []
        log.info(
            "channel %s: given up, the boards of %d matches over no longer owed",
            channel_id,
            len(forgotten),
        )
        ended = [await self.lookups.snapshot(match_id) for match_id in forgotten]
        return [snap for snap in ended if snap.status == "finished"]

    async def _timeouts(self, guild_id: int) -> Timeouts:
        async with session_of(self.sessions) as session:
            return merge_timeouts(self.runner.defaults, await server_timeouts(session, guild_id))


def _key(channel_id: int) -> str:
    return f"{PREFIX}{channel_id}"
