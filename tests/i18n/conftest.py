"""What the text tests share: a hand-wound clock, and the match service on the test's database,
mentioning members as Discord does and knowing the bot's id and the players' names."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.match_parts import MatchParts, match_parts
from tests.service.conftest import GUILD, Clock
from tests.service.test_history import NAMES, PARLOR


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> MatchParts:
    return match_parts(
        sessions,
        clock=clock,
        seeds=lambda: 1,
        mention=lambda uid: f"<@{uid}>",
        bot_user_id=PARLOR,
        names=lambda guild, uid: NAMES.get(uid) if guild == GUILD else None,
    )
