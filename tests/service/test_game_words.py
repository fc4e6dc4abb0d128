"""The board's log through the match service: events are kept as their kind and data and
worded for each reader; a line an earlier release kept as text still shows."""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.i18n import speaking
from bot.service.match_parts import MatchParts
from bot.service.notices import Public
from db.models import Match
from tests.service.conftest import ALICE, BOB
from tests.service.test_matches import crown_started
from tests.wording import said, said_all


async def test_the_log_is_kept_as_data_and_read_in_each_language(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession]
) -> None:
    match_id = await crown_started(service, "1 1", "3 3")
    async with sessions() as session:
        match = await session.get(Match, match_id)
        assert match is not None and match.recent
        kept: object = match.recent[-1]  # a dict now; the column was typed for text
    assert kept == {
        "kind": "start",
        "data": {},
        "text": "Both Crowns are placed. {p0} attacks first.",
    }

    report = await service.play.submit(match_id, ALICE, "2 2")
    [public] = [notice for notice in report.notices if isinstance(notice, Public)]
    assert said_all(public.lines) == ["@11 attacks (2,2): Miss."]
    with speaking("de"):
        assert [said(line) for line in public.lines] == ["@11 greift (2,2) an: Fehlschuss."]
        assert said(report.match.history[-1]) == (
            "Beide Kronen sind versteckt. @11 greift zuerst an."
        )
    with speaking("pt-BR"):
        assert said(public.lines[0]) == "@11 ataca (2,2): erro."


async def test_a_log_line_kept_by_the_previous_release_still_shows(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession]
) -> None:
    match_id = await crown_started(service, "1 1", "3 3")
    async with sessions() as session, session.begin():
        await session.execute(
            update(Match)
            .where(Match.id == match_id)
            .values(
                recent=[
                    "{p1} has placed their Crown.",
                    "Both Crowns are placed. {p0} attacks first.",
                ]
            )
        )
    report = await service.play.submit(match_id, ALICE, "2 2")
    with speaking("fr"):
        assert [said(line) for line in report.match.history] == [
            "@22 has placed their Crown.",
            "Both Crowns are placed. @11 attacks first.",
        ]
    report = await service.play.submit(match_id, BOB, "row")
    with speaking("fr"):
        shown = [said(line) for line in report.match.history]
    assert shown[-1] == "@11 attaque (2,2) : raté."
