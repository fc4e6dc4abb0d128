"""Which matches and channels are still in play: what a process may forget of the others."""

from __future__ import annotations

from bot.service.matches import MatchService
from db.matches import IN_CHUNK
from tests.service.conftest import CHANNEL, GUILD

OTHER_CHANNEL = CHANNEL + 1
QUIET_CHANNEL = CHANNEL + 2


async def crystal(service: MatchService, channel: int, first: int) -> int:
    report = await service.challenge(
        guild_id=GUILD, channel_id=channel, challenger_id=first, opponent_id=first + 1,
        game="crystal",
    )  # fmt: skip
    await service.accept(report.match.id, first + 1)
    return report.match.id


async def test_only_matches_not_over_and_their_channels_are_in_play(
    service: MatchService,
) -> None:
    playing = await crystal(service, CHANNEL, 100)
    resigned = await crystal(service, OTHER_CHANNEL, 200)
    await service.resign(resigned, 200)
    withdrawn = await service.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=300, opponent_id=301, game="crown"
    )
    await service.withdraw(withdrawn.match.id, 300)
    asked = [playing, resigned, withdrawn.match.id, 999]
    live, busy = await service.in_play(asked, [CHANNEL, OTHER_CHANNEL, QUIET_CHANNEL])
    assert live == {playing}
    assert busy == {CHANNEL}


async def test_long_lists_are_read_in_chunks(service: MatchService) -> None:
    playing = await crystal(service, CHANNEL, 100)
    many = range(1, 3 * IN_CHUNK)
    live, busy = await service.in_play([*many, playing], [*many, CHANNEL])
    assert live == {playing} and busy == {CHANNEL}
