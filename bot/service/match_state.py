"""A match inside one use case's transaction, and what is worked out from it.

A use case reads its match into a ``LoadedMatch`` (plain values, outside the ORM's unit of work),
changes it in memory, and saves only the changed columns with the version check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from bot.service.errors import MatchOver, MovedOn, NotOpen, OverStep
from bot.service.lines import Happened, PublicLine, kept_lines, kept_text
from bot.service.notices import Notice, Private, Prompt, Public
from bot.service.timeouts import Timeouts
from db.match_events import EventRow
from db.matches import MatchRow
from db.models import MatchPlace, MatchStatus
from games.base import AnyGame, Ask, Event, Seat

OVER = (MatchStatus.FINISHED, MatchStatus.ABORTED)
RETRIES = 5
DELIVERY_GRACE = timedelta(seconds=15)
"""How long a use case's own process has to deliver what it must show before the outbox's
deliverer (in any process) does."""
RECENT = 8
"""Public events a match keeps for its board's log (the board lists the last few)."""
MAX_MATCH_ID = 2**31 - 1
"""The largest id a match can have (a 32-bit column on PostgreSQL)."""

Clock = Callable[[], datetime]
"""Where the service reads the time: ``db.models.utcnow``, or a test's hand-wound clock."""


Names = Callable[[int, int], str | None]
"""``(guild_id, user_id)`` → the member's display name there, if the chat side knows it."""


def default_mention(user_id: int) -> str:
    return f"<@{user_id}>"


def no_names(guild_id: int, user_id: int) -> str | None:
    return None


class Conflict(Exception):
    """The version check failed: another writer changed the match first."""


@dataclass
class LoadedMatch:
    """A match row with its players and decoded engine state, inside one transaction."""

    row: MatchRow
    players: list[int]
    game: AnyGame
    state: Any
    log: list[EventRow] = field(default_factory=list)
    """Events to append once the version check has passed."""
    new_players: bool = False
    """Seats were just assigned and must be stored."""
    timeouts: Timeouts = field(default_factory=Timeouts)
    """The server's timeouts, read with the match."""
    threads: bool = False
    """Whether its server plays each match in a thread of its own, read with the match."""
    last_seq: int = 0
    """The match's last logged event number, read with the match."""
    board_entry: bool = False
    """Whether this use case wrote an outbox entry for the match's board."""
    kept: tuple[str, ...] | None = None
    """Outside servers, the lines its message still owes, read as the use case saves it."""
    next_version: int | None = None
    """The version the match will have once this use case is saved: what its notices show."""
    stored: dict[str, Any] = field(default_factory=dict)
    """The changeable columns as read, to write back only what changed."""

    def record(self, events: Sequence[Event]) -> None:
        self.log += [(event_seat(e), e.kind, e.audience, event_payload(e)) for e in events]

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


Step = Callable[[LoadedMatch, int | None, datetime], list[Notice]]
"""A use case's own part of a transaction: check, ask the engine, change the match in memory.
What it changes is written after it, with the version check."""


def shown_version(loaded: LoadedMatch) -> int:
    """The version a notice shows: the one the match has once this use case is saved."""
    return loaded.row.version if loaded.next_version is None else loaded.next_version


def check_version(loaded: LoadedMatch, expected_version: int | None) -> None:
    """Refuse a request made against a version of the match that is no longer current."""
    if expected_version is not None and loaded.row.version != expected_version:
        raise MovedOn()


def require_open(row: MatchRow) -> None:
    """Refuse an answer to a challenge that is no longer open."""
    if row.status != MatchStatus.CHALLENGED:
        raise NotOpen()


def over(row: MatchRow, step: OverStep) -> MatchOver:
    """The refusal of ``step`` on a match that is over, with how it ended."""
    return MatchOver(step, row.end_reason or row.status)


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
    "opponent_id",
    "thread_id",
)
"""The columns a use case may change (``opponent_id``: an open challenge is taken)."""


