"""The upgrade to 0012 keeps a match waiting for a secret, and starts with nothing awaited by DM:
a prompt asked before it is answered as before, one asked after it is read at a start until
its match no longer waits for it, and a typed DM is taken once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import MetaData, Table, func, insert, select, text

import games
from bot.service.acting import Acting
from bot.service.dm_answers import Awaited, AwaitedAnswers
from bot.service.match_parts import match_parts
from db.engine import create_engine, session_factory
from db.migrate import upgrade
from db.models import Base, DmAnswer, DmPrompt
from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock

PREVIOUS = "0011"
THEN = datetime(2026, 1, 1, 11, 0, tzinfo=UTC)
MATCH, DM_CHANNEL, PROMPT = 7, 5000, 6000


async def test_0012_keeps_a_match_waiting_for_a_secret_and_awaits_nothing_yet(
    database_url: str,
) -> None:
    engine = create_engine(database_url)
    crown = games.get("crown")
    state = crown.new({}, 1)
    state, _events = crown.apply(state, 0, crown.parse(state, 0, "1 1"))  # Alice's Crown only
    try:
        async with engine.begin() as connection:
            await connection.run_sync(Base.metadata.drop_all)
            await connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
        await upgrade(engine, PREVIOUS)
        async with engine.begin() as connection:
            tables = await connection.run_sync(
                lambda sync: {
                    name: Table(name, MetaData(), autoload_with=sync)
                    for name in ("matches", "match_players")
                }
            )
            await connection.execute(
                insert(tables["matches"]).values(
                    id=MATCH, guild_id=GUILD, channel_id=CHANNEL, game="crown",
                    options=crown.options(state), seed=1, state=crown.dump(state),
                    status="setup", version=3, deadline=THEN + timedelta(hours=1),
                    deadline_kind="setup", challenger_id=ALICE, opponent_id=BOB, vs_bot=False,
                    message_id=555, created_at=THEN, updated_at=THEN, origin="named",
                )
            )  # fmt: skip
            await connection.execute(
                insert(tables["match_players"]),
                [{"match_id": MATCH, "seat": 0, "user_id": ALICE},
                 {"match_id": MATCH, "seat": 1, "user_id": BOB}],
            )  # fmt: skip

        await upgrade(engine)

        sessions = session_factory(engine)
        clock = Clock()
        service = match_parts(sessions, clock=clock)
        answers = AwaitedAnswers(sessions, service.lookups, clock=clock)
        assert await answers.awaited() == []  # nothing was noted before the upgrade

        # Asked again after the upgrade: awaited while the match waits for Bob's Crown.
        await answers.asked(MATCH, BOB, DM_CHANNEL, PROMPT)
        assert await answers.awaited() == [Awaited(MATCH, BOB, DM_CHANNEL, PROMPT)]
        assert await answers.take(PROMPT + 1)
        assert not await answers.take(PROMPT + 1)  # a second start, or the live event

        report = await service.play.submit(MATCH, Acting(BOB, None), "3 3")
        assert report.match.status == "active"
        assert await answers.awaited() == []  # answered: forgotten
        async with sessions() as session:
            assert await session.scalar(select(func.count()).select_from(DmPrompt)) == 0
            assert await session.scalar(select(func.count()).select_from(DmAnswer)) == 1
    finally:
        await engine.dispose()
