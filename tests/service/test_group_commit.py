"""Group commit: moves that arrive together share one transaction, and lose nothing by it.

On a SQLite file the batches run on one writer thread; on PostgreSQL on an async session, the
matches' rows locked. These tests drive the service as players would: many matches moving at
once.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.errors import ChallengeRefused, InvalidMove, NotYourTurn
from bot.matches import (
    BATCHES_IN_FLIGHT,
    INLINE_BATCH,
    MAX_OPEN_CHALLENGES,
    MatchService,
    batches_in_flight,
)
from db import batch
from db import writer as writer_module
from db.models import MatchEvent
from db.writer import has_writer, writer_for
from tests.service.conftest import CHANNEL, GUILD, Clock

Sessions = async_sessionmaker[AsyncSession]
MATCHES = 12
CHALLENGER = 7_000


async def crown_matches(service: MatchService, count: int) -> list[tuple[int, int, int]]:
    """``count`` Crown matches between players of their own, both secrets chosen:
    ``(match id, first player, second player)``, the first to attack."""
    started = []
    for number in range(count):
        challenger, opponent = 100 + 2 * number, 101 + 2 * number
        report = await service.challenge(
            guild_id=GUILD,
            channel_id=CHANNEL,
            challenger_id=challenger,
            opponent_id=opponent,
            game="crown",
        )
        report = await service.accept(report.match.id, opponent)
        first, second = report.match.players
        await service.submit(report.match.id, first, "1 1")
        await service.submit(report.match.id, second, "2 2")
        started.append((report.match.id, first, second))
    return started


async def actions_logged(sessions: Sessions) -> int:
    """How many actions the logs hold, over every match."""
    async with sessions() as session:
        count = await session.scalar(
            select(func.count()).where(MatchEvent.kind.startswith("action:"))
        )
    return count or 0


@pytest.fixture
def grouped(service: MatchService) -> MatchService:
    assert service.group_commits  # the default
    return service


def count_transactions(service: MatchService) -> list[int]:
    """Counts the commits of the service's writes from now on (one item per commit)."""
    engine = service._engine
    assert engine is not None
    commits: list[int] = []
    targets = writer_for(engine).engines if has_writer(engine) else (engine.sync_engine,)
    for target in targets:
        event.listen(target, "commit", lambda connection: commits.append(1))
    return commits


async def test_moves_arriving_together_share_a_transaction(
    grouped: MatchService, sessions: Sessions
) -> None:
    matches = await crown_matches(grouped, MATCHES)
    commits = count_transactions(grouped)
    before = await actions_logged(sessions)

    reports = await asyncio.gather(
        *(grouped.submit(match_id, first, "3 3") for match_id, first, _ in matches)
    )

    assert all(r.match.version == reports[0].match.version for r in reports)
    assert 1 <= len(commits) < MATCHES
    assert await actions_logged(sessions) == before + MATCHES
    for report, (_, _, second) in zip(reports, matches, strict=True):
        assert report.match.to_act == (second,)


async def test_a_refused_move_in_a_batch_leaves_the_others_applied(
    grouped: MatchService, sessions: Sessions
) -> None:
    matches = await crown_matches(grouped, 4)
    before = await actions_logged(sessions)
    moves = [
        (matches[0][1], "3 3"),
        (matches[1][1], "9 9"),  # off the board
        (matches[2][2], "3 3"),  # not this player's turn
        (matches[3][1], "3 3"),
    ]

    answers = await asyncio.gather(
        *(
            grouped.submit(match_id, user, text)
            for (match_id, _, _), (user, text) in zip(matches, moves, strict=True)
        ),
        return_exceptions=True,
    )

    assert isinstance(answers[1], InvalidMove) and isinstance(answers[2], NotYourTurn)
    for answer, (_, _, second) in zip(answers[::3], matches[::3], strict=True):
        assert not isinstance(answer, BaseException) and answer.match.to_act == (second,)
    for match_id, first, _ in matches[1:3]:
        assert (await grouped.snapshot(match_id)).to_act == (first,)  # as it was
    assert await actions_logged(sessions) == before + 2


