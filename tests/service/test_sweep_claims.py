"""Several processes sweeping one database at once: every deadline fires once, and only the
sweep that fired it reports it (so its result is posted once)."""

from __future__ import annotations

import asyncio
from collections import Counter

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.match_parts import MatchParts, match_parts
from tests.service.conftest import CHANNEL, GUILD, Clock, deadlines_for

MATCHES = 30
SWEEPERS = 3


async def open_matches(service: MatchParts) -> dict[int, str]:
    """Matches with every kind of deadline, by id: a challenge, a setup, a turn."""
    kinds: dict[int, str] = {}
    for n in range(MATCHES):
        challenger, opponent = 1000 + 2 * n, 1001 + 2 * n
        game = ("crown", "crystal")[n % 2]
        report = await service.challenges.challenge(
            guild_id=GUILD,
            channel_id=CHANNEL,
            challenger_id=challenger,
            opponent_id=opponent,
            game=game,
        )
        match_id = report.match.id
        if n % 3:
            await service.challenges.accept(match_id, opponent)
        kinds[match_id] = (await service.lookups.snapshot(match_id)).status
    return kinds


async def test_concurrent_sweeps_fire_each_deadline_once(
    sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    first = match_parts(sessions, clock=clock, seeds=lambda: 1)
    kinds = await open_matches(first)
    assert set(kinds.values()) == {"challenged", "setup", "active"}
    versions = {match_id: (await first.lookups.snapshot(match_id)).version for match_id in kinds}
    clock.advance(hours=1)
    sweepers = [match_parts(sessions, clock=clock, seeds=lambda: 1) for _ in range(SWEEPERS)]

    batches = await asyncio.gather(
        *(deadlines_for(sweeper).sweep(limit=MATCHES) for sweeper in sweepers)
    )

    fired = Counter(report.match.id for batch in batches for report in batch)
    assert fired == Counter(dict.fromkeys(kinds, 1))
    for match_id, version in versions.items():
        after = await first.lookups.snapshot(match_id)
        assert after.version == version + 1, f"match {match_id} was written more than once"
        assert after.over
    again = await asyncio.gather(*(deadlines_for(sweeper).sweep() for sweeper in sweepers))
    assert again == [[]] * SWEEPERS


async def test_a_sweep_takes_at_most_its_limit(
    sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    service = match_parts(sessions, clock=clock, seeds=lambda: 1)
    kinds = await open_matches(service)
    clock.advance(hours=1)
    assert len(await deadlines_for(service).sweep(limit=7)) == 7
    assert len(await deadlines_for(service).sweep()) == len(kinds) - 7
