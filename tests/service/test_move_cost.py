"""What a move costs the database: one transaction and three statements (read the match for
update, update it with the version check, append its event), and the board's outbox entry only
when the caller's response does not carry the board. Counts, not timings: a change that adds a
statement or a transaction to every move shows here."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.service.acting import Acting
from bot.service.languages import Languages
from bot.service.match_parts import MatchParts, match_parts
from bot.service.notices import MatchSnapshot
from bot.service.outbox import Outbox
from db.models import MatchPlace
from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock, outbox_for

ALICE_DE, BOB_FR = Acting(ALICE, "de"), Acting(BOB, "fr")


@pytest.fixture
def service(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> MatchParts:
    """The match service as the bot builds it: storing each acting member's locale."""
    languages = Languages(sessions, clock=clock)
    return match_parts(sessions, clock=clock, seeds=lambda: 1, languages=languages)


class Route:
    """A caller whose response carries the board, or does not (a board by the outbox)."""

    def __init__(self, rides: bool) -> None:
        self.rides = rides

    def rides_on_response(self, snap: MatchSnapshot) -> bool:
        return self.rides


@dataclass
class Cost:
    statements: list[str]
    commits: int = 0


@contextmanager
def counted(engine: AsyncEngine) -> Iterator[Cost]:
    """The statements and commits sent on ``engine`` meanwhile."""
    cost = Cost([])

    def executed(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        cost.statements.append(statement)

    def committed(_conn: Any) -> None:
        cost.commits += 1

    event.listen(engine.sync_engine, "before_cursor_execute", executed)
    event.listen(engine.sync_engine, "commit", committed)
    try:
        yield cost
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", executed)
        event.remove(engine.sync_engine, "commit", committed)


async def started_crystal(service: MatchParts) -> int:
    """Alice (seat 0, to move) against Bob; both have used the bot in their locale."""
    riding = Route(rides=True)
    report = await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger_id=ALICE_DE,
        opponent_id=BOB,
        game="crystal",
        board=riding,
    )
    await service.challenges.accept(report.match.id, BOB_FR, board=riding)
    return report.match.id


async def test_a_button_move_is_one_transaction_of_three_statements(
    service: MatchParts, engine: AsyncEngine
) -> None:
    match_id = await started_crystal(service)
    with counted(engine) as cost:
        report = await service.play.submit(
            match_id, ALICE_DE, "9", expected_version=1, board=Route(rides=True)
        )
    assert report.match.version == 2
    assert (len(cost.statements), cost.commits) == (3, 1)
    assert not report.board_owed  # nothing for the outbox to record once it is shown


async def test_a_slash_move_is_one_transaction_of_three_statements(
    service: MatchParts, engine: AsyncEngine
) -> None:
    match_id = await started_crystal(service)
    await service.play.submit(match_id, ALICE_DE, "9", board=Route(rides=True))
    with counted(engine) as cost:
        report = await service.play.play_in_channel(
            GUILD, CHANNEL, "crystal", BOB_FR, "1", board=Route(rides=True)
        )
    assert report.match.version == 3
    assert (len(cost.statements), cost.commits) == (3, 1)


async def test_a_board_by_the_outbox_adds_its_entry_only(
    service: MatchParts, engine: AsyncEngine
) -> None:
    await started_crystal(service)
    with counted(engine) as cost:
        report = await service.play.play_in_channel(
            GUILD, CHANNEL, "crystal", ALICE_DE, "9", board=Route(rides=False)
        )
    assert (len(cost.statements), cost.commits) == (4, 1)
    assert report.board_owed


async def test_a_changed_locale_is_stored_in_the_moves_own_transaction(
    service: MatchParts, engine: AsyncEngine
) -> None:
    match_id = await started_crystal(service)
    with counted(engine) as cost:
        await service.play.submit(
            match_id, Acting(ALICE, "pt-BR"), "9", expected_version=1, board=Route(rides=True)
        )
    assert (len(cost.statements), cost.commits) == (4, 1)
    assert "member_locales" in cost.statements[-1]


async def test_a_board_owed_before_is_forgotten_once_a_response_shows_a_later_one(
    service: MatchParts, engine: AsyncEngine, clock: Clock
) -> None:
    match_id = await started_crystal(service)
    earlier = await service.play.submit(match_id, ALICE_DE, "9", board=Route(rides=False))
    assert earlier.board_owed
    outbox = outbox_for(service)
    outbox.owed(match_id)  # as the process that ran it is told, delivering it
    with counted(engine) as cost:
        report = await service.play.submit(
            match_id, BOB_FR, "1", expected_version=2, board=Route(rides=True)
        )
    assert (len(cost.statements), cost.commits) == (3, 1)
    assert not report.board_owed and outbox.owes(match_id)
    outbox.board_shown(match_id, report.match.version)  # the response showed the board
    await outbox.flush()
    clock.advance(minutes=5)
    assert await outbox.due() == []


async def test_outside_servers_a_move_reads_what_its_message_owes_in_its_own_transaction(
    service: MatchParts, engine: AsyncEngine, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """A match reached only through interactions: its move's transaction also reads the lines
    its message still owes, so showing the board reads nothing more."""
    riding = Route(rides=True)
    report = await service.challenges.challenge(
        guild_id=0,
        channel_id=CHANNEL,
        challenger_id=ALICE_DE,
        opponent_id=BOB,
        game="crystal",
        board=riding,
        place=MatchPlace.INTERACTION,
    )
    await service.challenges.accept(report.match.id, BOB_FR, board=riding)
    with counted(engine) as cost:
        moved = await service.play.submit(
            report.match.id, ALICE_DE, "9", expected_version=1, board=riding
        )
    assert (len(cost.statements), cost.commits) == (4, 1)
    assert "outbox" in cost.statements[-1]
    assert moved.match.kept == ()  # nothing owed
    with counted(engine) as cost:
        lines, owed = await Outbox(sessions).with_owed(moved.match, [])
    assert (lines, owed, cost.statements) == ([], False, [])
