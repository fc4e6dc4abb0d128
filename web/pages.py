"""What each page shows, read from the database in one session: plain values for the templates.

Members appear by name and opaque id only (``web.ids``): no Discord id reaches a page. Names are
the Discord display names stored when a match ends; a member with none stored yet (matches from
before names were kept) shows as a neutral placeholder built from their opaque id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy.ext.asyncio import AsyncSession

import games
from bot.i18n import _
from bot.i18n.names import reason_name
from bot.service import stats
from bot.service.ratings import Rating, display
from db import after_match as history
from db import site as queries
from db.after_match import RatingPoint
from db.member_matches import MemberMatch, member_matches
from db.models import PlayerStats, utcnow
from db.records import SECTIONS
from db.site import Site
from web import ids, replay

PAGE_ROWS = 50
"""Leaderboard rows a page."""
HOME_ROWS = 5
"""Each game's top ranked rows on a server's first page."""
HOME_PROVISIONAL = 5
"""Each game's top provisional rows there, when nobody is ranked in it."""
RECENT = 20
"""Finished matches a player page lists."""
OPPONENTS = 5
"""Frequent opponents a player page counts results against."""
SEASON_DAYS = 6
"""New seasons a chart's description names each day of; past that, the first and the latest."""
SAID = {"win": "won", "loss": "lost", "draw": "drew"}
"""A match's result for a member as a player page says it."""
BOT_NAME = "Parlor"


@dataclass(frozen=True)
class Person:
    """A member as a page names and links them; ``key`` is None for the bot (no page)."""

    name: str
    key: str | None


def placeholder(key: str) -> str:
    """A neutral stand-in for a member whose display name was never stored."""
    return _("Member {key}", key=key[:4].upper())


class People:
    """Turns the server's members into ``Person`` values: opaque ids and names."""

    def __init__(self, site: Site, names: Mapping[int, str], bot_ids: Iterable[int] = ()) -> None:
        self.site = site
        self.names = names
        self.bots = frozenset(bot_ids)

    def __call__(self, user_id: int) -> Person:
        if user_id in self.bots:
            return Person(BOT_NAME, None)
        key = ids.player_id(self.site.player_key, user_id)
        return Person(self.names.get(user_id) or placeholder(key), key)


async def display_names(
    session: AsyncSession, guild_id: int, user_ids: Iterable[int]
) -> dict[int, str]:
    """The latest stored display name of each member, where one was stored.

    Names are stored when a match ends (from revision 0010 on); a member whose matches all
    ended before shows as a placeholder."""
    return await history.latest_names(session, guild_id, user_ids)


def rating_text(rating: float, deviation: float, volatility: float) -> str:
    """``1623 ± 84`` (``1500? ± 350`` while provisional): the rating and its deviation."""
    return f"{display(Rating(rating, deviation, volatility))} ± {round(deviation)}"


def game_title(name: str) -> str:
    return games.get(name).title


# ---------------------------------------------------------------------- leaderboards


@dataclass(frozen=True)
class Row:
    rank: int | None
    """None in the provisional and inactive lists: they are not ranked."""
    person: Person
    rating: str
    wins: int
    losses: int
    draws: int
    streak: int


@dataclass(frozen=True)
class Leaderboard:
    game: str
    title: str
    page: int
    rows: list[Row]
    more: bool
    """A further page exists."""
    section: str = "ranked"
    """``ranked``, ``provisional`` or ``inactive`` (``db.records.SECTIONS``)."""
    apart: tuple[str, ...] = ()
    """On the first page: the other sections that have members (to link to)."""


async def leaderboard(
    session: AsyncSession,
    site: Site,
    game: str,
    page: int,
    rows: int = PAGE_ROWS,
    section: str = "ranked",
    now: datetime | None = None,
) -> Leaderboard:
    """Page ``page`` (from 1) of one section of the game's leaderboard, ratings as they stand
    ``now``; one row more is read to know of a next. On the first page, the other sections'
    members (one row each) are looked for, to link to."""
    moment = now or utcnow()
    found = await _standings(session, site, game, page, rows, section, moment)
    people = People(site, await display_names(session, site.guild_id, _shown(found, rows)))
    apart: list[str] = []
    if page == 1:
        for other in SECTIONS:
            if other != section and await _first(session, site, game, other, moment):
                apart.append(other)
    return _leaderboard(game, page, rows, section, found, people, tuple(apart))


