"""A finished match looked back on: its review, its replay step by step, and its record as text.

All three are read from what every match keeps, its seed and its event log, so matches played
before they existed are reviewed and replayed too. They open only once the match is over, when
every secret is public: a match in play is refused before anything of it is read, and a match of
another server is answered as if it did not exist. A review is computed once, when it is first
asked for, and kept in English; a reader of another language gets it computed again in theirs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.i18n import DEFAULT, N_, _, current_locale, name_in
from bot.i18n.formats import moment
from bot.service.errors import MatchNotFound, WrongStatus
from bot.service.match_state import MAX_MATCH_ID, Clock, default_mention
from db import history, site
from db.models import UNFINISHED_STATUSES, MatchStatus, utcnow
from db.site import FinishedMatch as FinishedMatch
from games import review as reviewing
from games.base import AnyGame, Outcome, Reason, Seat
from games.board import Board
from games.review import Review
from games.review.replay import replay as play_again

IN_PLAY = N_(
    "Match #{id} is still in play: its review, replay and record open once it ends, "
    "when its secrets are no longer secret."
)
CALLED_OFF = N_("Match #{id} was called off without a result: there is nothing to look back on.")
NOT_HERE = N_("There is no finished match #{id} in this server.")
BOT_NAME = "Parlor"

REASON_NAMES = {
    "capture": N_("capture"),
    "target": N_("target reached"),
    "score": N_("on score"),
    "resign": N_("resigned"),
    "timeout": N_("out of time"),
    "no_moves": N_("no moves left"),
    "move_limit": N_("move limit"),
}
"""How a match's end reason is shown in reviews, histories and records."""
MARK_NAMES = {
    "best": N_("best"),
    "inaccuracy": N_("inaccuracy"),
    "mistake": N_("mistake"),
    "blunder": N_("blunder"),
}
"""A review's marks, as shown."""


def reason_name(reason: str) -> str:
    """An end reason (``Reason`` value) as the reader reads it; an unknown one as stored."""
    return name_in(REASON_NAMES, reason)


def mark_name(mark: str) -> str:
    """A review mark (``Mark`` value) as the reader reads it."""
    return name_in(MARK_NAMES, mark)


def outside_ending(match: FinishedMatch) -> Outcome | None:
    """How the match ended, when it ended outside the rules' own ending."""
    if match.end_reason not in {reason.value for reason in Reason}:
        return None
    return Outcome(match.winner_seat, Reason(match.end_reason))


@dataclass(frozen=True)
class ReplayStep:
    """The match after one logged action (step 0: before any)."""

    number: int
    seat: Seat | None
    """Who acted; ``None`` for the start and an end from outside the rules."""
    move: str
    """The action in words (``attack (2,3)``, ``Crown at (3,3)``): public now the match is over."""
    events: tuple[str, ...]
    """What happened, as the board's log said it, with the players named."""
    board: Board
    """The board after the step, as everyone sees it."""


@dataclass(frozen=True)
class Replay:
    """A finished match step by step; ``secrets`` are the end's words on every secret, which a
    replay shows beside each step's board."""

    match: FinishedMatch
    title: str
    steps: tuple[ReplayStep, ...]
    secrets: tuple[str, ...]


@dataclass(frozen=True)
class ReviewShown:
    """A finished match and its review."""

    match: FinishedMatch
    title: str
    review: Review


class Replays:
    """Reviews, replays and records of finished matches, each checked against its server."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        clock: Clock = utcnow,
        mention: Callable[[int], str] = default_mention,
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.mention = mention

    async def finished(self, guild_id: int, match_id: int) -> FinishedMatch:
        """The match, if it is the server's and finished; refused otherwise, saying why."""
        async with self.sessions() as session:
            return await _finished(session, guild_id, match_id)

    async def review(self, guild_id: int, match_id: int) -> ReviewShown:
        """The match's review in the reader's language.

        The kept review is in English: an English reader gets it (computed now, in a worker
        thread, and kept if there is none yet); a reader of another language gets it computed
        again in theirs, which is pure and takes a few tens of milliseconds.
        """
        english = current_locale() == DEFAULT
        async with self.sessions() as session:
            match = await _finished(session, guild_id, match_id)
            stored = await history.stored_review(session, match_id) if english else None
        if stored is not None and stored[0] == reviewing.FORMAT_VERSION:
            return ReviewShown(match, _title(match), Review.load(stored[1]))
        # The worker thread runs in a copy of this context, so it words in the reader's language.
        review = await asyncio.to_thread(review_of, match)
        if english:
            async with self.sessions.begin() as session:
                await history.store_review(
                    session, match_id, review.version, review.dump(), self.clock()
                )
        return ReviewShown(match, _title(match), review)

    async def replay(self, guild_id: int, match_id: int) -> Replay:
        """The match step by step, events worded with the players' mentions."""
        match = await self.finished(guild_id, match_id)
        return replay_of(match, tuple(self.mention(uid) for uid in match.players))

    async def record(self, guild_id: int, match_id: int) -> tuple[str, str]:
        """The match as a plain-text record, and a file name for it: the players, the options,
        each move with its mark, and the result."""
        shown = await self.review(guild_id, match_id)
        match = shown.match
        text = record_text(replay_of(match, plain_names(match)), shown.review)
        return f"parlor-match-{match.id}-{match.game}.txt", text


async def _finished(session: AsyncSession, guild_id: int, match_id: int) -> FinishedMatch:
    if not 0 < match_id <= MAX_MATCH_ID:
        raise MatchNotFound(_(NOT_HERE, id=match_id))
    status = await history.match_status(session, guild_id, match_id)
    if status is None:
        raise MatchNotFound(_(NOT_HERE, id=match_id))
    if status in UNFINISHED_STATUSES:
        raise WrongStatus(_(IN_PLAY, id=match_id))
    if status != MatchStatus.FINISHED:
        raise WrongStatus(_(CALLED_OFF, id=match_id))
    found = await site.finished_match(session, guild_id, match_id)
    if found is None:
        raise MatchNotFound(_(NOT_HERE, id=match_id))
    return found


