"""The match service: every use case a match goes through, with no Discord in sight.

Each use case is one database transaction: load the match, check who may act, ask the engine,
then save the new state with a version check (``UPDATE ... WHERE version = :seen``). Losing that
check means someone else moved first; the request is answered "already played" (when the caller
named the version it saw, as a button does) or re-run against the new state (when it did not, as a
slash command does not). Finished matches update both players' stats in the same transaction.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.service import stats
from bot.service.errors import (
    AlreadyPlayed,
    ChallengeRefused,
    InvalidMove,
    MatchError,
    MatchNotFound,
    NotYourMatch,
    NotYourTurn,
    WrongStatus,
)
from bot.service.notices import MatchSnapshot, Notice, Private, Prompt, Public, Report
from bot.service.timeouts import Timeouts, human
from db import repository as repo
from db.models import MatchStatus, utcnow
from db.repository import OutboxItem
from games.base import AnyGame, Ask, Event, GameError, Outcome, Reason, Seat, other
from games.players import DEFAULT_LEVEL, LEVELS, player_for

log = logging.getLogger(__name__)

MAX_OPEN_CHALLENGES = 3
HEARTBEAT_KEY = "heartbeat"
"""``bot_meta`` key of the time the bot last swept its deadlines: when it was last known up."""
FRESH_TIME_MIN = timedelta(minutes=2)
"""The least time given back for a deadline that passed while the bot was away."""
OVER = (MatchStatus.FINISHED, MatchStatus.ABORTED)
RETRIES = 5
DELIVERY_GRACE = timedelta(seconds=15)
"""How long a use case's own process has to deliver what it must show before the outbox's
deliverer (in any process) does."""
RECENT = 8
"""Public event texts a match keeps for its board's log (the board lists the last few)."""
MAX_MATCH_ID = 2**31 - 1
"""The largest id a match can have (a 32-bit column on PostgreSQL)."""

Clock = Callable[[], datetime]
"""Where the service reads the time: ``db.models.utcnow``, or a test's hand-wound clock."""


def default_mention(user_id: int) -> str:
    return f"<@{user_id}>"


class _Conflict(Exception):
    """The version check failed: another writer changed the match first."""


@dataclass
class _Match:
    """A match row with its players and decoded engine state, inside one transaction."""

    row: repo.MatchRow
    players: list[int]
    game: AnyGame
    state: Any
    log: list[repo.EventRow] = field(default_factory=list)
    """Events to append once the version check has passed."""
    new_players: bool = False
    """Seats were just assigned and must be stored."""
    timeouts: Timeouts = field(default_factory=Timeouts)
    """The server's timeouts, read with the match."""
    last_seq: int = 0
    """The match's last logged event number, read with the match."""
    next_version: int | None = None
    """The version the match will have once this use case is saved: what its notices show."""
    stored: dict[str, Any] = field(default_factory=dict)
    """The changeable columns as read, to write back only what changed."""

    def record(self, events: Sequence[Event]) -> None:
        self.log += [(_event_seat(e), e.kind, e.audience, _event_payload(e)) for e in events]

    def played(self, seat: Seat, ask: Ask, action: Any, events: Sequence[Event]) -> None:
        """Log ``seat``'s action and what it caused.

        The action's own text is private to its seat: a move may hold a secret (a trap's cell),
        and what the others may know of it is in the public events it caused.
        """
        self.log.append((seat, f"action:{ask.value}", seat, {"action": str(action)}))
        self.row.acted_seats |= 1 << seat
        self.record(events)

    def seat(self, user_id: int | None) -> Seat | None:
        return self.players.index(user_id) if user_id in self.players else None


Step = Callable[[_Match, int | None, datetime], list[Notice]]
"""A use case's own part of a transaction: check, ask the engine, change the match in memory.
What it changes is written after it, with the version check."""


