"""A tournament's tables, and its rows as plain values outside any session."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table

from db.models import (
    Match,
    MatchPlayer,
    MatchStatus,
    PlayerStats,
    Tournament,
    TournamentEntrant,
    TournamentGame,
    TournamentRound,
    TournamentStatus,
)

TOURNAMENTS = cast(Table, Tournament.__table__)
ENTRANTS = cast(Table, TournamentEntrant.__table__)
ROUNDS = cast(Table, TournamentRound.__table__)
PAIRINGS = cast(Table, TournamentGame.__table__)
MATCHES = cast(Table, Match.__table__)
PLAYERS = cast(Table, MatchPlayer.__table__)
STATS = cast(Table, PlayerStats.__table__)
OVER = (MatchStatus.FINISHED.value, MatchStatus.ABORTED.value)
ENDED = (TournamentStatus.FINISHED.value, TournamentStatus.CANCELLED.value)


@dataclass(slots=True)
class TournamentRow:
    """A tournament's columns as plain values, outside any session."""

    id: int
    guild_id: int
    channel_id: int
    creator_id: int
    game: str
    options: dict[str, Any]
    format: str
    rounds: int | None
    max_players: int | None
    status: str
    round: int
    version: int
    message_id: int | None
    winner_id: int | None
    announced: bool
    claimed_until: datetime | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class EntrantRow:
    user_id: int
    joined_at: datetime
    rating: float | None
    withdrawn: str | None
    provisional: bool


@dataclass(frozen=True, slots=True)
class RoundRow:
    number: int
    entrants: list[int | None] | None
    channel_id: int | None
    message_id: int | None


@dataclass(frozen=True, slots=True)
class PairingRow:
    """A row of ``tournament_games``: one pairing of a round (``seat1`` None: a bye)."""

    id: int
    round: int
    board: int
    replay: int
    seat0: int
    seat1: int | None
    match_id: int | None
    ended: bool
    score0: float | None
    lapsed0: bool
    lapsed1: bool


@dataclass(frozen=True, slots=True)
class MatchEndRow:
    """How a match ended: its status and result, the seats that ever acted in it, and the
    member who called it off before it started (a resignation in setup), if one did."""

    match_id: int
    status: str
    winner_seat: int | None
    end_reason: str | None
    acted: frozenset[int]
    called_off_by: int | None


TOURNAMENT_COLUMNS = tuple(f.name for f in fields(TournamentRow))
ENTRANT_COLUMNS = tuple(f.name for f in fields(EntrantRow))
ROUND_COLUMNS = tuple(f.name for f in fields(RoundRow))
PAIRING_COLUMNS = tuple(f.name for f in fields(PairingRow))
