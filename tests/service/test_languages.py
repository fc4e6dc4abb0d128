"""Who reads what language, as the database keeps it: a server's language for its public posts
(chosen, else its preferred locale, else English), and each member's last locale for their DMs,
stored in a use case's own transaction only when it changed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.service.acting import Acting
from bot.service.errors import WrongStatus
from bot.service.languages import Languages
from bot.service.match_parts import match_parts
from db.languages import member_locale
from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock

T = TypeVar("T")
OTHER_GUILD = 1001


class Ticks:
    """A monotonic clock the tests move by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@contextmanager
def statements(engine: AsyncEngine) -> Iterator[list[str]]:
    """The SQL statements run on ``engine`` meanwhile."""
    seen: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    event.listen(engine.sync_engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", note)


@pytest.fixture
def languages(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> Languages:
    return Languages(sessions, clock=clock)


async def test_a_server_reads_english_then_its_preferred_locale_then_its_choice(
    languages: Languages,
) -> None:
    assert await languages.server(GUILD) == "en-US"
    assert await languages.preferred({GUILD: "fr", OTHER_GUILD: "es-419"}) == 2
    assert await languages.server(GUILD) == "fr"
    assert await languages.server(OTHER_GUILD) == "es-ES"  # Latin American Spanish reads Spain's
    assert await languages.choose(GUILD, "de") == "de"
    assert await languages.chosen(GUILD) == "de"
    assert await languages.server(GUILD) == "de"
    assert await languages.choose(GUILD, None) == "fr"  # back to the server's own
    assert await languages.chosen(GUILD) is None
    with pytest.raises(ValueError):
        await languages.choose(GUILD, "xx")


async def test_a_preferred_locale_is_written_only_when_it_changes(
    languages: Languages, sessions: async_sessionmaker[AsyncSession], engine: AsyncEngine
) -> None:
    await languages.choose(GUILD, "de")
    assert await languages.preferred({GUILD: "fr"}) == 1
    assert await languages.server(GUILD) == "de"  # the choice stands over the preferred locale
    with statements(engine) as seen:
        assert await languages.preferred({GUILD: "fr"}) == 0
    assert seen == []
    # Another process (a restart) reads what is stored, once, and writes nothing unchanged.
    again = Languages(sessions)
    with statements(engine) as seen:
        assert await again.preferred({GUILD: "fr", OTHER_GUILD: "pt-BR"}) == 1
    assert len([s for s in seen if s.lstrip().upper().startswith("INSERT")]) == 1
    assert await again.server(OTHER_GUILD) == "pt-BR"


async def test_another_process_sees_a_choice_once_its_copy_is_old(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    ticks = Ticks()
    here = Languages(sessions, monotonic=ticks, max_age=60)
    there = Languages(sessions, monotonic=ticks)
    assert await here.server(GUILD) == "en-US"
    await there.choose(GUILD, "pt-BR")
    assert await there.server(GUILD) == "pt-BR"  # the process that changed it, at once
    ticks.now = 59
    assert await here.server(GUILD) == "en-US"  # its copy, still fresh
    ticks.now = 61
    assert await here.server(GUILD) == "pt-BR"


async def test_a_members_locale_is_stored_by_their_use_case_only_when_it_changes(
    sessions: async_sessionmaker[AsyncSession],
    engine: AsyncEngine,
    clock: Clock,
    languages: Languages,
) -> None:
    service = match_parts(sessions, clock=clock, seeds=lambda: 1, languages=languages)
    await languages.preferred({GUILD: "fr"})
    assert await languages.member(BOB, GUILD) == "fr"  # the server's, before Bob used the bot

    alice, bob = Acting(ALICE, "de"), Acting(BOB, "es-419")
    match = (
        await service.challenges.challenge(
            guild_id=GUILD, channel_id=CHANNEL, challenger_id=alice, opponent_id=BOB, game="crown"
        )
    ).match
    with pytest.raises(WrongStatus):  # refused: its transaction stores nothing
        await service.play.submit(match.id, bob, "1 1")
    async with sessions() as session:
        assert await member_locale(session, ALICE) == "de"
        assert await member_locale(session, BOB) is None

    await service.challenges.accept(match.id, bob)
    assert await languages.member(BOB, GUILD) == "es-ES"
    with statements(engine) as seen:
        await service.play.submit(match.id, alice, "1 1")
        await service.play.submit(match.id, bob, "3 3")
    assert not [s for s in seen if "member_locales" in s]  # unchanged: no statement
    with statements(engine) as seen:
        await service.play.submit(match.id, Acting(ALICE, "pt-BR"), "2 2")
    assert len([s for s in seen if "member_locales" in s]) == 1
    async with sessions() as session:
        assert await member_locale(session, ALICE) == "pt-BR"
        assert await member_locale(session, BOB) == "es-419"
    assert await languages.member(ALICE, GUILD) == "pt-BR"
