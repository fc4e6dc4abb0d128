"""What the commands, cogs and buttons use, handed to each by the composition root
(``bot.wiring``) where it is built or registered.

Only protocols, the service's types and leaf parts that import nothing of the project
(``Followups``) are named here, so the cogs and buttons that take the parts import nothing of the
Discord side's workings: no import circle.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from bot.chat.components import Post, Press
from bot.chat.followups import Followups
from bot.chat.request_outcomes import Ended
from bot.service.daily_puzzles import DailyPuzzles
from bot.service.languages import Languages
from bot.service.match_parts import MatchParts
from bot.service.member_history import HistoryService
from bot.service.notices import BoardRoute, MatchSnapshot, Report
from bot.service.puzzles import Puzzles
from bot.service.seasons import Seasons
from bot.service.servers import ServerService
from bot.service.tournaments.service import TournamentService
from bot.settings import Settings

Interaction = Any
"""A ``discord.Interaction`` of any client."""


UseCase = Callable[[BoardRoute], Awaitable[Report]]
"""A use case run for an interaction, given the interaction's board route."""


class Actor(Protocol):
    """The member whose typed DM produced a report, and how to answer them privately."""

    user_id: int

    async def tell(self, text: str) -> None: ...


class Requests(Protocol):
    """Runs a member's request from an interaction and answers it."""

    async def run(
        self,
        interaction: Interaction,
        use_case: UseCase,
        *,
        stale: Press | None = None,
        kind: str | None = None,
    ) -> Report | None: ...

    async def show(
        self,
        interaction: Interaction,
        make: Callable[[], Awaitable[Post]],
        *,
        stale: Press | None = None,
    ) -> None: ...

    def watched(
        self, interaction: Interaction, press: Press | None = None
    ) -> AbstractAsyncContextManager[Ended]: ...


class Deliverer(Protocol):
    """Shows a report that no interaction caused (a typed DM, a deadline)."""

    async def deliver(self, report: Report, *, actor: Actor | None = None) -> None: ...


class Places(Protocol):
    """Where a match's board is."""

    def board_of(self, snap: MatchSnapshot) -> int | None:
        """The match's board message, as this process last knew it (it may be newer than the
        stored one, written a moment later)."""

    def board_url(self, snap: MatchSnapshot) -> str: ...


class Messenger(Protocol):
    """Private words to a member, and the name of the server they are about."""

    async def send_dm(self, user_id: int, post: Post, *, nonce: str | None = None) -> bool: ...

    def server_name(self, guild_id: int) -> str: ...


@dataclass(frozen=True)
class Parts:
    """The parts of one bot process that the commands and buttons use."""

    settings: Settings
    matches: MatchParts
    servers: ServerService
    seasons: Seasons
    histories: HistoryService
    tournaments: TournamentService
    requests: Requests
    delivery: Deliverer
    places: Places
    dms: Messenger
    followups: Followups
    """Creates every followup, counted per interaction within Discord's cap."""
    languages: Languages | None = None
    """Who reads what language: the server's for public posts, a member's for their DMs."""
    puzzles: Puzzles | None = None
    """Members' puzzle ratings, for ``/stats``."""
    daily: DailyPuzzles | None = None
    """The daily puzzle's channel, for ``/settings``."""
