"""What the match service tells: posts for the match channel and private words to one user.

The service renders player names into texts (through the ``mention`` function it is given) and
never includes a secret in a ``Public`` notice before the match ends. The Discord layer turns
these into messages, embeds and buttons; the terminal and tests read them as plain data.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from bot.service.lines import PublicLine
from db.models import OPEN_OPPONENT, MatchStatus
from db.models import MatchPlace as MatchPlace  # handed to the Discord side, which reads no db
from games.base import Ask, Event


@dataclass(frozen=True)
class MatchSnapshot:
    """A match as anyone may see it: no secret is in here until the match has ended."""

    id: int
    guild_id: int
    channel_id: int
    game: str
    options: dict[str, Any]
    status: str
    version: int
    challenger_id: int
    opponent_id: int
    players: tuple[int, ...]
    """User ids by seat (seat 0 moves first); empty before the challenge is accepted."""
    to_act: tuple[int, ...]
    """User ids that may act now."""
    asks: dict[int, Ask]
    """What each user in ``to_act`` is asked for."""
    public_view: Any
    """The game's public view, or ``None`` before the match starts."""
    deadline: datetime | None
    deadline_kind: str | None
    winner_id: int | None
    end_reason: str | None
    message_id: int | None
    vs_bot: bool = False
    place: str = MatchPlace.SERVER.value
    """How the match's message is reached (``MatchPlace``): an ``interaction`` place is never
    reached with the bot's token."""
    history: tuple[PublicLine, ...] = ()
    """The public lines of the match's last events before this use case, oldest first (only in
    a use case's report)."""
    thread_id: int | None = None
    """The thread the match is played in when it has one of its own (then its ``channel_id``
    too), else ``None``."""
    thread_unsettled: bool = False
    """It started, and whether it moves to a thread of its own is not settled yet: its server
    plays matches in threads (``db.match_threads``)."""
    kept: tuple[str, ...] | None = None
    """Outside servers, the lines its message still owes (``db.outbox.owed_lines``), read in
    the use case's own transaction (only in a use case's report; ``None``: not read)."""

    @property
    def over(self) -> bool:
        return self.status in (MatchStatus.FINISHED, MatchStatus.ABORTED)

    @property
    def open_challenge(self) -> bool:
        """A challenge open to any member, nobody has taken yet."""
        return self.opponent_id == OPEN_OPPONENT

    @property
    def members(self) -> set[int]:
        """Everyone the match concerns: its players, or its challenger and named opponent."""
        return {*self.players, self.challenger_id, self.opponent_id} - {OPEN_OPPONENT}

    @property
    def by_interaction_only(self) -> bool:
        """Whether the match's message is reached only through interactions."""
        return self.place == MatchPlace.INTERACTION

    def seat_of(self, user_id: int) -> int | None:
        """The user's seat, or ``None`` when they do not play (or the match has not started)."""
        return self.players.index(user_id) if user_id in self.players else None


@dataclass(frozen=True)
class Public:
    """A post for the match channel: what happened, then the board as it now stands."""

    match: MatchSnapshot
    lines: tuple[PublicLine, ...]
    kind: str = "update"
    """``challenge``, ``start``, ``update``, ``end`` or ``expired``: how the post should look."""


@dataclass(frozen=True)
class Private:
    """What one user only is told (their own secret set, what their hint says): the game's
    event for their seat, which the game words for whoever reads it."""

    match: MatchSnapshot
    user_id: int
    event: Event


@dataclass(frozen=True)
class Prompt:
    """Ask one user privately for something: their secret, a Crown hint, a trap cell. The
    reading side words the question; the game draws the choices from ``view``."""

    match: MatchSnapshot
    user_id: int
    ask: Ask
    view: Any = None
    """The user's own view of the game (holds their own secrets, never the opponent's)."""


Notice = Public | Private | Prompt


@dataclass(frozen=True)
class Report:
    """The result of a use case: the match after it and what to tell whom."""

    match: MatchSnapshot
    notices: list[Notice]
    tournament_id: int | None = None
    """The tournament whose match this use case ended, if it did: it may move on now."""
    board_owed: bool = True
    """Whether this use case wrote an outbox entry for its board (``False``: its caller's
    response carries the board, and showing it leaves nothing of this use case to forget)."""

    def public_lines(self) -> list[PublicLine]:
        return [line for n in self.notices if isinstance(n, Public) for line in n.lines]

    def for_user(self, user_id: int) -> list[Private | Prompt]:
        return [n for n in self.notices if isinstance(n, Private | Prompt) and n.user_id == user_id]


class BoardRoute(Protocol):
    """How the caller will show a use case's board: asked inside the use case's transaction,
    with the match as it will be once saved."""

    def rides_on_response(self, snap: MatchSnapshot) -> bool:
        """Whether the caller's own interaction response carries the board (then no outbox
        entry is written for it: the response is its delivery)."""
        ...
