"""Deadlines: what happens when a member does not answer in time, and time the bot was away.

Deadlines are columns. The sweeper claims each due match ``FOR UPDATE SKIP LOCKED`` (PostgreSQL)
in the transaction that acts on it, with the same version check as a move, so a deadline fires
once even across restarts and processes. A deadline that fell due while the bot was away gets
its full time again (``extend_missed``): nobody can act while the bot is down.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime, timedelta

from bot.service.errors import AlreadyPlayed, NothingDue, WrongStatus
from bot.service.failures import log_failure
from bot.service.lines import Members, Say, Saying, Titled, Value, kept_lines
from bot.service.match_state import DELIVERY_GRACE, OVER, Conflict, LoadedMatch, prefix
from bot.service.notices import Notice, Public, Report
from bot.service.runner import MatchRunner
from bot.service.steps import Steps, abort
from db.bot_meta import get_meta, meta_like, set_meta
from db.connection import session_of, session_transaction
from db.deadlines import Due, claim_due_match, missed_deadlines, move_deadline
from db.match_events import append_events, last_event_at
from db.matches import channel_unfinished, load_match
from db.models import OPEN_OPPONENT, MatchPlace, MatchStatus
from db.outbox import add_deliveries
from games.base import Outcome, Reason, other

log = logging.getLogger(__name__)

HEARTBEAT_PREFIX = "heartbeat:"
"""``bot_meta`` keys ``heartbeat:<shard>``: when the process running each shard was last up."""
HEARTBEAT_KEY = "heartbeat"
"""The one heartbeat of earlier releases, read once when a shard has none of its own."""
FRESH_TIME_MIN = timedelta(minutes=2)
"""The least time given back for a deadline that passed while the bot was away."""


class Deadlines:
    """Acts on due deadlines, and gives back the time of those that passed while the bot was
    away."""

    def __init__(
        self,
        runner: MatchRunner,
        steps: Steps,
        *,
        shards: Sequence[int] = (0,),
        shard_count: int = 1,
    ) -> None:
        self.runner = runner
        self.steps = steps
        self.shards = tuple(shards)
        """The gateway shards this process runs: the servers whose downtime it records."""
        self.shard_count = shard_count

    def shard_of(self, guild_id: int) -> int:
        """The gateway shard a server's events arrive on (Discord's formula)."""
        return (guild_id >> 22) % self.shard_count

    def _answered_on(self, due: Due) -> set[int]:
        """The shards that must hear a deadline's answer: its server's, and for a secret asked
        by DM shard 0's too, where DMs arrive."""
        shards = {self.shard_of(due.guild_id)}
        if due.kind == "setup":
            shards.add(0)
        return shards

    def _unheard(self, due: Due, heard: Mapping[int, datetime]) -> bool:
        """Whether a shard that must hear the deadline's answer was not heard since it passed:
        its process may have been down at the deadline, so nobody could answer in time."""
        passed = due.deadline
        return passed is not None and any(
            shard not in heard or heard[shard] < passed for shard in self._answered_on(due)
        )

    async def sweep(
        self,
        limit: int = 100,
        *,
        heard: Mapping[int, datetime] | None = None,
        unreachable: Collection[int] = (),
    ) -> list[Report]:
        """Act on every deadline that has passed (up to ``limit`` matches): expire, abort,
        forfeit or hint automatically.

        With ``heard``, when each shard's process was last heard (``heard()``), a deadline is
        held until its shard was heard at or after it: a process that is down, or restarting,
        or just back and still giving back the time it was away, forfeits nothing in its
        servers, however recent its last heartbeat. A deadline whose channel is
        ``unreachable`` (the bot may not post there now) is held until it is back.

        Safe to run from several processes at once: each match is claimed in the transaction
        that acts on it, passing over matches another transaction holds, and saved with the
        version check, so a deadline fires exactly once and only the process that fired it gets
        its report. Each match is handled on its own: one that fails is logged and left for the
        next sweep, and the others' reports are returned.
        """
        reports: list[Report] = []
        tried: list[int] = []
        while len(tried) < limit:
            claimed = len(tried)
            try:
                report = await self._expire_next(tried, heard, unreachable)
            except (AlreadyPlayed, WrongStatus, Conflict):
                continue  # a last-second move got there first
            except Exception:
                if len(tried) == claimed:
                    raise  # no match could be claimed: the sweep fails as a whole
                log_failure(log, "match %s: its deadline could not be handled", tried[-1])
                continue
            if report is None:
                if len(tried) == claimed:
                    break
                continue  # held: its shard was not heard since, or its channel is out of reach
            reports.append(report)
        return reports

    async def _expire_next(
        self,
        tried: list[int],
        heard: Mapping[int, datetime] | None,
        unreachable: Collection[int] = (),
    ) -> Report | None:
        """Claim the longest overdue match not ``tried`` yet and act on its deadline, in one
        transaction; ``None`` when no match is due, or the one claimed is held."""
        now = self.runner.clock()
        async with session_transaction(self.runner.sessions) as session:
            due = await claim_due_match(session, now, tried)
            if due is None:
                return None
            tried.append(due.match_id)
            if (heard is not None and self._unheard(due, heard)) or due.channel_id in unreachable:
                return None
            match = await self.runner.read(session, due.match_id, for_update=True)
            notices = await self.runner.apply(session, match, None, None, self._expire, now)
        return self.runner.report(match, notices)

    def _expire(self, loaded: LoadedMatch, user_id: int | None, now: datetime) -> list[Notice]:
        row = loaded.row
        if row.status in OVER or row.deadline is None or row.deadline > now:
            raise NothingDue()
        kind = row.deadline_kind
        if kind == "challenge":
            abort(loaded, "expired", now)
            loaded.log.append((None, "expire", None, {}))
            mention = self.steps.mention
            challenger, opponent = mention(row.challenger_id), mention(row.opponent_id)
            line = (
                Saying.of(Say.EXPIRED, challenger=challenger, opponent=opponent)
                if row.opponent_id != OPEN_OPPONENT
                else Saying.of(Say.OPEN_EXPIRED, challenger=challenger)
            )
            return [Public(self.steps.snapshot(loaded), (line,), kind="expired")]
        if kind == "setup":
            to_act = loaded.game.to_act(loaded.state)
            missing = [self.steps.mention(loaded.players[s]) for s in to_act]
            loaded.state, events = loaded.game.conclude(loaded.state, Outcome(None, Reason.TIMEOUT))
            abort(loaded, "timeout", now)
            loaded.log.append((None, "abort", None, {"timeout": True}))
            loaded.record(events)
            line = Saying.of(Say.SETUP_TIMED_OUT, members=Members(tuple(missing)))
            snap = self.steps.snapshot(loaded)
            return [Public(snap, (line, *self.steps.told(loaded, events)), kind="end")]
        # A turn or a hint: what the engine plays for the seat out of time, else a forfeit.
        seat = min(loaded.game.to_act(loaded.state))
        action = loaded.game.on_deadline(loaded.state, seat)
        if action is None:
            return self.steps.conclude(loaded, Outcome(other(seat), Reason.TIMEOUT), now)
        new_state, events = loaded.game.apply(loaded.state, seat, action)
        loaded.log.append((seat, "deadline", None, {}))
        notices = self.steps.played(loaded, seat, action, new_state, events, now)
        member = self.steps.mention(loaded.players[seat])
        note = Saying.of(Say.CHOSE_FOR, member=member)
        return [prefix(n, note) for n in notices]

    async def last_heard(self) -> dict[int, datetime | None]:
        """When each of this process's shards was last up, before this process.

        A shard without a heartbeat of its own takes the old single heartbeat of an earlier
        release, or else the newest event of any match: an upgrade from a release that kept no
        heartbeat gives back the time it was down. An empty database has nothing before now.
        """
        async with session_of(self.runner.sessions) as session:
            stored = await meta_like(session, HEARTBEAT_PREFIX)
            fallback: datetime | None = None
            if any(_key(shard) not in stored for shard in self.shards):
                legacy = await get_meta(session, HEARTBEAT_KEY)
                fallback = (
                    datetime.fromisoformat(legacy)
                    if legacy is not None
                    else await last_event_at(session)
                )
        return {
            shard: datetime.fromisoformat(stored[_key(shard)])
            if _key(shard) in stored
            else fallback
            for shard in self.shards
        }

    async def beat(self) -> None:
        """Record that this process's shards are up now."""
        now = self.runner.clock()
        async with session_transaction(self.runner.sessions) as session:
            for shard in self.shards:
                await set_meta(session, _key(shard), now.isoformat(), now)

    async def heard(self) -> dict[int, datetime]:
        """When each shard's process was last heard: now for this process's own shards (it is
        running this), the stored heartbeat for the others'. A shard never heard is missing."""
        async with session_of(self.runner.sessions) as session:
            stored = await meta_like(session, HEARTBEAT_PREFIX)
        now = self.runner.clock()
        heard = {int(key.removeprefix(HEARTBEAT_PREFIX)): datetime.fromisoformat(value)
                 for key, value in stored.items()}  # fmt: skip
        return heard | dict.fromkeys(self.shards, now)

    async def resume(self, away_after: timedelta) -> list[Report]:
        """At start: give fresh time to every deadline of this process's shards that passed
        while they were away (their last heartbeat older than ``away_after``), then record the
        heartbeat anew.

        In that order: another process's sweep holds those deadlines until this shard is heard
        after them, so the heartbeat may only be recorded once their time is given back.
        """
        reports: list[Report] = []
        for shard, previous in (await self.last_heard()).items():
            if previous is not None and self.runner.clock() - previous > away_after:
                reports += await self.extend_missed(previous, {shard})
        await self.beat()
        return reports

    async def extend_missed(self, since: datetime, shards: set[int] | None = None) -> list[Report]:
        """Every deadline that fell due after ``since`` (when ``shards`` were last up; default
        this process's) starts again.

        A member cannot act while the bot is away, so a deadline that passed meanwhile gets
        the full time of its kind from now (at least ``FRESH_TIME_MIN``), and the channel is
        told why. Not a move: the match keeps its version, so its buttons keep working.
        """
        now = self.runner.clock()
        away = set(self.shards) if shards is None else shards
        async with session_of(self.runner.sessions) as session:
            missed = await missed_deadlines(session, since, now)
        reports = []
        for due in missed:
            if self._answered_on(due).isdisjoint(away):
                continue  # another shard's server: its own process gives its time back
            try:
                report = await self._extend(due.match_id, since, now)
            except Exception:
                log_failure(log, "match %s: its deadline could not be moved", due.match_id)
                continue
            if report is not None:
                reports.append(report)
        if reports:
            log.info("Away since %s: gave %d matches fresh time", since.isoformat(), len(reports))
        return reports

    async def extend_in_channel(
        self, guild_id: int, channel_id: int, since: datetime
    ) -> list[Report]:
        """The channel was out of reach since ``since``: its deadlines that fell due meanwhile
        start again, since nobody could see the board."""
        now = self.runner.clock()
        async with session_of(self.runner.sessions) as session:
            unfinished = await channel_unfinished(session, guild_id, channel_id)
        reports = []
        for match_id in unfinished:
            try:
                report = await self._extend(match_id, since, now, away=False)
            except Exception:
                log_failure(log, "match %s: its deadline could not be moved", match_id)
                continue
            if report is not None:
                reports.append(report)
        return reports

    async def _extend(
        self, match_id: int, since: datetime, now: datetime, *, away: bool = True
    ) -> Report | None:
        async with session_transaction(self.runner.sessions) as session:
            found = await load_match(session, match_id, for_update=True)
            if found is None:
                return None
            loaded = self.runner.loaded(found)
            row = loaded.row
            seen, kind = row.deadline, row.deadline_kind
            if row.status in OVER or seen is None or kind is None or not since < seen <= now:
                return None  # moved on meanwhile
            allowed = max(loaded.timeouts.delta(kind), FRESH_TIME_MIN)
            row.deadline = now + allowed
            if not await move_deadline(session, match_id, seen, row.deadline, now):
                return None
            gone = int((now - since).total_seconds())
            loaded.log.append((None, "clock_reset", None, {"away": gone, "kind": kind}))
            await append_events(session, match_id, loaded.last_seq, loaded.log, now)
            lines = self._clock_reset_lines(loaded, now - since, allowed, away=away)
            if row.place == MatchPlace.INTERACTION:
                # No token may be fresh (a restart forgets them): the next press says it.
                kept = kept_lines(lines[-1:])  # the reset, not the challenge it restates
                entry = (match_id, row.version, "board", None, kept)
                await add_deliveries(session, [entry], now + DELIVERY_GRACE)
        snap = self.steps.snapshot(loaded)
        notice_kind = "challenge" if row.status == MatchStatus.CHALLENGED else "update"
        return Report(snap, [Public(snap, lines, kind=notice_kind)])

    def _clock_reset_lines(
        self, loaded: LoadedMatch, gone: timedelta, allowed: timedelta, *, away: bool = True
    ) -> tuple[Saying, ...]:
        row, game = loaded.row, loaded.game
        minutes = max(1, round(gone.total_seconds() / 60)) * 60
        kind = row.deadline_kind or "turn"
        reset: dict[str, Value] = {"deadline": kind, "away": int(away), "minutes": minutes}
        time = int(allowed.total_seconds())
        if kind == "challenge":
            mention = self.steps.mention
            challenger = mention(row.challenger_id)
            what = Titled.of(game.name, dict(row.options or {}))
            stands = (
                Saying.of(Say.OPEN_CHALLENGE_STANDS, challenger=challenger, game=what)
                if row.opponent_id == OPEN_OPPONENT
                else Saying.of(
                    Say.CHALLENGE_STANDS,
                    opponent=mention(row.opponent_id),
                    challenger=challenger,
                    game=what,
                )
            )
            return stands, Saying.of(Say.CLOCK_RESET, **reset, time=time, members=Members(()))
        seats = sorted(game.to_act(loaded.state))
        names = tuple(self.steps.mention(loaded.players[s]) for s in seats)
        return (Saying.of(Say.CLOCK_RESET, **reset, time=time, members=Members(names)),)


def _key(shard: int) -> str:
    return f"{HEARTBEAT_PREFIX}{shard}"