async def _standings(
    session: AsyncSession,
    site: Site,
    game: str,
    page: int,
    rows: int,
    section: str,
    now: datetime,
) -> list[stats.Standing]:
    """The page's rows of the section, and one more if there is a next page."""
    offset = (page - 1) * rows
    return await stats.board(
        session, site.guild_id, game, now, section=section, offset=offset, limit=rows + 1
    )


def _shown(found: Sequence[stats.Standing], rows: int) -> list[int]:
    """The members a page of ``rows`` rows shows of ``found``."""
    return [s.user_id for s in found[:rows]]


def _leaderboard(
    game: str,
    page: int,
    rows: int,
    section: str,
    found: Sequence[stats.Standing],
    people: People,
    apart: tuple[str, ...] = (),
) -> Leaderboard:
    return Leaderboard(
        game,
        game_title(game),
        page,
        [_row(s, people(s.user_id), ranked=section == "ranked") for s in found[:rows]],
        len(found) > rows,
        section,
        apart,
    )


def _row(standing: stats.Standing, person: Person, *, ranked: bool) -> Row:
    line = standing.line
    return Row(
        standing.rank if ranked else None,
        person,
        f"{line.rating} ± {round(line.deviation)}",
        line.wins,
        line.losses,
        line.draws,
        line.streak,
    )


@dataclass(frozen=True)
class GameTop:
    """One game on the server's first page: its top ranked players, or while nobody is ranked
    its top provisional ones, apart; ``apart`` names the other lists with members to see."""

    game: str
    title: str
    ranked: Leaderboard
    provisional: Leaderboard | None
    apart: tuple[str, ...]


async def _first(
    session: AsyncSession, site: Site, game: str, section: str, now: datetime
) -> list[stats.Standing]:
    """The section's first member, if it has any: whether to link to it."""
    return await stats.board(session, site.guild_id, game, now, section=section, limit=1)


async def home(session: AsyncSession, site: Site, now: datetime | None = None) -> list[GameTop]:
    """Each game's top ranked and top provisional rows, for the server's first page, with
    links to the whole lists; games nobody played are left out. The names of every game's
    members shown are read at once, in one statement for the page."""
    moment = now or utcnow()
    read = []
    for name in games.GAMES:
        ranked = await _standings(session, site, name, 1, HOME_ROWS, "ranked", moment)
        provisional = None
        if ranked:
            has_provisional = bool(await _first(session, site, name, "provisional", moment))
        else:
            provisional = await _standings(
                session, site, name, 1, HOME_PROVISIONAL, "provisional", moment
            )
            has_provisional = bool(provisional)
        has_inactive = bool(await _first(session, site, name, "inactive", moment))
        apart = tuple(
            section
            for section, found in (("provisional", has_provisional), ("inactive", has_inactive))
            if found
        )
        if ranked or apart:
            read.append((name, ranked, provisional, apart))
    shown = {
        user_id
        for _name, ranked, provisional, _apart in read
        for user_id in (*_shown(ranked, HOME_ROWS), *_shown(provisional or [], HOME_PROVISIONAL))
    }
    people = People(site, await display_names(session, site.guild_id, shown))
    tops = []
    for name, ranked, provisional, apart in read:
        top = _leaderboard(name, 1, HOME_ROWS, "ranked", ranked, people)
        below = None
        if provisional is not None:
            below = _leaderboard(name, 1, HOME_PROVISIONAL, "provisional", provisional, people)
        tops.append(GameTop(name, top.title, top, below, apart))
    return tops


# ---------------------------------------------------------------------- a player


@dataclass(frozen=True)
class RecordRow:
    """One game's row of a player page's record table, its rating worded for the page."""

    game: str
    title: str
    vs_bot: bool
    rating: str
    """Empty against the bot: those matches move no rating."""
    wins: int
    losses: int
    draws: int
    streak: int
    best_streak: int


@dataclass(frozen=True)
class Opponent:
    person: Person
    played: int
    wins: int
    losses: int
    draws: int


@dataclass(frozen=True)
class Played:
    """A finished match in a player's list."""

    id: int
    title: str
    opponent: Person
    result: str
    """``won``, ``lost`` or ``drew``."""
    finished_at: datetime | None


@dataclass(frozen=True)
class Chart:
    """A game's rating chart on a player page, and the days (UTC) of the new seasons on it:
    where a season's soft reset widened the member's range, which the chart marks with a
    dashed line and its description names."""

    game: str
    seasons: tuple[date, ...] = ()

    @property
    def each_day(self) -> bool:
        """Few enough seasons for the description to name each one's day."""
        return len(self.seasons) <= SEASON_DAYS