async def test_a_batch_that_fails_runs_every_move_alone(
    grouped: MatchService, sessions: Sessions, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As if another process had moved one of the matches between the read and the write."""
    matches = await crown_matches(grouped, 5)
    real = batch.write_matches
    lost: list[int] = []

    def lose_the_first_race(
        connection: Any, changes: Sequence[batch.MatchChange], now: datetime
    ) -> int | None:
        applied = real(connection, changes, now)
        if not lost:  # one of the updates found its match moved on
            lost.append(len(changes))
            return len(changes) - 1
        return applied

    monkeypatch.setattr(batch, "write_matches", lose_the_first_race)
    before = await actions_logged(sessions)

    reports = await asyncio.gather(
        *(grouped.submit(match_id, first, "3 3") for match_id, first, _ in matches)
    )

    assert lost and lost[0] > 1  # the first batch held several moves, and was rolled back
    assert [r.match.to_act for r in reports] == [(second,) for _, _, second in matches]
    assert await actions_logged(sessions) == before + len(matches)  # nothing twice


async def test_a_double_click_in_one_batch_plays_once(
    grouped: MatchService, sessions: Sessions
) -> None:
    """The two clicks never share a batch: the second sees the first's move."""
    [(match_id, first, second)] = await crown_matches(grouped, 1)
    before = await actions_logged(sessions)

    answers = await asyncio.gather(
        grouped.submit(match_id, first, "3 3"),
        grouped.submit(match_id, first, "3 3"),
        return_exceptions=True,
    )

    played = [a for a in answers if not isinstance(a, BaseException)]
    refused = [a for a in answers if isinstance(a, BaseException)]
    assert len(played) == 1 and played[0].match.to_act == (second,)
    assert len(refused) == 1 and isinstance(refused[0], NotYourTurn)
    assert await actions_logged(sessions) == before + 1


async def test_without_group_commits_each_use_case_commits_alone(
    sessions: Sessions, clock: Clock
) -> None:
    service = MatchService(sessions, clock=clock, seeds=lambda: 1, group_commits=False)
    [(match_id, first, second)] = await crown_matches(service, 1)
    report = await service.submit(match_id, first, "3 3")
    assert report.match.to_act == (second,)


async def test_a_members_challenges_sent_at_once_keep_to_the_limit(
    grouped: MatchService,
) -> None:
    """Whichever batches they land in (several run at once on PostgreSQL)."""
    answers = await asyncio.gather(
        *(
            grouped.challenge(
                guild_id=GUILD,
                channel_id=CHANNEL,
                challenger_id=CHALLENGER,
                opponent_id=CHALLENGER + 1 + n,
                game="claim",
            )
            for n in range(6)
        ),
        return_exceptions=True,
    )
    refused = [a for a in answers if isinstance(a, ChallengeRefused)]
    assert len(refused) == 3 and len(answers) - len(refused) == MAX_OPEN_CHALLENGES


def test_batches_in_flight_by_database(grouped: MatchService) -> None:
    engine = grouped._engine
    assert engine is not None
    expected = 1 if engine.dialect.name == "sqlite" else BATCHES_IN_FLIGHT
    assert batches_in_flight(engine) == expected


async def test_a_small_batch_holds_the_event_loop_a_large_one_goes_to_the_writers_thread(
    grouped: MatchService, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = grouped._engine
    assert engine is not None
    if not has_writer(engine):
        pytest.skip("a SQLite file's writer only")
    # No checkpoint: while one runs, even a small batch waits for it on the writer's thread.
    monkeypatch.setattr(writer_module, "CHECKPOINT_INTERVAL", float("inf"))
    matches = await crown_matches(grouped, INLINE_BATCH + 4)
    threads: list[str] = []
    for target in writer_for(engine).engines:
        event.listen(target, "commit", lambda _: threads.append(threading.current_thread().name))

    await grouped.submit(*matches[0][:2], "3 3")
    assert threads == [threading.current_thread().name]

    threads.clear()
    await asyncio.gather(*(grouped.submit(m, first, "3 3") for m, first, _ in matches[1:]))
    assert len(threads) == 1 and threads[0].startswith("parlor-sqlite")
