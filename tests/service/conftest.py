"""A match service on the test database, with a clock the tests move by hand."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.deadlines import Deadlines
from bot.service.match_parts import MatchParts, match_parts
from bot.service.outbox import Outbox
from bot.service.servers import ServerService

GUILD, CHANNEL = 1000, 2000
ALICE, BOB, CAROL = 11, 22, 33


class Clock:
    """A hand-wound clock: ``advance`` is the only way time passes."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> None:
        self.now += timedelta(**kwargs)


@pytest.fixture
def clock() -> Clock:
    return Clock()


def seeds_from(values: Iterator[int]) -> itertools.cycle[int]:
    return itertools.cycle(values)


@pytest.fixture
def service(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> MatchParts:
    # Seed 1: Random(1).randrange(2) == 0, so the challenger sits in seat 0 and moves first.
    return match_parts(sessions, clock=clock, seeds=lambda: 1, mention=lambda uid: f"@{uid}")


def deadlines_for(service: MatchParts) -> Deadlines:
    """The deadline use cases on the same database, clock and settings as ``service``."""
    return service.deadlines


def servers_for(service: MatchParts) -> ServerService:
    """Stats and settings on the same database, clock and settings as ``service``."""
    runner = service.runner
    return ServerService(runner.sessions, clock=runner.clock, timeouts=runner.defaults)


def outbox_for(service: MatchParts) -> Outbox:
    return Outbox(service.runner.sessions, clock=service.runner.clock)


async def board_posted(service: MatchParts, match_id: int, message_id: int) -> None:
    """The match's board was posted as ``message_id``, as the Discord side records it."""
    outbox = outbox_for(service)
    outbox.board_moved(match_id, message_id)
    await outbox.flush()
