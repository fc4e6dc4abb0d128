"""A tournament as the service shows it (``TournamentView``), built from its stored rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import games
from bot.service.tournaments.pairing import Entrant, Pairing
from bot.service.tournaments.rounds import Format, MatchEnd, table_of
from bot.service.tournaments.standings import TournamentStanding
from db import tournaments as q
from db.models import DEFAULT_RATING


@dataclass(frozen=True)
class Round:
    """A round of a tournament: its knockout bracket, and where it is posted and played."""

    number: int
    bracket: tuple[int | None, ...]
    """A knockout round's entrants in bracket order (``None``: a bye); empty otherwise."""
    channel_id: int | None
    """Where its matches are played, once it is posted: its thread or the event's channel."""
    message_id: int | None


@dataclass(frozen=True)
class TournamentView:
    """A tournament as anyone may see it: settings, entrants, rounds and pairings."""

    id: int
    guild_id: int
    channel_id: int
    creator_id: int
    game: str
    options: dict[str, Any]
    format: Format
    rounds: int | None
    """Swiss rounds asked for during sign-up; the event's number of rounds once started."""
    max_players: int | None
    status: str
    round: int
    message_id: int | None
    winner_id: int | None
    entrants: tuple[Entrant, ...]
    pairings: tuple[Pairing, ...] = ()
    round_info: dict[int, Round] = field(default_factory=dict)
    """Each round stored so far, by number."""

    @property
    def title(self) -> str:
        return games.get(self.game).title

    @property
    def active(self) -> list[Entrant]:
        return [e for e in self.entrants if e.active]

    def pairings_of(self, number: int) -> list[Pairing]:
        return [p for p in self.pairings if p.round == number]

    def table(self, through: int | None = None) -> list[TournamentStanding]:
        """Swiss and round robin standings after round ``through`` (default: every game)."""
        last = self.round if through is None else through
        return table_of(self.format, self.entrants, [p for p in self.pairings if p.round <= last])

    def seeding(self) -> dict[int, tuple[bool, float]]:
        """Each entrant's place in the seeding order (``Entrant.seeding``)."""
        return {e.user_id: e.seeding for e in self.entrants}


# ---------------------------------------------------------------------- rows to values


def entrants_of(rows: Sequence[q.EntrantRow]) -> list[Entrant]:
    return [
        Entrant(
            r.user_id,
            DEFAULT_RATING if r.rating is None else r.rating,
            r.withdrawn,
            bool(r.provisional),
        )
        for r in rows
    ]


def pairing_of(row: q.PairingRow) -> Pairing:
    return Pairing(
        round=row.round,
        seat0=row.seat0,
        seat1=row.seat1,
        board=row.board,
        replay=row.replay,
        ended=row.ended,
        score0=row.score0,
        lapsed=(row.lapsed0, row.lapsed1),
        match_id=row.match_id,
        id=row.id,
    )


def match_end_of(row: q.MatchEndRow) -> MatchEnd:
    return MatchEnd(row.status, row.winner_seat, row.end_reason, row.acted, row.called_off_by)


def view_of(
    row: q.TournamentRow,
    entrants: tuple[Entrant, ...],
    pairings: tuple[Pairing, ...],
    info: dict[int, Round],
) -> TournamentView:
    return TournamentView(
        id=row.id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        creator_id=row.creator_id,
        game=row.game,
        options=dict(row.options or {}),
        format=cast(Format, row.format),
        rounds=row.rounds,
        max_players=row.max_players,
        status=row.status,
        round=row.round,
        message_id=row.message_id,
        winner_id=row.winner_id,
        entrants=entrants,
        pairings=pairings,
        round_info=info,
    )