def chart(game: str, points: Sequence[RatingPoint]) -> Chart:
    """The chart of the game's ``points``, each season's reset among them (one a day)."""
    return Chart(game, tuple(sorted({p.at.date() for p in points if p.reset})))


@dataclass(frozen=True)
class Player:
    person: Person
    lines: list[RecordRow]
    opponents: list[Opponent]
    recent: list[Played]
    charts: list[Chart]
    """The rating charts to show, one a game."""


async def player(
    session: AsyncSession,
    site: Site,
    user_id: int,
    points: Mapping[str, Sequence[RatingPoint]] | None = None,
    now: datetime | None = None,
) -> Player | None:
    """The member's page, or None when they have no record in the server; ratings as they
    stand ``now``, and a chart of each game the member has rating ``points`` in."""
    moment = now or utcnow()
    stats = await queries.member_records(session, site.guild_id, user_id)
    if not stats:
        return None
    played = await member_matches(session, site.guild_id, user_id, limit=queries.MEMBER_WINDOW)
    recent = sorted(played, key=lambda m: (m.finished_at is not None, m.finished_at, m.id))
    recent = recent[::-1][:RECENT]
    meetings = head_to_head(played)
    bots = {m.opponent_id for m in recent if m.vs_bot}
    everyone = {user_id, *(m.opponent_id for m in recent), *(o for o, _ in meetings)}
    people = People(site, await display_names(session, site.guild_id, everyone), bots)
    lines = [
        RecordRow(
            s.game,
            game_title(s.game),
            bool(s.vs_bot),
            "" if s.vs_bot else _rating_now(s, moment),
            s.wins,
            s.losses,
            s.draws,
            s.streak,
            s.best_streak,
        )
        for s in sorted(stats, key=lambda s: (s.game, s.vs_bot))
    ]
    return Player(
        people(user_id),
        lines,
        [Opponent(people(opponent), *counts) for opponent, counts in meetings],
        [
            Played(m.id, game_title(m.game), people(m.opponent_id), SAID[m.result], m.finished_at)
            for m in recent
        ],
        [
            chart(line.game, points[line.game])
            for line in lines
            if not line.vs_bot and points and points.get(line.game)
        ],
    )


def _rating_now(row: PlayerStats, moment: datetime) -> str:
    rating = stats.standing_rating(row, moment)
    return rating_text(rating.rating, rating.deviation, rating.volatility)


def head_to_head(
    played: Sequence[MemberMatch],
) -> list[tuple[int, tuple[int, int, int, int]]]:
    """The ``OPPONENTS`` opponents met most often against people, with (played, wins, losses,
    draws) against each; ties go to the one met most recently."""
    counts: dict[int, list[int]] = {}
    for match in played:  # newest first: dicts keep the order of first meeting
        if match.vs_bot:
            continue
        line = counts.setdefault(match.opponent_id, [0, 0, 0, 0])
        line[0] += 1
        line[{"win": 1, "loss": 2, "draw": 3}[match.result]] += 1
    ranked = sorted(counts.items(), key=lambda item: -item[1][0])[:OPPONENTS]
    return [(opponent, (n[0], n[1], n[2], n[3])) for opponent, n in ranked]


# ---------------------------------------------------------------------- a match


@dataclass(frozen=True)
class MatchPage:
    id: int
    game: str
    title: str
    players: tuple[Person, Person]
    result: str
    finished_at: datetime | None
    steps: list[replay.Step]
    marks: Mapping[int, str]
    """Review marks by step number, where the match has a stored review."""


async def match(session: AsyncSession, site: Site, match_id: int) -> MatchPage | None:
    """The finished match's page with every step of its replay; None for any other match."""
    found = await queries.finished_match(session, site.guild_id, match_id)
    if found is None:
        return None
    bots = [u for u in found.players if found.vs_bot and u != found.challenger_id]
    people = People(site, await display_names(session, site.guild_id, found.players), bots)
    players = (people(found.players[0]), people(found.players[1]))
    steps = replay.steps(found, (players[0].name, players[1].name))
    winner = found.winner_seat
    result = _("Draw") if winner is None else _("{name} won", name=players[winner].name)
    if found.end_reason:
        result += f" ({reason_name(found.end_reason)})"
    return MatchPage(
        found.id, found.game, game_title(found.game), players, result, found.finished_at, steps, {}
    )
