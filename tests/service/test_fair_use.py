"""A member's limits, and what one server's members may do to another server's matches."""

from __future__ import annotations

import pytest

from bot.service.errors import Limit, LimitReached, MatchNotFound, NoMatch, NotAsked, WrongStatus
from bot.service.limits import MAX_PAIR_CHALLENGES, MAX_PLAYING
from bot.service.match_parts import MatchParts
from bot.service.notices import Report
from games.base import Ask
from tests.service.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, Clock

OTHER_GUILD = GUILD + 1
BOT = 99


async def challenge(
    service: MatchParts, challenger: int, opponent: int, game: str = "crystal"
) -> Report:
    return await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger_id=challenger,
        opponent_id=opponent,
        game=game,
    )


async def test_matches_against_the_bot_count_towards_a_members_matches(
    service: MatchParts,
) -> None:
    service.runner.know_bot(BOT)
    for _ in range(MAX_PLAYING):
        await challenge(service, ALICE, BOT)
    for opponent in (BOT, BOB):
        with pytest.raises(LimitReached) as refused:
            await challenge(service, ALICE, opponent)
        assert refused.value == LimitReached(Limit.PLAYING, MAX_PLAYING)


async def test_a_member_at_the_limit_cannot_accept_another_match(service: MatchParts) -> None:
    service.runner.know_bot(BOT)
    waiting = await challenge(service, ALICE, BOB)
    for _ in range(MAX_PLAYING):
        await challenge(service, BOB, BOT)
    with pytest.raises(LimitReached) as refused:
        await service.challenges.accept(waiting.match.id, BOB)
    assert refused.value == LimitReached(Limit.PLAYING_TO_ACCEPT, MAX_PLAYING)
    assert (await service.lookups.snapshot(waiting.match.id)).status == "challenged"


async def test_one_member_challenges_another_a_few_times_per_ten_minutes(
    service: MatchParts, clock: Clock
) -> None:
    for _ in range(MAX_PAIR_CHALLENGES):
        report = await challenge(service, ALICE, BOB)
        await service.challenges.withdraw(report.match.id, ALICE)
    with pytest.raises(LimitReached) as refused:
        await challenge(service, ALICE, BOB)
    assert refused.value == LimitReached(Limit.SAME_OPPONENT, MAX_PAIR_CHALLENGES, 10)
    await challenge(service, ALICE, CAROL)  # another member is fine
    clock.advance(minutes=10, seconds=1)
    await challenge(service, ALICE, BOB)


async def test_another_servers_match_is_answered_as_if_it_did_not_exist(
    service: MatchParts,
) -> None:
    report = await challenge(service, ALICE, BOB)
    match_id = report.match.id
    for use_case in (
        service.challenges.accept,
        service.challenges.decline,
        service.challenges.withdraw,
        service.play.resign,
    ):
        with pytest.raises(MatchNotFound) as refused:
            await use_case(match_id, BOB, guild_id=OTHER_GUILD)
        assert refused.value == NoMatch(match_id)
    with pytest.raises(MatchNotFound):
        await service.play.submit(match_id, BOB, "5", guild_id=OTHER_GUILD)
    with pytest.raises(MatchNotFound):
        await service.challenges.rematch(match_id, BOB, guild_id=OTHER_GUILD)
    assert (await service.lookups.snapshot(match_id)).status == "challenged"
    await service.challenges.accept(match_id, BOB, guild_id=GUILD)


async def test_a_command_move_during_setup_names_the_dm_and_places_nothing(
    service: MatchParts,
) -> None:
    report = await challenge(service, ALICE, BOB, game="crown")
    await service.challenges.accept(report.match.id, BOB)
    with pytest.raises(WrongStatus) as refused:
        await service.play.play_in_channel(GUILD, CHANNEL, "crown", ALICE, "2 2")
    assert refused.value == NotAsked(Ask.SECRET, "crown")
    snap = await service.lookups.snapshot(report.match.id)
    assert snap.status == "setup" and set(snap.to_act) == {ALICE, BOB}


async def test_another_servers_match_is_not_shown_or_prompted(service: MatchParts) -> None:
    report = await challenge(service, ALICE, BOB, game="crown")
    await service.challenges.accept(report.match.id, BOB)
    with pytest.raises(MatchNotFound):
        await service.lookups.snapshot(report.match.id, guild_id=OTHER_GUILD)
    with pytest.raises(MatchNotFound):
        await service.lookups.prompt(report.match.id, ALICE, guild_id=OTHER_GUILD)
    assert (await service.lookups.prompt(report.match.id, ALICE, guild_id=GUILD)).user_id == ALICE
