"""The match service's parts, each use case on its own, built in one place: the wiring, the
tests and the benchmarks build them the same way (``match_parts``)."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.service.challenges import Challenges
from bot.service.deadlines import Deadlines
from bot.service.languages import Languages
from bot.service.lookups import Lookups
from bot.service.match_state import Clock, Names, default_mention, no_names
from bot.service.observers import TransactionObserver
from bot.service.organizing import Organizing
from bot.service.play import Play
from bot.service.quick_pair import QuickPair
from bot.service.runner import MatchRunner
from bot.service.steps import Steps
from bot.service.timeouts import Timeouts
from db.models import utcnow


@dataclass(frozen=True)
class MatchParts:
    """Every use case of a match, over one runner (its transaction, clock and settings)."""

    runner: MatchRunner
    steps: Steps
    challenges: Challenges
    play: Play
    lookups: Lookups
    organizing: Organizing
    queue: QuickPair
    deadlines: Deadlines


def match_parts(
    sessions: async_sessionmaker[AsyncSession],
    *,
    clock: Clock = utcnow,
    seeds: Callable[[], int] = lambda: secrets.randbits(62),
    mention: Callable[[int], str] = default_mention,
    timeouts: Timeouts | None = None,
    names: Names = no_names,
    languages: Languages | None = None,
    bot_user_id: int | None = None,
    shards: Sequence[int] = (0,),
    shard_count: int = 1,
    observer: TransactionObserver | None = None,
) -> MatchParts:
    """The match service on ``sessions``. ``bot_user_id`` is the bot's own, when known
    already (else ``MatchRunner.know_bot`` once it has logged in); ``shards`` are the gateway
    shards of ``shard_count`` whose deadlines this process gives back after downtime;
    ``observer`` hears how long each transaction took."""
    runner = MatchRunner(
        sessions,
        clock=clock,
        seeds=seeds,
        mention=mention,
        timeouts=timeouts,
        names=names,
        languages=languages,
        observer=observer,
    )
    if bot_user_id is not None:
        runner.know_bot(bot_user_id)
    steps = Steps(runner)
    challenges = Challenges(runner, steps)
    organizing = Organizing(runner, steps)
    return MatchParts(
        runner=runner,
        steps=steps,
        challenges=challenges,
        play=Play(runner, steps),
        lookups=Lookups(runner, steps),
        organizing=organizing,
        queue=QuickPair(runner, organizing, challenges),
        deadlines=Deadlines(runner, steps, shards=shards, shard_count=shard_count),
    )