def _title(match: FinishedMatch) -> str:
    return games.get(match.game).title


def _played_again(match: FinishedMatch) -> reviewing.Replay:
    """The match played again from its log; with its stored ending if its rules did not end it."""
    engine = games.get(match.game)
    try:
        return play_again(engine, match.options, match.seed, match.actions)
    except ValueError:
        if (outcome := outside_ending(match)) is None:
            raise
        return play_again(engine, match.options, match.seed, match.actions, outcome)


def review_of(match: FinishedMatch) -> Review:
    """The review of ``match`` (pure; a few tens of milliseconds at most)."""
    try:
        return reviewing.review(match.game, match.options, match.seed, match.actions)
    except ValueError:
        if (outcome := outside_ending(match)) is None:
            raise
        return reviewing.review(
            match.game, match.options, match.seed, match.actions, outcome=outcome
        )


def replay_of(match: FinishedMatch, names: Sequence[str]) -> Replay:
    """The steps of ``match``, its events worded with ``names`` (by seat)."""
    played = _played_again(match)
    engine = played.game
    start = engine.new(match.options, match.seed)
    steps = [ReplayStep(0, None, "", (), _board(engine, start))]
    for step in played.steps:
        events = tuple(e.render(names) for e in step.events if e.public)
        move = engine.word(step.action)
        steps.append(ReplayStep(len(steps), step.seat, move, events, _board(engine, step.after)))
    secrets: tuple[str, ...] = ()
    last = played.steps[-1].after if played.steps else start
    if engine.outcome(last) is None:
        _state, ending = engine.conclude(last, played.outcome)
        events = tuple(e.render(names) for e in ending if e.public)
        steps.append(ReplayStep(len(steps), None, "", events, _board(engine, played.final)))
        secrets = tuple(e.render(names) for e in ending if e.kind == "reveal")
    else:
        secrets = tuple(
            e.render(names) for step in played.steps for e in step.events if e.kind == "reveal"
        )
    return Replay(match, engine.title, tuple(steps), secrets)


def _board(engine: AnyGame, state: Any) -> Board:
    return engine.board(engine.view(state, None))


def plain_names(match: FinishedMatch) -> tuple[str, str]:
    """The players as a plain-text record names them: their name when the match ended, the
    bot's name, or a neutral ``Player 1``/``Player 2`` for matches from before names were kept."""
    shown = []
    for seat, (user_id, name) in enumerate(zip(match.players, match.names, strict=True)):
        if name:
            shown.append(name)
        elif match.vs_bot and user_id != match.challenger_id:
            shown.append(BOT_NAME)  # the bot never challenges
        else:
            shown.append(_("Player {number}", number=seat + 1))
    return shown[0], shown[1]


def record_text(replay: Replay, review: Review) -> str:
    """A finished match as plain text: players, options, each move with its mark, the result."""
    match = replay.match
    names = plain_names(match)
    marks = _marks(replay, review)
    lines = [
        _("Parlor · {game} · match #{id}", game=_(replay.title), id=match.id),
        _("Finished: {when}", when=_when(match.finished_at)),
        _("Players: {first} (moved first) and {second}", first=names[0], second=names[1]),
        _("Options: {options}", options=_options(review.options)),
        "",
        _("Moves:"),
    ]
    for step, mark in zip(replay.steps[1:], marks, strict=True):
        who = names[step.seat] if step.seat is not None else "—"
        head = f"{step.number:>3}. {who}: {step.move}" if step.move else f"{step.number:>3}."
        lines.append(f"{head}  [{mark}]" if mark else head)
        lines.extend(f"       {text}" for text in step.events)
    lines += ["", _("Result: {result}", result=_result(match, names))]
    lines += [_("Secrets: {secrets}", secrets=text) for text in replay.secrets]
    for summary in review.players:
        lines.append(f"{names[summary.seat]}: {_scores(summary)}")
    return "\n".join(lines) + "\n"


def _marks(replay: Replay, review: Review) -> list[str]:
    """Each step's mark from the review, in order; ``""`` for steps it does not judge."""
    pending = list(review.moves)
    found = []
    for seat, _ask, text in replay.match.actions:
        if pending and pending[0].seat == seat and pending[0].action == text:
            found.append(mark_name(pending.pop(0).mark.value))
        else:
            found.append("")
    found += [""] * (len(replay.steps) - 1 - len(found))
    return found


def _scores(summary: reviewing.PlayerSummary) -> str:
    if summary.skill is None:
        skill = _(summary.skill_note) if summary.skill_note else ""
    else:
        skill = _("skill {score}", score=summary.skill)
    if summary.luck is None:
        luck = _(summary.luck_note) if summary.luck_note else _("no luck score")
    else:
        luck = _("luck {score}", score=summary.luck)
    return f"{skill}; {luck}"


def _result(match: FinishedMatch, names: tuple[str, str]) -> str:
    if match.winner_seat is None:
        result = _("a draw")
    else:
        result = _("{player} won", player=names[match.winner_seat])
    return f"{result} ({reason_name(match.end_reason)})" if match.end_reason else result


def _options(options: Mapping[str, Any]) -> str:
    if not options:
        return _("standard")
    return ", ".join(f"{key} {value}" for key, value in sorted(options.items()))


def _when(at: datetime | None) -> str:
    return _("unknown") if at is None else f"{moment(at)} UTC"
