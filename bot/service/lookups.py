"""Looking a match up: as anyone sees it, what a member is asked, a member's matches, and the
match a slash command means."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from bot.service.errors import (
    NoMatch,
    NoMatchHere,
    NotAPlayer,
    NothingAsked,
    OverStep,
)
from bot.service.match_state import OVER, LoadedMatch, over
from bot.service.notices import MatchSnapshot, Prompt
from bot.service.runner import MatchRunner
from bot.service.steps import Steps
from db import matches
from db.connection import session_of
from db.matches import MatchContext, channel_matches, unfinished_matches
from db.models import MatchStatus


@dataclass(frozen=True)
class Lookups:
    """What a match and a member's matches look like now; nothing is written."""

    runner: MatchRunner
    steps: Steps

    async def in_play(
        self, match_ids: Collection[int], channel_ids: Collection[int]
    ) -> tuple[set[int], set[int]]:
        """Of ``match_ids``, those not over; of ``channel_ids``, those with a match not over
        (whichever process ended the others): what a process may forget of the rest."""
        async with session_of(self.runner.sessions) as session:
            return await matches.in_play(session, match_ids, channel_ids)

    async def snapshot(self, match_id: int, *, guild_id: int | None = None) -> MatchSnapshot:
        """The match as anyone may see it (in ``guild_id``, when asked from a server)."""
        async with session_of(self.runner.sessions) as session:
            return self.steps.snapshot(_in(await self.runner.read(session, match_id), guild_id))

    async def prompt(self, match_id: int, user_id: int, *, guild_id: int | None = None) -> Prompt:
        """What ``user_id`` is privately asked for now (to resend a DM or ask in the channel)."""
        async with session_of(self.runner.sessions) as session:
            loaded = _in(await self.runner.read(session, match_id), guild_id)
        seat = loaded.seat(user_id)
        if seat is None:
            raise NotAPlayer()
        if loaded.row.status in OVER:
            raise over(loaded.row, OverStep.ASK)
        if seat not in loaded.game.to_act(loaded.state):
            raise NothingAsked()
        ask = loaded.game.ask(loaded.state, seat)
        return self.steps.prompt(loaded, seat, ask)

    async def find_match(self, guild_id: int, channel_id: int, game: str, user_id: int) -> int:
        """The caller's unfinished match of ``game`` in this channel, for a slash command.

        With several, the one where the caller is to act; refused when that is still ambiguous.
        """
        async with session_of(self.runner.sessions) as session:
            found = await channel_matches(session, guild_id, channel_id, game, user_id)
        return pick(self.runner, found, game, user_id).match.id

    async def unfinished(self, user_id: int, guild_id: int | None = None) -> list[MatchSnapshot]:
        """The member's matches not yet over, newest first (in one server, if given)."""
        async with session_of(self.runner.sessions) as session:
            found = await unfinished_matches(session, user_id, guild_id)
        return [self.runner.context_snapshot(context) for context in found]

    async def waiting_for(self, user_id: int) -> list[MatchSnapshot]:
        """The member's started matches that wait for them to act, in any server."""
        snapshots = await self.unfinished(user_id)
        return [s for s in snapshots if s.status != MatchStatus.CHALLENGED and user_id in s.to_act]


def pick(runner: MatchRunner, found: list[MatchContext], game: str, user_id: int) -> MatchContext:
    """The one of the caller's matches in a channel a command means: the only one, or the
    only one where they are to act."""
    if not found:
        raise NoMatchHere(game, 0)
    if len(found) == 1:
        return found[0]
    mine = [ctx for ctx in found if user_id in runner.context_snapshot(ctx).to_act]
    if len(mine) == 1:
        return mine[0]
    raise NoMatchHere(game, len(found))


def _in(loaded: LoadedMatch, guild_id: int | None) -> LoadedMatch:
    """``loaded``, unless it belongs to another server than the one asked from: then it is
    answered as if it did not exist."""
    if guild_id is not None and loaded.row.guild_id != guild_id:
        raise NoMatch(loaded.row.id)
    return loaded