def deliveries(
    match: LoadedMatch,
    notices: Sequence[Notice],
    actor: int | None,
    bot: int | None,
    *,
    board_shown: bool = False,
    mention: Callable[[int], str] = default_mention,
) -> list[tuple[int, int, str, int | None, str | None]]:
    """The outbox entries of a use case: its board, if it changed and the caller's response
    does not carry it (``board_shown``), and every DM it asks for (not what the member who
    acted is told: that is their request's answer). A private event is kept as data
    (``kept_text``), naming the players with ``mention``: its DM words it for its reader.

    A match reached only through interactions sends no DM: its players answer and read their
    own side privately from its message. Its board's entry keeps the service's lines
    (``kept_lines``): no token may be fresh to show them now, and the next press says them."""
    names = [mention(uid) for uid in match.players]
    match_id, version = match.row.id, match.row.version
    rows: list[tuple[int, int, str, int | None, str | None]] = []
    publics = [notice for notice in notices if isinstance(notice, Public)]
    by_interaction = match.row.place == MatchPlace.INTERACTION
    if not board_shown and publics:
        lines = (line for notice in publics for line in notice.lines)
        rows.append(
            (match_id, version, "board", None, kept_lines(lines) if by_interaction else None)
        )
    if by_interaction:
        return rows
    for notice in notices:
        if isinstance(notice, Prompt) and notice.user_id != bot:
            rows.append((match_id, version, "prompt", notice.user_id, None))
        elif isinstance(notice, Private) and notice.user_id not in (actor, bot):
            kept = kept_text(notice.match.guild_id, notice.event, names)
            rows.append((match_id, version, "private", notice.user_id, kept))
    return rows


def recent_texts(match: LoadedMatch) -> list[Any]:
    """The match's recent public events once this use case's are added, as the board's log
    keeps them: each as its kind, its data and its English text (``recent_entry``).

    An earlier release kept only the text (players as ``{p0}``/``{p1}``): such entries stay
    as they are, and ``history_lines`` shows them as they were said."""
    earlier = match.row.recent or []
    added = [
        recent_entry(kind, payload)
        for _seat, kind, audience, payload in match.log
        if audience is None and "data" in payload and not kind.startswith("action:")
    ]
    return [*earlier, *added][-RECENT:]


def recent_entry(kind: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """A public event as the board's log keeps it: its kind and data, worded when shown, and
    its English text for a reader that cannot word it."""
    return {"kind": kind, "data": payload["data"], "text": payload.get("text", "")}


def history_lines(
    game: str, entries: Sequence[Any], names: Sequence[str]
) -> tuple[PublicLine, ...]:
    """The board's log lines from the entries ``recent_texts`` kept, naming the players: each
    the game's event, which the reading side words, or an earlier release's text as it was
    stored."""
    return tuple(_history_line(game, entry, names) for entry in entries)


def _history_line(game: str, entry: Any, names: Sequence[str]) -> PublicLine:
    if isinstance(entry, str):
        return entry.format(p0=names[0], p1=names[1])
    event = Event(entry["kind"], entry.get("text", ""), None, entry.get("data") or {}, game)
    return Happened(event, (names[0], names[1]))


def row_values(row: MatchRow) -> dict[str, Any]:
    return {name: getattr(row, name) for name in CHANGEABLE}


def changes(loaded: LoadedMatch) -> dict[str, Any]:
    """The columns the use case changed, to write with the version check.

    Only those: every index on a column written is rewritten, changed or not. The state is
    written whenever it is set, without comparing (a move always changes it).
    """
    stored = loaded.stored
    return {
        name: value
        for name, value in row_values(loaded.row).items()
        if (value is not stored[name] if name == "state" else value != stored[name])
    }


def to_user(notice: Notice, user_id: int | None) -> bool:
    return isinstance(notice, Private | Prompt) and notice.user_id == user_id


def prefix(notice: Notice, line: PublicLine) -> Notice:
    if isinstance(notice, Public):
        return replace(notice, lines=(line, *notice.lines))
    return notice


def event_seat(event: Event) -> int | None:
    seat = event.data.get("seat") if isinstance(event.data, Mapping) else None
    return seat if isinstance(seat, int) else None


def event_payload(event: Event) -> dict[str, Any]:
    return {"text": event.text, "data": dict(event.data)}
