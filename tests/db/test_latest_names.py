"""The names a page shows: each member's name as stored at the end of their latest match in the
server that has one, for all of a page's members in one statement."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from db.after_match import keep_names, latest_names
from db.models import Match, MatchPlayer
from tests.db.plans import plans_recorded

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
GUILD, OTHER_GUILD = 1_100_000_000_000_000_001, 1_100_000_000_000_000_002
ALICE, BOB, CAROL, DAVE, ERIN, FRANK, GRACE, HEIDI = (
    3_300_000_000_000_000_001 + i for i in range(8)
)

Sessions = async_sessionmaker[AsyncSession]


async def finished(
    sessions: Sessions, first: int, second: int, names: dict[int, str], guild: int = GUILD
) -> int:
    """A match of ``first`` (seat 0) against ``second`` whose end stored ``names`` by seat
    (``{}``: it ended before names were kept); its id, above every earlier one."""
    async with sessions.begin() as session:
        match = Match(
            guild_id=guild, channel_id=1, game="crown", seed=1, challenger_id=first,
            opponent_id=second, created_at=NOW, updated_at=NOW,
        )  # fmt: skip
        session.add(match)
        await session.flush()
        session.add_all(
            [
                MatchPlayer(match_id=match.id, seat=0, user_id=first),
                MatchPlayer(match_id=match.id, seat=1, user_id=second),
            ]
        )
        await session.flush()
        await keep_names(session, match.id, names)
        return match.id


async def history(sessions: Sessions) -> None:
    """Matches in id order, each member's latest named one marked in its comment."""
    await finished(sessions, ALICE, BOB, {0: "Alice then", 1: "Bob"})  # Bob's
    await finished(sessions, ALICE, CAROL, {0: "Alice", 1: "Carol"})  # Alice's, Carol's
    await finished(sessions, ALICE, BOB, {0: "Alice there", 1: "Bob there"}, OTHER_GUILD)
    await finished(sessions, BOB, CAROL, {})
    await finished(sessions, DAVE, ERIN, {0: "Sam", 1: "Sam"})  # Dave's: one match, one name
    await finished(sessions, FRANK, ALICE, {})
    await finished(sessions, ERIN, DAVE, {0: "Erin"})  # Erin's; Dave's name not stored
    await finished(sessions, GRACE, HEIDI, {0: "Grace", 1: "Heidi"}, OTHER_GUILD)


async def test_each_member_gets_the_name_of_their_latest_named_match_in_the_server(
    sessions: Sessions,
) -> None:
    await history(sessions)
    everyone = [ALICE, BOB, CAROL, DAVE, ERIN, FRANK, GRACE, HEIDI]
    async with sessions() as session:
        found = await latest_names(session, GUILD, iter([*everyone, ALICE, DAVE]))
        there = await latest_names(session, OTHER_GUILD, everyone)
        alone = {user: await latest_names(session, GUILD, [user]) for user in everyone}
        nobody = await latest_names(session, GUILD, [])
    # A later match in another server, or one that kept no name, is passed over; Frank never
    # had a name kept here, Grace and Heidi played elsewhere only.
    expected = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol", DAVE: "Sam", ERIN: "Erin"}
    assert found == expected
    assert there == {ALICE: "Alice there", BOB: "Bob there", GRACE: "Grace", HEIDI: "Heidi"}
    assert alone == {user: {user: expected[user]} if user in expected else {} for user in everyone}
    assert nobody == {}


async def test_the_names_of_a_page_are_one_statement_through_the_members_index(
    engine: AsyncEngine, sessions: Sessions
) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("query plans are SQLite's (a file)")
    await history(sessions)
    async with sessions() as session:
        with plans_recorded(engine) as plans:
            found = await latest_names(session, GUILD, [ALICE, BOB, DAVE, FRANK])
    assert found == {ALICE: "Alice", BOB: "Bob", DAVE: "Sam"}
    assert len(plans.explained) == 1
    # ``members`` is the page's members, given in the statement.
    assert [line for line, _ in plans.scans] == ["SCAN members"]
    steps = " / ".join(plans.steps)
    assert "SEARCH match_players USING INDEX ix_match_players_user_match (user_id=?)" in steps
    assert "TEMP B-TREE" not in steps, steps
