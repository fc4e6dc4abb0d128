"""A server's season page: each game's standings in one season, read in one session."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

import games
from bot.i18n.formats import decimal
from bot.service.errors import NoSeason
from bot.service.season_periods import SeasonScore
from bot.service.seasons import SeasonLine, season_board
from db.seasons import seasons_of
from db.site import Site
from web.pages import People, Person, display_names, game_title

SEASON_ROWS = 20
"""Ranked players (and, apart, provisional ones) a season page lists per game."""


@dataclass(frozen=True)
class SeasonEntry:
    rank: int
    person: Person
    score: str
    """Points or rating, whichever ranks the season."""
    wins: int
    losses: int
    draws: int


@dataclass(frozen=True)
class SeasonGame:
    game: str
    title: str
    ranked: list[SeasonEntry]
    provisional: list[SeasonEntry]


@dataclass(frozen=True)
class SeasonPage:
    number: int
    starts_at: datetime
    ends_at: datetime
    open: bool
    by_points: bool
    games: list[SeasonGame]
    numbers: list[int]
    """Every season of the server, newest first, for the links between them."""


async def season(
    session: AsyncSession, site: Site, number: int | None, now: datetime
) -> SeasonPage | None:
    """Season ``number`` of the server (``None``: its newest); None for one it does not have."""
    try:
        board = await season_board(
            session, site.guild_id, number, list(games.GAMES), SEASON_ROWS, now
        )
    except NoSeason:
        return None
    shown = [line for g in board.games for line in (*g.ranked, *g.provisional)]
    people = People(site, await display_names(session, site.guild_id, {x.user_id for x in shown}))
    by_points = board.score == SeasonScore.POINTS

    def row(line: SeasonLine) -> SeasonEntry:
        score = decimal(line.points) if by_points else line.rating
        return SeasonEntry(
            line.rank, people(line.user_id), score, line.wins, line.losses, line.draws
        )

    return SeasonPage(
        board.number,
        board.starts_at,
        board.ends_at,
        board.open,
        by_points,
        [
            SeasonGame(
                g.game,
                game_title(g.game),
                [row(x) for x in g.ranked],
                [row(x) for x in g.provisional],
            )
            for g in board.games
        ],
        [s.number for s in await seasons_of(session, site.guild_id)],
    )