class MatchService:
    """Challenge, accept, play, resign, time out: a match's rules around a game's rules.

    Each use case is one transaction on ``sessions``; nothing of a match is kept between them.
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
    ) -> None:
        self.sessions = sessions
        self.bot_user_id = bot_user_id
        """The bot's own user id: challenging it starts a match against the built-in player."""
        self.defaults = timeouts or Timeouts()
        self.clock = clock
        self.seeds = seeds
        self.mention = mention

    # ------------------------------------------------------------------ challenges

    async def challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int,
        game: str,
        options: Mapping[str, Any] | None = None,
        opponent_is_bot: bool = False,
        level: str | None = None,
    ) -> Report:
        """Post a challenge the opponent may accept or decline.

        Challenging the bot itself starts the match at once against the built-in player of
        ``level`` (default normal).
        """
        engine = games.get(game)
        vs_bot = self.bot_user_id is not None and opponent_id == self.bot_user_id
        if opponent_id == challenger_id:
            raise ChallengeRefused("You cannot challenge yourself: pick another member.")
        if opponent_is_bot and not vs_bot:
            raise ChallengeRefused(
                "Bot accounts cannot play: challenge a member of this server, or me for a "
                "match against the built-in player."
            )
        if level is not None and level not in LEVELS:
            raise InvalidMove(f"Unknown level {level!r}: choose one of {', '.join(LEVELS)}.")
        if level is not None and not vs_bot:
            raise InvalidMove("A level applies only to a match against me, the bot.")
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
        }
        async with self.sessions.begin() as session:
            if not vs_bot:
                open_challenges = await repo.count_open_challenges(session, challenger_id)
                if open_challenges >= MAX_OPEN_CHALLENGES:
                    raise ChallengeRefused(
                        f"You already have {MAX_OPEN_CHALLENGES} open challenges: wait for an "
                        "answer or withdraw one first."
                    )
            timeouts = self._merge(await repo.server_timeouts(session, guild_id))
            values["deadline"] = now + timeouts.delta("challenge")
            match_id = await repo.insert_match(session, values)
            logged: list[repo.EventRow] = [(None, "challenge", None, {"options": normalised})]
            await repo.append_events(session, match_id, 0, logged, now)
            if not vs_bot:
                board = [(match_id, 0, "board", None, None)]
                await repo.add_deliveries(session, board, now + DELIVERY_GRACE)
        row = repo.MatchRow(id=match_id, **values)
        snap = self._snapshot(_Match(row, [], engine, None))
        if vs_bot:
            return await self._run(row.id, opponent_id, None, self._accept)
        line = (
            f"{self.mention(opponent_id)}, {self.mention(challenger_id)} challenges you to "
            f"{engine.title}{_describe_options(engine, normalised)}. The challenge expires in "
            f"{human(timeouts.challenge)}."
        )
        return Report(snap, [Public(snap, (line,), kind="challenge")])

    async def accept(self, match_id: int, user_id: int) -> Report:
        """Start the match: toss the coin, seat both players, ask for secrets."""
        return await self._run(match_id, user_id, None, self._accept)

    async def decline(self, match_id: int, user_id: int) -> Report:
        """The challenged member says no."""
        return await self._run(match_id, user_id, None, self._decline)

    async def withdraw(self, match_id: int, user_id: int) -> Report:
        """The challenger takes the challenge back."""
        return await self._run(match_id, user_id, None, self._withdraw)

    async def rematch(self, match_id: int, user_id: int) -> Report:
        """Offer the other player the same game again: same options, same channel."""
        async with self.sessions() as session:
            loaded = await self._read(session, match_id)
        row = loaded.row
        if row.status not in OVER:
            raise WrongStatus("A rematch can be offered once this match is over.")
        if user_id not in (row.challenger_id, row.opponent_id):
            raise NotYourMatch("Only the two players of this match can ask for a rematch.")
        opponent = row.opponent_id if user_id == row.challenger_id else row.challenger_id
        return await self.challenge(
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            challenger_id=user_id,
            opponent_id=opponent,
            game=row.game,
            options=row.options,
            level=row.bot_level if row.vs_bot else None,
        )

    # ------------------------------------------------------------------ play

    async def submit(
        self,
        match_id: int,
        user_id: int,
        text: str,
        *,
        expected_version: int | None = None,
        answering: Collection[Ask] | None = None,
    ) -> Report:
        """Play ``text`` for ``user_id``: a secret, a move or a Crown hint, whatever is asked.

        ``expected_version`` is the version the user saw (buttons carry it): when the match has
        moved on since, the request is refused as already played instead of re-read.
        ``answering`` is what the input was made to answer (a DM asked for a secret, a secret
        picker): when the player is now asked something else, it is refused and nothing is
        played, so a secret sent again never becomes a public move.
        """
        act = partial(self._act, text=text, answering=answering)
        return await self._run(match_id, user_id, expected_version, act)

    async def resign(self, match_id: int, user_id: int) -> Report:
        """Give up: a loss while the match is active, an abort before it starts."""
        return await self._run(match_id, user_id, None, self._resign)

    async def call_off(self, match_id: int, reason: str) -> Report:
        """Abort the match without a result, whatever its stage (its channel is gone, say):
        nothing is posted, no record or rating changes."""
        return await self._run(match_id, None, None, partial(self._call_off, reason=reason))

    # ------------------------------------------------------------------ deadlines

    async def sweep(self, limit: int = 100) -> list[Report]:
        """Act on every deadline that has passed (up to ``limit`` matches): expire, abort,
        forfeit or hint automatically.

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
                report = await self._expire_next(tried)
            except (AlreadyPlayed, WrongStatus, _Conflict):
                continue  # a last-second move got there first
            except Exception:
                if len(tried) == claimed:
                    raise  # no match could be claimed: the sweep fails as a whole
                log.exception("match %s: its deadline could not be handled", tried[-1])
                continue
            if report is None:
                break
            reports.append(report)
        return reports

    # ------------------------------------------------------------------ servers left

    async def abort_guild(self, guild_id: int) -> list[Report]:
        """The bot is no longer in the server: call off its unfinished matches.

        No result and no rating change; the reports tell nothing to post, since nothing can be
        posted there any more.
        """
        async with self.sessions() as session:
            unfinished = await repo.guild_unfinished(session, guild_id)
        reports = []
        for match_id in unfinished:
            try:
                reports.append(await self.call_off(match_id, "bot_removed"))
            except WrongStatus:
                continue  # ended meanwhile
            except Exception:
                log.exception("match %s: could not be called off", match_id)
        log.info("server %s: left it, %d unfinished matches called off", guild_id, len(reports))
        return reports

    async def abort_absent_guilds(
        self, present: set[int], *, serves: Callable[[int], bool] = lambda _: True
    ) -> list[Report]:
        """Call off the matches of every server the bot is not in (it was removed while away).

        ``serves`` tells the servers this process answers for (those on its shards): another
        process's servers are not listed in ``present``.
        """
        async with self.sessions() as session:
            in_play = await repo.guilds_in_play(session)
        reports = []
        for guild_id in in_play:
            if guild_id not in present and serves(guild_id):
                reports += await self.abort_guild(guild_id)
        return reports

    # ------------------------------------------------------------------ downtime

    async def beat(self) -> datetime | None:
        """Record that the bot is up now (its heartbeat); the heartbeat before this one, if any."""
        now = self.clock()
        async with self.sessions.begin() as session:
            previous = await repo.get_meta(session, HEARTBEAT_KEY)
            await repo.set_meta(session, HEARTBEAT_KEY, now.isoformat(), now)
        return None if previous is None else datetime.fromisoformat(previous)

    async def resume(self, away_after: timedelta) -> list[Report]:
        """At start: give fresh time to every deadline that passed while the bot was away.

        The bot was away when its last heartbeat is older than ``away_after``; a database
        without one (a first start) has nothing to give back. Records the heartbeat anew.
        """
        previous = await self.beat()
        if previous is None or self.clock() - previous <= away_after:
            return []
        return await self.extend_missed(previous)

    async def extend_missed(self, since: datetime) -> list[Report]:
        """Every deadline that fell due after ``since`` (when the bot was last up) starts again.

        A member cannot act while the bot is away, so a deadline that passed meanwhile gets
        the full time of its kind from now (at least ``FRESH_TIME_MIN``), and the channel is
        told why. Not a move: the match keeps its version, so its buttons keep working.
        """
        now = self.clock()
        async with self.sessions() as session:
            missed = await repo.missed_deadlines(session, since, now)
        reports = []
        for match_id in missed:
            try:
                report = await self._extend(match_id, since, now)
            except Exception:
                log.exception("match %s: its deadline could not be moved", match_id)
                continue
            if report is not None:
                reports.append(report)
        if reports:
            log.info("Away since %s: gave %d matches fresh time", since.isoformat(), len(reports))
        return reports

    async def _extend(self, match_id: int, since: datetime, now: datetime) -> Report | None:
        async with self.sessions.begin() as session:
            found = await repo.load_match(session, match_id, for_update=True)
            if found is None:
                return None
            loaded = self._match(found)
            row = loaded.row
            seen, kind = row.deadline, row.deadline_kind
            if row.status in OVER or seen is None or kind is None or not since < seen <= now:
                return None  # moved on meanwhile
            allowed = max(loaded.timeouts.delta(kind), FRESH_TIME_MIN)
            row.deadline = now + allowed
            if not await repo.move_deadline(session, match_id, seen, row.deadline, now):
                return None
            away = int((now - since).total_seconds())
            loaded.log.append((None, "clock_reset", None, {"away": away, "kind": kind}))
            await repo.append_events(session, match_id, loaded.last_seq, loaded.log, now)
        snap = self._snapshot(loaded)
        lines = self._clock_reset_lines(loaded, now - since, allowed)
        notice_kind = "challenge" if row.status == MatchStatus.CHALLENGED else "update"
        return Report(snap, [Public(snap, lines, kind=notice_kind)])

    def _clock_reset_lines(
        self, loaded: _Match, away: timedelta, allowed: timedelta
    ) -> tuple[str, ...]:
        row = loaded.row
        given = human(int(allowed.total_seconds()))
        minutes = max(1, round(away.total_seconds() / 60))
        reset = f"I was away for {human(minutes * 60)}, so the clock was reset:"
        if row.deadline_kind == "challenge":
            challenge = (
                f"{self.mention(row.opponent_id)}, {self.mention(row.challenger_id)} challenges "
                f"you to {loaded.game.title}{_describe_options(loaded.game, row.options or {})}."
            )
            return (challenge, f"{reset} the challenge expires in {given}.")
        seats = sorted(loaded.game.to_act(loaded.state))
        who = " and ".join(self.mention(loaded.players[s]) for s in seats)
        if row.deadline_kind == "setup":
            return (f"{reset} {who} {'has' if len(seats) == 1 else 'have'} {given} to choose.",)
        doing = "choose the hint" if row.deadline_kind == "hint" else "move"
        return (f"{reset} {who} has {given} to {doing}.",)

    async def _expire_next(self, tried: list[int]) -> Report | None:
        """Claim the longest overdue match not ``tried`` yet and act on its deadline, in one
        transaction; ``None`` when no match is due."""
        now = self.clock()
        async with self.sessions.begin() as session:
            match_id = await repo.claim_due_match(session, now, tried)
            if match_id is None:
                return None
            tried.append(match_id)
            match, notices = await self._apply(session, match_id, None, None, self._expire, now)
        return self._report(match, notices)

    # ------------------------------------------------------------------ queries

    async def snapshot(self, match_id: int) -> MatchSnapshot:
        """The match as anyone may see it."""
        async with self.sessions() as session:
            return self._snapshot(await self._read(session, match_id))

    async def prompt(self, match_id: int, user_id: int) -> Prompt:
        """What ``user_id`` is privately asked for now (to resend a DM or ask in the channel)."""
        async with self.sessions() as session:
            loaded = await self._read(session, match_id)
        seat = loaded.seat(user_id)
        if seat is None:
            raise NotYourMatch("This is not your match: only its two players can act in it.")
        if loaded.row.status in OVER:
            raise WrongStatus("This match is over.")
        if seat not in loaded.game.to_act(loaded.state):
            raise NotYourTurn("Nothing is asked of you right now: the other player is to act.")
        ask = loaded.game.ask(loaded.state, seat)
        return self._prompt(loaded, seat, ask)

    async def find_match(self, guild_id: int, channel_id: int, game: str, user_id: int) -> int:
        """The caller's unfinished match of ``game`` in this channel, for a slash command.

        With several, the one where the caller is to act; refused when that is still ambiguous.
        """
        engine = games.get(game)
        async with self.sessions() as session:
            found = await repo.channel_matches(session, guild_id, channel_id, game, user_id)
        if not found:
            raise MatchNotFound(
                f"You have no {engine.title} match in this channel: start one with "
                f"/{game} challenge."
            )
        if len(found) == 1:
            return found[0].match.id
        mine = [snap.id for snap in map(self._context_snapshot, found) if user_id in snap.to_act]
        if len(mine) == 1:
            return mine[0]
        raise MatchNotFound(
            f"You have {len(found)} {engine.title} matches in this channel: use the buttons on "
            "the board of the one you mean."
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

    # ------------------------------------------------------------------ the outbox

    async def delivered(self, match_id: int, version: int) -> None:
        """What the match's use cases up to ``version`` had to show has been shown."""
        async with self.sessions.begin() as session:
            await repo.forget_deliveries(session, match_id, version)

    async def due_deliveries(self, limit: int = 50) -> list[repo.OutboxItem]:
        """Deliveries whose process did not confirm them in time (it died, Discord failed),
        claimed for a minute so that no other process takes them meanwhile."""
        now = self.clock()
        async with self.sessions.begin() as session:
            return await repo.claim_deliveries(session, now, now + CLAIM, limit)

    async def finish_delivery(self, delivery: repo.OutboxItem, *, delivered: bool) -> None:
        """Forget a delivery made, or try a failed one again later (sooner at first)."""
        async with self.sessions.begin() as session:
            if delivered:
                await repo.forget_delivery(session, delivery.id)
            else:
                backoff = timedelta(seconds=min(5 * 2**delivery.attempts, 600))
                await repo.delay_delivery(session, delivery.id, self.clock() + backoff)

    # ------------------------------------------------------------------ stats and settings

    async def leaderboards(
        self, guild_id: int, game: str | None, limit: int
    ) -> dict[str, list[stats.Standing]]:
        """Each game's (or ``game``'s) best players in the server against people."""
        names = [game] if game else list(games.GAMES)
        async with self.sessions() as session:
            return await stats.leaderboards(session, guild_id, names, limit)

    async def member_record(
        self, guild_id: int, user_id: int, game: str | None = None
    ) -> stats.MemberRecord:
        """A member's record in the server, per game, with their last finished matches."""
        async with self.sessions() as session:
            return await stats.member_record(session, guild_id, user_id, game)

    async def server_timeouts(self, guild_id: int) -> Timeouts:
        """The timeouts in force in the server: its own where set, the host's elsewhere."""
        async with self.sessions() as session:
            return self._merge(await repo.server_timeouts(session, guild_id))

    async def set_server_timeouts(self, guild_id: int, seconds: Mapping[str, int]) -> Timeouts:
        """Set some of the server's timeouts (``{"turn": 600}``); the timeouts now in force."""
        async with self.sessions.begin() as session:
            if seconds:
                await repo.set_server_timeouts(session, guild_id, dict(seconds), self.clock())
            return self._merge(await repo.server_timeouts(session, guild_id))

    async def remembered(self, key: str) -> str | None:
        """A value the bot keeps for itself (the last command sync's digest)."""
        async with self.sessions() as session:
            return await repo.get_meta(session, key)

    async def remember(self, key: str, value: str) -> None:
        async with self.sessions.begin() as session:
            await repo.set_meta(session, key, value, self.clock())

    async def set_message(self, match_id: int, message_id: int | None) -> None:
        """Remember the channel message that shows the board (no version change: not a move)."""
        async with self.sessions.begin() as session:
            await repo.set_message_id(session, match_id, message_id)

    # ------------------------------------------------------------------ the transaction

    async def _run(
        self, match_id: int, user_id: int | None, expected_version: int | None, step: Step
    ) -> Report:
        """Run ``step`` on the match in one transaction, saved with the version check.

        A lost race is re-run against the new state, unless the caller named the version it
        saw (a button does): then it is answered "already played".
        """
        for _ in range(RETRIES):
            try:
                return await self._transaction(match_id, user_id, expected_version, step)
            except _Conflict:
                if expected_version is not None:
                    raise AlreadyPlayed(ALREADY_PLAYED) from None
        raise AlreadyPlayed("The match is busy: try again in a moment.")

    async def _transaction(
        self, match_id: int, user_id: int | None, expected_version: int | None, step: Step
    ) -> Report:
        now = self.clock()
        async with self.sessions.begin() as session:
            match, notices = await self._apply(
                session, match_id, user_id, expected_version, step, now
            )
        return self._report(match, notices)

    async def _apply(
        self,
        session: AsyncSession,
        match_id: int,
        user_id: int | None,
        expected_version: int | None,
        step: Step,
        now: datetime,
    ) -> tuple[_Match, list[Notice]]:
        """Within the caller's transaction: read the match for update, run ``step``, and save
        what changed with the version check (``_Conflict`` when it fails).

        Every use case and every deadline the sweeper claims is saved here, in the caller's
        transaction, with the outbox entries of what it must show with a bot-token call.
        """
        match = await self._read(session, match_id, for_update=True)
        _check_version(match, expected_version)
        match.next_version = match.row.version + 1
        notices = step(match, user_id, now)
        match.row.recent = _recent(match)
        changes = {**_changes(match), "updated_at": now}
        if not await repo.save_match(session, match_id, match.row.version, changes):
            raise _Conflict  # rolls the transaction back
        match.row.version += 1
        await self._save_rest(session, match, now)
        deliveries = _deliveries(match, notices, user_id, self.bot_user_id)
        await repo.add_deliveries(session, deliveries, now + DELIVERY_GRACE)
        return match, notices

    def _report(self, loaded: _Match, notices: Sequence[Notice]) -> Report:
        """The caller's answer: the saved match, and the notices not addressed to the bot."""
        snap = self._snapshot(loaded)
        return Report(snap, [n for n in notices if not _to_user(n, self.bot_user_id)])

    async def _read(
        self, session: AsyncSession, match_id: int, *, for_update: bool = False
    ) -> _Match:
        if not 0 < match_id <= MAX_MATCH_ID:  # a typed number: no query can take it
            raise MatchNotFound(f"There is no match #{match_id}.")
        found = await repo.load_match(session, match_id, for_update=for_update)
        if found is None:
            raise MatchNotFound(f"There is no match #{match_id}.")
        return self._match(found)

    def _match(self, found: repo.MatchContext) -> _Match:
        # Not in the session: changes reach the database by the version-checked UPDATE only.
        row = found.match
        engine = games.get(row.game)
        state = engine.load(row.state) if row.state is not None else None
        match = _Match(row, list(found.players), engine, state, stored=_row_values(row))
        match.timeouts = self._merge(found.settings)
        match.last_seq = found.last_seq
        return match

    # ------------------------------------------------------------------ steps

    def _accept(self, loaded: _Match, user_id: int | None, now: datetime) -> list[Notice]:
        row = loaded.row
        _require_status(row, MatchStatus.CHALLENGED, "This challenge is no longer open.")
        if user_id != row.opponent_id:
            raise NotYourMatch(
                f"Only {self.mention(row.opponent_id)} can accept or decline this challenge."
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
        if row.vs_bot:
            member = self.mention(row.challenger_id)
            opening, asked = f"{member} plays me at level {row.bot_level}.", member
        else:
            opening, asked = f"{self.mention(user_id)} accepted.", "Both players"
        lines = [f"{opening} Coin toss: {first_name} moves first."]
        notices: list[Notice] = []
        lines += self._render(loaded, bot_events, None)
        if row.status == MatchStatus.SETUP:
            lines.append(
                f"{asked}: choose your secret. I have sent you a DM "
                f"({human(timeouts.setup)} to answer)."
            )
        notices.insert(0, Public(self._snapshot(loaded), tuple(lines), kind="start"))
        notices.extend(self._new_prompts(loaded, {}))
        return notices

    def _decline(self, loaded: _Match, user_id: int | None, now: datetime) -> list[Notice]:
        opponent = self.mention(loaded.row.opponent_id)
        return self._close_challenge(
            loaded,
            user_id,
            loaded.row.opponent_id,
            now,
            "declined",
            refusal=f"Only {opponent} can accept or decline this challenge.",
            line=f"{opponent} declined the challenge.",
        )

    def _withdraw(self, loaded: _Match, user_id: int | None, now: datetime) -> list[Notice]:
        challenger = self.mention(loaded.row.challenger_id)
        return self._close_challenge(
            loaded,
            user_id,
            loaded.row.challenger_id,
            now,
            "withdrawn",
            refusal=f"Only {challenger} can withdraw this challenge.",
            line=f"{challenger} withdrew the challenge.",
        )

    def _close_challenge(
        self,
        loaded: _Match,
        user_id: int | None,
        allowed: int,
        now: datetime,
        reason: str,
        *,
        refusal: str,
        line: str,
    ) -> list[Notice]:
        """End an open challenge without a match (declined or withdrawn by ``allowed`` only)."""
        _require_status(loaded.row, MatchStatus.CHALLENGED, "This challenge is no longer open.")
        if user_id != allowed:
            raise NotYourMatch(refusal)
        self._abort(loaded, reason, now)
        loaded.log.append((None, reason, None, {}))
        return [Public(self._snapshot(loaded), (line,), kind="expired")]

    def _act(
        self,
        loaded: _Match,
        user_id: int | None,
        now: datetime,
        text: str,
        answering: Collection[Ask] | None,
    ) -> list[Notice]:
        row, engine = loaded.row, loaded.game
        if row.status == MatchStatus.CHALLENGED:
            raise WrongStatus("This match has not started: the challenge must be accepted first.")
        if row.status in OVER:
            raise WrongStatus(f"This match is over ({_ended(row)}): start a new one.")
        seat = loaded.seat(user_id)
        if seat is None:
            raise NotYourMatch("This is not your match: only its two players can act in it.")
        state = loaded.state
        if seat not in engine.to_act(state):
            raise NotYourTurn(self._whose_turn(loaded))
        asked = engine.ask(state, seat)
        if answering is not None and asked not in answering:
            raise WrongStatus(_not_what_was_asked(asked, engine))
        try:
            action = engine.parse(state, seat, text)
            new_state, events = engine.apply(state, seat, action)
        except GameError as error:
            raise InvalidMove(str(error)) from None
        return self._played(loaded, seat, action, new_state, events, now)

    def _played(
        self,
        loaded: _Match,
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

    def _resign(self, loaded: _Match, user_id: int | None, now: datetime) -> list[Notice]:
        row = loaded.row
        if row.status in OVER:
            raise WrongStatus(f"This match is already over ({_ended(row)}).")
        if user_id not in (row.challenger_id, row.opponent_id):
            raise NotYourMatch("This is not your match: only its two players can resign it.")
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
            line = f"{self.mention(user_id)} called the match off before it started. No result."
            snap = self._snapshot(loaded)
            return [Public(snap, (line, *self._render(loaded, events, None)), kind="end")]
        seat = loaded.seat(user_id)
        assert seat is not None
        return self._conclude(loaded, Outcome(other(seat), Reason.RESIGN), now)

    def _call_off(
        self, loaded: _Match, user_id: int | None, now: datetime, reason: str
    ) -> list[Notice]:
        if loaded.row.status in OVER:
            raise WrongStatus("This match is already over.")
        self._abort(loaded, reason, now)
        loaded.log.append((None, "abort", None, {"reason": reason}))
        return []

    def _expire(self, loaded: _Match, user_id: int | None, now: datetime) -> list[Notice]:
        row = loaded.row
        if row.status in OVER or row.deadline is None or row.deadline > now:
            raise WrongStatus("Nothing is due on this match.")
        kind = row.deadline_kind
        if kind == "challenge":
            self._abort(loaded, "expired", now)
            loaded.log.append((None, "expire", None, {}))
            line = (
                f"The challenge from {self.mention(row.challenger_id)} to "
                f"{self.mention(row.opponent_id)} expired without an answer."
            )
            return [Public(self._snapshot(loaded), (line,), kind="expired")]
        if kind == "setup":
            missing = [self.mention(loaded.players[s]) for s in loaded.game.to_act(loaded.state)]
            loaded.state, events = loaded.game.conclude(loaded.state, Outcome(None, Reason.TIMEOUT))
            self._abort(loaded, "timeout", now)
            loaded.log.append((None, "abort", None, {"timeout": True}))
            loaded.record(events)
            line = (
                f"Setup timed out: {' and '.join(missing)} did not choose a secret in time. "
                "The match is called off; no result."
            )
            snap = self._snapshot(loaded)
            return [Public(snap, (line, *self._render(loaded, events, None)), kind="end")]
        # A turn or a hint: what the engine plays for the seat out of time, else a forfeit.
        seat = min(loaded.game.to_act(loaded.state))
        action = loaded.game.on_deadline(loaded.state, seat)
        if action is None:
            return self._conclude(loaded, Outcome(other(seat), Reason.TIMEOUT), now)
        new_state, events = loaded.game.apply(loaded.state, seat, action)
        loaded.log.append((seat, "deadline", None, {}))
        notices = self._played(loaded, seat, action, new_state, events, now)
        note = f"{self.mention(loaded.players[seat])} did not answer in time, so I chose for them."
        return [_prefix(n, note) for n in notices]

    def _conclude(self, loaded: _Match, outcome: Outcome, now: datetime) -> list[Notice]:
        """End the match from outside the game's rules; the engine words the result."""
        loaded.state, events = loaded.game.conclude(loaded.state, outcome)
        self._finish(loaded, outcome, now)
        loaded.record(events)
        snap = self._snapshot(loaded)
        return [Public(snap, tuple(self._render(loaded, events, None)), kind="end")]

    # ------------------------------------------------------------------ helpers

    def _merge(self, settings: repo.ServerTimeouts | None) -> Timeouts:
        """The server's own timeouts where set, the host's defaults elsewhere."""
        base = self.defaults
        if settings is None:
            return base
        return Timeouts(
            challenge=settings.challenge_timeout or base.challenge,
            setup=settings.setup_timeout or base.setup,
            turn=settings.turn_timeout or base.turn,
            hint=settings.hint_timeout or base.hint,
        )

    def _advance(
        self,
        loaded: _Match,
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

    def _finish(self, loaded: _Match, outcome: Outcome, now: datetime) -> None:
        row = loaded.row
        row.status = MatchStatus.FINISHED
        row.state = loaded.game.dump(loaded.state)
        row.deadline = row.deadline_kind = None
        row.winner_seat = outcome.winner
        row.end_reason = outcome.reason.value
        row.finished_at = now

    def _abort(self, loaded: _Match, reason: str, now: datetime) -> None:
        row = loaded.row
        if loaded.state is not None:
            row.state = loaded.game.dump(loaded.state)
        row.status = MatchStatus.ABORTED
        row.deadline = row.deadline_kind = None
        row.end_reason = reason
        row.finished_at = now

    def _play_bot(self, loaded: _Match) -> list[Event]:
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

    async def _save_rest(self, session: AsyncSession, match: _Match, now: datetime) -> None:
        """After the version check: seats, the event log, and a result in the stats."""
        row = match.row
        if match.new_players:
            await repo.seat_players(session, row.id, match.players)
        await repo.append_events(session, row.id, match.last_seq, match.log, now)
        if row.status == MatchStatus.FINISHED:
            result = stats.Result(
                guild_id=row.guild_id,
                game=row.game,
                players=(match.players[0], match.players[1]),
                winner_seat=row.winner_seat,
                vs_bot=bool(row.vs_bot),
                bot_id=row.opponent_id if row.vs_bot else None,
            )
            await stats.add_result(session, result, now)

    def _names(self, loaded: _Match) -> list[str]:
        return [self.mention(uid) for uid in loaded.players]

    def _render(self, loaded: _Match, events: Sequence[Event], audience: Seat | None) -> list[str]:
        names = self._names(loaded)
        return [e.render(names) for e in events if e.audience == audience]

    def _whose_turn(self, loaded: _Match) -> str:
        seats = sorted(loaded.game.to_act(loaded.state))
        if len(seats) != 1:
            return "Nothing is asked of you right now: wait for the other player."
        who = self.mention(loaded.players[seats[0]])
        ask = loaded.game.ask(loaded.state, seats[0])
        doing = "choose a hint" if ask is Ask.HINT else "move"
        return f"It is not your turn: it is {who}'s turn to {doing}."

    def _notices(
        self, loaded: _Match, events: Sequence[Event], asks_before: Mapping[Seat, Ask]
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

    def _new_prompts(self, loaded: _Match, asks_before: Mapping[Seat, Ask]) -> list[Prompt]:
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

    def _prompt(self, loaded: _Match, seat: Seat, ask: Ask) -> Prompt:
        engine, state = loaded.game, loaded.state
        opponent = self.mention(loaded.players[other(seat)])
        choices: tuple[tuple[str, str], ...] = ()
        if ask is Ask.HINT:
            actions = engine.legal_actions(state, seat)
            choices = tuple((_hint_label(a), str(a)) for a in actions)
            text = f"Your opponent {opponent} missed. Choose the hint you give."
        elif ask is Ask.SECRET:
            text = f"Choose your secret for {engine.title} against {opponent}."
        else:
            text = f"Your move in {engine.title} against {opponent}."
        snap = self._snapshot(loaded)
        return Prompt(snap, loaded.players[seat], ask, text, choices, engine.view(state, seat))

    def _context_snapshot(self, found: repo.MatchContext) -> MatchSnapshot:
        return self._snapshot(self._match(found))

    def _snapshot(self, loaded: _Match) -> MatchSnapshot:
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
            version=_shown_version(loaded),
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

    def _history(self, loaded: _Match) -> tuple[str, ...]:
        """The board's log: the public events before this use case's, named."""
        if len(loaded.players) != 2:
            return ()
        p0, p1 = self._names(loaded)
        earlier = loaded.stored.get("recent") or []
        return tuple(text.format(p0=p0, p1=p1) for text in earlier[-4:])

    # ------------------------------------------------------------------ paired matches

    async def start_pairing(
        self,
        *,
        guild_id: int,
        channel_id: int,
        game: str,
        options: Mapping[str, Any],
        players: tuple[int, int],
        heading: str,
        link: Callable[[AsyncSession, int], Awaitable[None]] | None = None,
        tournament_id: int | None = None,
    ) -> Report:
        """Start a match between ``players`` at once, ``players[0]`` moving first: a pairing
        made by an organizer (a tournament's), so there is no challenge and no coin toss.

        ``link`` runs in the transaction that stores the match, with its id: what the match
        belongs to records it there, and an error it raises leaves no match behind. ``heading``
        opens the board's first lines.
        """
        engine = games.get(game)
        seed = self.seeds()
        try:
            state = engine.new(dict(options), seed)
        except GameError as error:
            raise InvalidMove(str(error)) from None
        now = self.clock()
        row = repo.MatchRow(
            id=0,
            guild_id=guild_id,
            channel_id=channel_id,
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
        )
        loaded = _Match(row, list(players), engine, state, new_players=True)
        async with self.sessions.begin() as session:
            loaded.timeouts = self._merge(await repo.server_timeouts(session, guild_id))
            self._advance(loaded, loaded.timeouts, now)
            loaded.log.append((None, "paired", None, {"players": loaded.players}))
            values = {name: getattr(row, name) for name in repo.MATCH_COLUMNS if name != "id"}
            row.id = await repo.insert_match(session, values)
            await self._save_rest(session, loaded, now)
            if link is not None:
                await link(session, row.id)
        lines = [f"{heading} {self.mention(players[0])} moves first."]
        if row.status == MatchStatus.SETUP:
            lines.append(
                "Both players: choose your secret. I have sent you a DM "
                f"({human(loaded.timeouts.setup)} to answer)."
            )
        notices: list[Notice] = [Public(self._snapshot(loaded), tuple(lines), kind="start")]
        notices.extend(self._new_prompts(loaded, {}))
        return self._report(loaded, notices)

    async def cancel(self, match_id: int, line: str) -> Report:
        """End an unfinished match without a result and without touching anyone's record (its
        organizer stopped it); ``line`` says why on its board."""

        def step(loaded: _Match, user_id: int | None, now: datetime) -> list[Notice]:
            if loaded.row.status in OVER:
                raise WrongStatus(f"This match is already over ({_ended(loaded.row)}).")
            events: list[Event] = []
            if loaded.state is not None:
                loaded.state, events = loaded.game.conclude(
                    loaded.state, Outcome(None, Reason.RESIGN)
                )
            self._abort(loaded, "called_off", now)
            loaded.log.append((None, "abort", None, {"called_off": True}))
            loaded.record(events)
            lines = (line, *self._render(loaded, events, None))
            return [Public(self._snapshot(loaded), lines, kind="end")]

        return await self._run(match_id, None, None, step)


# ---------------------------------------------------------------------- module helpers


ALREADY_PLAYED = "That was already played: the match has moved on. Use the latest board."


def _shown_version(loaded: _Match) -> int:
    """The version a notice shows: the one the match has once this use case is saved."""
    return loaded.row.version if loaded.next_version is None else loaded.next_version


def _check_version(loaded: _Match, expected_version: int | None) -> None:
    """Refuse a request made against a version of the match that is no longer current."""
    if expected_version is not None and loaded.row.version != expected_version:
        raise AlreadyPlayed(ALREADY_PLAYED)


def _require_status(row: repo.MatchRow, status: MatchStatus, message: str) -> None:
    if row.status != status:
        raise WrongStatus(message)


CHANGEABLE = (
    "state",
    "status",
    "deadline",
    "deadline_kind",
    "winner_seat",
    "end_reason",
    "finished_at",
    "recent",
    "acted_seats",
    "called_off_by",
)
"""The columns a use case may change."""


def _not_what_was_asked(asked: Ask, engine: AnyGame) -> str:
    """Why an answer made for another ask is refused (it never quotes the answer)."""
    if asked is Ask.ACTION:
        return (
            "That answers something I asked you privately, and it is already answered: nothing "
            f"was played. Make your move with the board's buttons or the /{engine.name} commands."
        )
    wanted = "your secret" if asked is Ask.SECRET else "the hint you give"
    return (
        f"That is not what I am asking you for now: I am waiting for {wanted}. Nothing was played."
    )


CLAIM = timedelta(minutes=1)


def _deliveries(
    match: _Match, notices: Sequence[Notice], actor: int | None, bot: int | None
) -> list[tuple[int, int, str, int | None, str | None]]:
    """The outbox entries of a use case: its board, if it changed, and every DM it asks for
    (not what the member who acted is told: that is their request's answer)."""
    match_id, version = match.row.id, match.row.version
    rows: list[tuple[int, int, str, int | None, str | None]] = []
    if any(isinstance(notice, Public) for notice in notices):
        rows.append((match_id, version, "board", None, None))
    for notice in notices:
        if isinstance(notice, Prompt) and notice.user_id != bot:
            rows.append((match_id, version, "prompt", notice.user_id, None))
        elif isinstance(notice, Private) and notice.user_id not in (actor, bot):
            rows.append((match_id, version, "private", notice.user_id, notice.text))
    return rows


def _recent(match: _Match) -> list[str]:
    """The match's recent public event texts once this use case's are added."""
    earlier = match.row.recent or []
    added = [
        payload["text"]
        for _seat, _kind, audience, payload in match.log
        if audience is None and payload.get("text")
    ]
    return [*earlier, *added][-RECENT:]


def _row_values(row: repo.MatchRow) -> dict[str, Any]:
    return {name: getattr(row, name) for name in CHANGEABLE}


def _changes(loaded: _Match) -> dict[str, Any]:
    """The columns the use case changed, to write with the version check.

    Only those: every index on a column written is rewritten, changed or not. The state is
    written whenever it is set, without comparing (a move always changes it).
    """
    stored = loaded.stored
    return {
        name: value
        for name, value in _row_values(loaded.row).items()
        if (value is not stored[name] if name == "state" else value != stored[name])
    }


def _to_user(notice: Notice, user_id: int | None) -> bool:
    return isinstance(notice, Private | Prompt) and notice.user_id == user_id


def _prefix(notice: Notice, line: str) -> Notice:
    if isinstance(notice, Public):
        return replace(notice, lines=(line, *notice.lines))
    return notice


def _event_seat(event: Event) -> int | None:
    seat = event.data.get("seat") if isinstance(event.data, Mapping) else None
    return seat if isinstance(seat, int) else None


def _event_payload(event: Event) -> dict[str, Any]:
    return {"text": event.text, "data": dict(event.data)}


def _hint_label(action: Any) -> str:
    """A Crown hint as its button says it: ``Row is greater than 2``."""
    sentence = str(getattr(action, "sentence", action))
    return sentence[:1].upper() + sentence[1:]


def _describe_options(engine: AnyGame, options: Mapping[str, Any]) -> str:
    """The options chosen that differ from the game's defaults: `` (size: 4, hidden: True)``."""
    defaults = engine.options(engine.new({}, 0))
    shown = [f"{k}: {v}" for k, v in options.items() if v is not None and v != defaults.get(k)]
    return f" ({', '.join(shown)})" if shown else ""


def _ended(row: repo.MatchRow) -> str:
    return str(row.end_reason or row.status)


__all__ = ["MatchError", "MatchService", "OutboxItem"]
