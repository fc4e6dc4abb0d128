"""Matches against the built-in player: they start at once, the bot answers in the same step."""

from __future__ import annotations

import random

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.service.errors import InvalidMove, LevelVsBotOnly, UnknownLevel
from bot.service.match_parts import MatchParts, match_parts
from bot.service.notices import Private, Prompt, Report
from db.match_events import get_events
from db.models import Match, PlayerStats
from games.base import Ask
from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock, servers_for

PARLOR = 99


@pytest.fixture
def service(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> MatchParts:
    return match_parts(
        sessions, clock=clock, seeds=lambda: 1, mention=lambda uid: f"@{uid}", bot_user_id=PARLOR
    )


async def versus_bot(service: MatchParts, game: str, level: str | None = None) -> Report:
    return await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger_id=ALICE,
        opponent_id=PARLOR,
        game=game,
        opponent_is_bot=True,
        level=level,
    )


async def play_out(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession], report: Report
) -> Report:
    """Alice plays random legal actions until the match ends; the bot answers by itself."""
    rng = random.Random(5)
    engine = games.get(report.match.game)
    for _ in range(300):
        if report.match.over:
            return report
        assert report.match.to_act == (ALICE,), "the bot never leaves a turn waiting"
        assert not any(
            isinstance(n, Private | Prompt) and n.user_id == PARLOR for n in report.notices
        )
        async with sessions() as session:
            row = await session.get(Match, report.match.id)
            assert row is not None and row.state is not None
            state = engine.load(row.state)
        seat = report.match.players.index(ALICE)
        legal = engine.legal_actions(state, seat)
        action = legal[rng.randrange(len(legal))]
        report = await service.play.submit(report.match.id, ALICE, str(action))
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("game", sorted(games.GAMES))
async def test_a_match_against_the_bot_starts_at_once_and_ends(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession], game: str
) -> None:
    report = await versus_bot(service, game, "hard")
    assert report.match.status in ("setup", "active")
    assert report.match.vs_bot and set(report.match.players) == {ALICE, PARLOR}
    if games.get(game).has_secrets and report.match.status == "setup":
        [prompt] = [n for n in report.notices if isinstance(n, Prompt)]
        assert prompt.user_id == ALICE and prompt.ask is Ask.SECRET
    report = await play_out(service, sessions, report)
    assert report.match.status == "finished"


async def test_bot_matches_count_apart_and_never_move_ratings(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession]
) -> None:
    report = await play_out(service, sessions, await versus_bot(service, "crystal", "easy"))
    assert report.match.over
    record = await servers_for(service).member_record(GUILD, ALICE)
    assert [(line.game, line.vs_bot) for line in record.lines] == [("crystal", True)]
    assert (await servers_for(service).leaderboards(GUILD, "crystal", 10))["crystal"].empty
    async with sessions() as session:
        row = await session.get(PlayerStats, (GUILD, "crystal", ALICE, True))
        assert row is not None and row.rating == 1500 and row.deviation == 500
        assert await session.get(PlayerStats, (GUILD, "crystal", PARLOR, True)) is None


async def test_levels_are_checked(service: MatchParts) -> None:
    with pytest.raises(InvalidMove) as refused:
        await versus_bot(service, "crown", "grandmaster")
    assert refused.value == UnknownLevel("grandmaster", ("easy", "normal", "hard"))
    with pytest.raises(LevelVsBotOnly):
        await service.challenges.challenge(
            guild_id=GUILD,
            channel_id=CHANNEL,
            challenger_id=ALICE,
            opponent_id=BOB,
            game="crown",
            level="hard",
        )


async def test_hard_crown_bot_finds_the_crown_within_four_attacks(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession]
) -> None:
    for crown in ("1 1", "2 2", "3 2"):
        report = await versus_bot(service, "crown", "hard")
        match_id = report.match.id
        report = await service.play.submit(match_id, ALICE, crown)
        # Alice attacks in reading order and always gives the row hint.
        targets = iter(f"{r} {c}" for r in (1, 2, 3) for c in (1, 2, 3))
        while not report.match.over:
            move = "row" if report.match.asks.get(ALICE) is Ask.HINT else next(targets)
            report = await service.play.submit(match_id, ALICE, move)
        assert report.match.over
        async with sessions() as session:
            events = await get_events(session, match_id)
        bot_seat = report.match.players.index(PARLOR)
        attacks = [e for e in events if e.kind == "action:action" and e.seat == bot_seat]
        assert len(attacks) <= 4
