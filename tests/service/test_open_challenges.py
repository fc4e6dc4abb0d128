"""Open challenges: any member but the challenger may accept, the first Accept wins, and the
limits hold for them as for challenges by name."""

from __future__ import annotations

import asyncio

import pytest

from bot.service.errors import (
    ChallengeTaken,
    LevelVsBotOnly,
    Limit,
    LimitReached,
    NotOpen,
    NotYourMatch,
    OpenNotDeclined,
    OwnOpenChallenge,
    WrongStatus,
)
from bot.service.limits import CHANNEL_OPEN_CHALLENGES, MAX_OPEN_CHALLENGES, MAX_PAIR_CHALLENGES
from bot.service.match_parts import MatchParts
from bot.service.notices import Public, Report
from db.models import OPEN_OPPONENT
from tests.service.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, Clock, deadlines_for
from tests.service.processes import at_once, postgresql_only
from tests.wording import said_all

DAVE = 44


async def post(
    service: MatchParts, challenger: int = ALICE, channel: int = CHANNEL, **options: object
) -> Report:
    return await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=channel,
        challenger_id=challenger,
        opponent_id=None,
        game="claim",
        options=options,
    )


async def test_any_member_but_the_challenger_takes_an_open_challenge(
    service: MatchParts,
) -> None:
    report = await post(service, size=4, hidden=True)
    snap = report.match
    assert snap.opponent_id == OPEN_OPPONENT and snap.status == "challenged"
    (line,) = said_all(next(n for n in report.notices if isinstance(n, Public)).lines)
    assert line.startswith("@11 posts an open challenge to Number Claim") and "anyone" in line
    with pytest.raises(OwnOpenChallenge):
        await service.challenges.accept(snap.id, ALICE)
    with pytest.raises(OpenNotDeclined):
        await service.challenges.decline(snap.id, BOB)
    started = await service.challenges.accept(snap.id, CAROL)
    assert started.match.opponent_id == CAROL
    assert set(started.match.players) == {ALICE, CAROL}
    assert started.match.options == {"size": 4, "hidden": True}
    with pytest.raises(WrongStatus) as refused:
        await service.challenges.accept(snap.id, BOB)
    assert refused.value == ChallengeTaken(CAROL)


async def test_two_accepts_at_once_start_one_match(service: MatchParts) -> None:
    snap = (await post(service)).match
    results = await asyncio.gather(
        service.challenges.accept(snap.id, BOB),
        service.challenges.accept(snap.id, CAROL),
        return_exceptions=True,
    )
    started = [r for r in results if isinstance(r, Report)]
    refused = [r for r in results if isinstance(r, WrongStatus)]
    assert len(started) == 1 and len(refused) == 1
    winner = started[0].match.opponent_id
    assert refused[0] == ChallengeTaken(winner)
    assert (await service.lookups.snapshot(snap.id)).players in ((ALICE, winner), (winner, ALICE))


async def test_an_open_challenge_expires_and_may_be_withdrawn(
    service: MatchParts, clock: Clock
) -> None:
    first = (await post(service)).match
    clock.advance(minutes=16)
    (expired,) = await deadlines_for(service).sweep()
    assert expired.match.status == "aborted"
    (line,) = said_all(next(n for n in expired.notices if isinstance(n, Public)).lines)
    assert line == "The open challenge from @11 expired: nobody took it."
    with pytest.raises(NotOpen):
        await service.challenges.accept(first.id, BOB)
    second = (await post(service)).match
    with pytest.raises(NotYourMatch):
        await service.challenges.withdraw(second.id, BOB)
    withdrawn = await service.challenges.withdraw(second.id, ALICE)
    assert withdrawn.match.status == "aborted"


async def test_open_challenges_count_towards_the_challengers_limits(
    service: MatchParts, clock: Clock
) -> None:
    for channel in range(MAX_OPEN_CHALLENGES):
        await post(service, channel=CHANNEL + channel)
    with pytest.raises(LimitReached) as refused:
        await service.challenges.challenge(
            guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB, game="claim"
        )
    assert refused.value == LimitReached(Limit.OPEN_CHALLENGES, MAX_OPEN_CHALLENGES)


async def test_open_challenges_nobody_takes_are_few_per_ten_minutes(
    service: MatchParts, clock: Clock
) -> None:
    for channel in range(MAX_PAIR_CHALLENGES):
        posted = await post(service, channel=CHANNEL + channel)
        await service.challenges.withdraw(posted.match.id, ALICE)
    with pytest.raises(LimitReached) as refused:
        await post(service, channel=CHANNEL + 9)
    assert refused.value == LimitReached(Limit.UNTAKEN_OPEN, MAX_PAIR_CHALLENGES, 10)
    await service.challenges.challenge(  # a challenge by name is its own count
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB, game="claim"
    )


async def test_a_channel_takes_a_few_open_challenges_a_minute(
    service: MatchParts, clock: Clock
) -> None:
    members = [ALICE, BOB, CAROL, DAVE]
    for member in members[:CHANNEL_OPEN_CHALLENGES]:
        posted = await post(service, challenger=member)
        await service.challenges.accept(posted.match.id, DAVE if member != DAVE else ALICE)
    with pytest.raises(LimitReached) as refused:
        await post(service, challenger=DAVE)
    assert refused.value == LimitReached(Limit.CHANNEL_OPEN, CHANNEL_OPEN_CHALLENGES)
    await post(service, challenger=DAVE, channel=CHANNEL + 1)  # another channel is free
    clock.advance(minutes=1, seconds=1)
    await post(service, challenger=DAVE)


async def test_a_level_stays_for_the_bot(service: MatchParts) -> None:
    with pytest.raises(LevelVsBotOnly):
        await service.challenges.challenge(
            guild_id=GUILD,
            channel_id=CHANNEL,
            challenger_id=ALICE,
            opponent_id=None,
            game="claim",
            level="hard",
        )


async def test_two_processes_accepting_at_once_start_one_match(
    service: MatchParts, database_url: str
) -> None:
    url = postgresql_only(database_url)
    for _ in range(3):
        snap = (await post(service, challenger=ALICE)).match
        match = str(snap.id)
        answers = await at_once(url, ("accept", match, str(BOB)), ("accept", match, str(CAROL)))
        assert [a for a in answers if "started" in a] == [{"started": snap.id}]
        (refusal,) = [a["refused"] for a in answers if "refused" in a]
        taker = (await service.lookups.snapshot(snap.id)).opponent_id
        assert taker in (BOB, CAROL) and f"<@{taker}> took this challenge first" in refusal
        await service.play.resign(snap.id, ALICE)
