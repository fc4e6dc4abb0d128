"""Whole random matches of every game through the service: they finish, count, and never leak.

A secret may reach a public notice only once the match is over. The random players avoid the
moves that would legitimately print a secret's text in public before then (attacking the cell
of your own Crown on the other grid, guessing your own code), so any appearance is a leak.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.service.match_parts import MatchParts, match_parts
from bot.service.notices import Private, Prompt, Public, Report
from db.models import Match, PlayerStats
from games.base import Ask
from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock
from tests.wording import public_said

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("crown", {}),
    ("crown", {"hints": "auto"}),
    ("claim", {}),
    ("claim", {"size": 4, "hidden": True}),
    ("crystal", {}),
    ("flag", {}),
    ("safe", {}),
    ("safe", {"digits": 4, "length": 4, "max_guesses": 6}),
]
STEP_LIMIT = 400


def _cell_of(text: str) -> str | None:
    """``"(r,c)"`` for an action text naming a cell, as the engines print cells."""
    found = re.findall(r"\d+", text)
    return f"({found[-2]},{found[-1]})" if len(found) >= 2 else None


def _code_forms(text: str) -> set[str]:
    digits = re.sub(r"\D", "", text)
    return {"-".join(digits), " ".join(digits)}


class Secrets:
    """The secret texts of each user that must not be public yet."""

    def __init__(self) -> None:
        self.by_user: dict[int, set[str]] = {ALICE: set(), BOB: set()}

    def add(self, user: int, game: str, action_text: str) -> None:
        if game == "crown":
            cell = _cell_of(action_text)
            assert cell is not None
            self.by_user[user].add(cell)
        elif game == "safe":
            self.by_user[user] |= _code_forms(action_text)
        elif game == "flag" and action_text.upper().startswith("TRAP"):
            cell = _cell_of(action_text)
            assert cell is not None
            self.by_user[user].add(cell)

    def forget_triggered(self, lines: list[str]) -> None:
        """A triggered trap is public from then on."""
        for line in lines:
            for cell in re.findall(r"Trap triggered at (\(\d,\d\))", line):
                for cells in self.by_user.values():
                    cells.discard(cell)

    def all(self) -> set[str]:
        return set().union(*self.by_user.values())


def _choose(game: str, legal: list[str], own: set[str], rng: random.Random) -> str:
    """A random legal action, avoiding actions that would print the actor's own secret."""
    if game == "crown":
        safe_moves = [a for a in legal if _cell_of(a) not in own]
    elif game == "safe":
        safe_moves = [a for a in legal if not (_code_forms(a) & own)]
    elif game == "flag":  # stepping onto one's own trap names its cell (as any move would)
        safe_moves = [a for a in legal if _cell_of(a) not in own]
    else:
        safe_moves = legal
    return rng.choice(safe_moves or legal)


def _check_public(report: Report, secrets: Secrets, game: str) -> None:
    lines = public_said(report)
    if game == "flag":
        secrets.forget_triggered(lines)
    if report.match.over:
        return
    for line in lines:
        for secret in secrets.all():
            assert secret not in line, f"secret {secret!r} leaked in public: {line!r}"
    names = [f"@{uid}" for uid in report.match.players]
    privates = [n.event.render(names) for n in report.notices if isinstance(n, Private)]
    for text in privates:
        assert all(text not in line for line in lines)
    for prompt in (n for n in report.notices if isinstance(n, Prompt)):
        for control in games.get(prompt.match.game).choices(prompt.view):
            assert all(control.label not in line for line in lines)


async def _legal(
    sessions: async_sessionmaker[AsyncSession], match_id: int, game: str, seat: int
) -> list[str]:
    engine = games.get(game)
    async with sessions() as session:
        row = await session.get(Match, match_id)
        assert row is not None and row.state is not None
        state = engine.load(row.state)
    actions = engine.legal_actions(state, seat)
    if len(actions) > 200:  # huge code spaces: a random sample is enough
        rng = random.Random(len(actions))
        return [str(actions[rng.randrange(len(actions))]) for _ in range(200)]
    return [str(a) for a in actions]


@pytest.mark.parametrize(("game", "options"), VARIANTS, ids=lambda v: str(v))
@pytest.mark.parametrize("seed", [3, 4])
async def test_random_match_finishes_counts_and_never_leaks(
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
    game: str,
    options: dict[str, Any],
    seed: int,
) -> None:
    rng = random.Random(seed)
    service = match_parts(sessions, clock=clock, seeds=lambda: seed)
    await play_random_match(service, sessions, game, options, rng)


async def play_random_match(
    service: MatchParts,
    sessions: async_sessionmaker[AsyncSession],
    game: str,
    options: dict[str, Any],
    rng: random.Random,
) -> None:
    report = await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger_id=ALICE,
        opponent_id=BOB,
        game=game,
        options=options,
    )
    report = await service.challenges.accept(report.match.id, BOB)
    match_id = report.match.id
    secrets = Secrets()
    for _ in range(STEP_LIMIT):
        snap = report.match
        if snap.over:
            break
        user = rng.choice(snap.to_act)
        seat = snap.players.index(user)
        legal = await _legal(sessions, match_id, game, seat)
        text = _choose(game, legal, secrets.by_user[user], rng)
        if snap.asks[user] is Ask.SECRET or game == "flag":
            secrets.add(user, game, text)
        before = snap.version
        report = await service.play.submit(match_id, user, text, expected_version=before)
        assert report.match.version == before + 1
        assert all(n.match.id == match_id for n in report.notices)
        assert all(n.user_id in (ALICE, BOB) for n in report.notices if not isinstance(n, Public))
        _check_public(report, secrets, game)
    else:
        report = await service.play.resign(match_id, ALICE)

    assert report.match.status == "finished"
    ends = [n for n in report.notices if isinstance(n, Public) and n.kind == "end"]
    assert ends, "the last report announces the result"
    async with sessions() as session:
        for user in (ALICE, BOB):
            stats = await session.get(PlayerStats, (GUILD, game, user, False))
            assert stats is not None and stats.games_played == 1
