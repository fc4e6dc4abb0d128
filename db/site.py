"""The queries of the web pages: which servers have them on, and what their pages read (a
finished match with its log, ``finished_match``, is read by ``/review`` and ``/replay`` too).

Everything a page reads starts from an index: a leaderboard walks the leaderboard index of one
server's game, and a member's page starts from their own rows in ``match_players``, so a page's
cost follows what it shows, not the size of the server's history. The web process only reads;
the bot writes ``web_sites`` when a manager turns the pages on or off.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import Match, MatchEvent, MatchPlayer, MatchStatus, PlayerStats, WebSite

PLAYER_KEY_BYTES = 32
"""The size of a server's key for its players' opaque ids."""

MEMBER_WINDOW = 1000
"""A member's page reads at most their last this many matches in the server: enough for their
recent matches and frequent opponents, and a bound on the page's cost for the keenest."""


def token_hash(token: str) -> str:
    """What ``web_sites`` keeps of a link's token: its SHA-256 in hex. The token itself is a
    random string as long as a key, so a plain hash is enough; a stolen database holds no
    working link."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Site:
    """A server whose pages are on."""

    guild_id: int
    player_key: bytes


async def site_by_token(session: AsyncSession, token_hash: str) -> Site | None:
    """The server whose link's token hashes to ``token_hash``, if its pages are on."""
    row = (
        await session.execute(
            select(WebSite.guild_id, WebSite.player_key).where(WebSite.token_hash == token_hash)
        )
    ).first()
    return None if row is None else Site(row[0], bytes.fromhex(row[1]))


async def open_site(
    session: AsyncSession, guild_id: int, token_hash: str, player_key: bytes, now: datetime
) -> None:
    """Turn the server's pages on with a new token and key, replacing any earlier ones."""
    await session.execute(delete(WebSite).where(WebSite.guild_id == guild_id))
    session.add(
        WebSite(
            guild_id=guild_id, token_hash=token_hash, player_key=player_key.hex(), opened_at=now
        )
    )
    await session.flush()


async def close_site(session: AsyncSession, guild_id: int) -> bool:
    """Turn the server's pages off; whether they were on."""
    result = await session.execute(delete(WebSite).where(WebSite.guild_id == guild_id))
    return bool(getattr(result, "rowcount", 0))


async def member_records(session: AsyncSession, guild_id: int, user_id: int) -> list[PlayerStats]:
    """The member's records in the server, every game, in no order: sorting here would let
    SQLite walk the server's leaderboard index instead of the member's own rows."""
    rows = await session.scalars(
        select(PlayerStats).where(PlayerStats.guild_id == guild_id, PlayerStats.user_id == user_id)
    )
    return list(rows)


LoggedAction = tuple[int, str, str]
"""One action from a match's event log: who played it (the seat), what they were asked for
(the ``Ask``'s value) and the action's canonical text."""


@dataclass(frozen=True)
class FinishedMatch:
    """A finished match of the server with what its log holds, as a review, a replay and its
    web page read it."""

    id: int
    game: str
    options: dict[str, Any]
    seed: int
    players: tuple[int, int]
    """User ids by seat."""
    challenger_id: int
    names: tuple[str | None, str | None]
    """The players' display names when the match ended, where they were kept."""
    vs_bot: bool
    winner_seat: int | None
    end_reason: str | None
    finished_at: datetime | None
    actions: tuple[LoggedAction, ...]
    """Its actions in the order they were played: what a replay applies again."""


async def finished_match(
    session: AsyncSession, guild_id: int, match_id: int
) -> FinishedMatch | None:
    """The match, if it is one of the server's and finished: a match in play or called off is
    never shown, so nothing secret of a match in play can reach a page."""
    row = (
        await session.execute(
            select(
                Match.id,
                Match.game,
                Match.options,
                Match.seed,
                Match.challenger_id,
                Match.vs_bot,
                Match.winner_seat,
                Match.end_reason,
                Match.finished_at,
            ).where(
                Match.id == match_id,
                Match.guild_id == guild_id,
                Match.status == MatchStatus.FINISHED,
            )
        )
    ).first()
    if row is None:
        return None
    seated = await session.execute(
        select(MatchPlayer.seat, MatchPlayer.user_id, MatchPlayer.display_name).where(
            MatchPlayer.match_id == match_id
        )
    )
    seats: dict[int, tuple[int, str | None]] = {seat: (user, name) for seat, user, name in seated}
    if set(seats) != {0, 1}:
        return None
    return FinishedMatch(
        id=row.id,
        game=row.game,
        options=dict(row.options or {}),
        seed=row.seed,
        players=(seats[0][0], seats[1][0]),
        challenger_id=row.challenger_id,
        names=(seats[0][1], seats[1][1]),
        vs_bot=bool(row.vs_bot),
        winner_seat=row.winner_seat,
        end_reason=row.end_reason,
        finished_at=row.finished_at,
        actions=await _logged_actions(session, match_id),
    )


async def _logged_actions(session: AsyncSession, match_id: int) -> tuple[LoggedAction, ...]:
    rows = await session.execute(
        select(MatchEvent.seat, MatchEvent.kind, MatchEvent.payload)
        .where(MatchEvent.match_id == match_id, MatchEvent.kind.startswith("action:"))
        .order_by(MatchEvent.seq)
    )
    return tuple(
        (seat, kind.removeprefix("action:"), str(payload["action"]))
        for seat, kind, payload in rows
        if seat is not None and "action" in payload
    )
