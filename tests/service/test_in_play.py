"""Which matches and channels are still in play: what a process may forget of the others."""

from __future__ import annotations

from bot.service.match_parts import MatchParts
from db.matches import IN_CHUNK
from tests.service.conftest import CHANNEL, GUILD

OTHER_CHANNEL = CHANNEL + 1
QUIET_CHANNEL = CHANNEL + 2


async def crystal(service: MatchParts, channel: int, first: int) -> int:
    report = await service.challenges.challenge(
        guild_id=GUILD, channel_id=channel, challenger_id=first, opponent_id=first + 1,
        game="crystal",
    )  # fmt: skip
    await service.challenges.accept(report.match.id, first + 1)
    return report.match.id


async def test_only_matches_not_over_and_their_channels_are_in_play(
    service: MatchParts,
) -> None:
    playing = await crystal(service, CHANNEL, 100)
    resigned = await crystal(service, OTHER_CHANNEL, 200)
    await service.play.resign(resigned, 200)
    withdrawn = await service.challenges.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=300, opponent_id=301, game="crown"
    )
    await service.challenges.withdraw(withdrawn.match.id, 300)
    asked = [playing, resigned, withdrawn.match.id, 999]
    live, busy = await service.lookups.in_play(asked, [CHANNEL, OTHER_CHANNEL, QUIET_CHANNEL])
    assert live == {playing}
    assert busy == {CHANNEL}


async def test_long_lists_are_read_in_chunks(service: MatchParts) -> None:
    playing = await crystal(service, CHANNEL, 100)
    many = range(1, 3 * IN_CHUNK)
    live, busy = await service.lookups.in_play([*many, playing], [*many, CHANNEL])
    assert live == {playing} and busy == {CHANNEL}
