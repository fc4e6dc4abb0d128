"""Whole matches through the match service with plain objects: lifecycle, refusals, timeouts."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.service.errors import (
    AlreadyPlayed,
    BotAccount,
    ChallengeStep,
    InvalidMove,
    Limit,
    LimitReached,
    MatchNotFound,
    MovedOn,
    NoMatchHere,
    NotAsked,
    NotYourMatch,
    NotYourTurn,
    OnlyMember,
    OthersTurn,
    SelfChallenge,
    WrongStatus,
)
from bot.service.match_parts import MatchParts, match_parts
from bot.service.notices import Private, Prompt, Public, Report
from db.match_events import get_events
from db.models import MatchEvent, PlayerStats
from games.base import Ask
from tests.service.conftest import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    Clock,
    deadlines_for,
    servers_for,
)
from tests.wording import public_said, said


async def challenge(service: MatchParts, game: str = "crown", **options: object) -> Report:
    return await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger_id=ALICE,
        opponent_id=BOB,
        game=game,
        options=options,
    )


async def start(service: MatchParts, game: str = "crown", **options: object) -> int:
    """A match Alice challenged Bob to and Bob accepted; Alice moves first (seed 1)."""
    report = await challenge(service, game, **options)
    await service.challenges.accept(report.match.id, BOB)
    return report.match.id


async def crown_started(service: MatchParts, alice_crown: str, bob_crown: str) -> int:
    match_id = await start(service)
    await service.play.submit(match_id, ALICE, alice_crown)
    report = await service.play.submit(match_id, BOB, bob_crown)
    assert report.match.status == "active"
    return match_id


async def stats_of(sessions: async_sessionmaker[AsyncSession], user: int) -> PlayerStats:
    async with sessions() as session:
        row = await session.get(PlayerStats, (GUILD, "crown", user, False))
        assert row is not None
        return row


# ---------------------------------------------------------------------- the whole lifecycle


async def test_crown_match_from_challenge_to_result(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession]
) -> None:
    report = await challenge(service)
    assert report.match.status == "challenged"
    [post] = report.notices
    assert isinstance(post, Public) and post.kind == "challenge"
    assert "@22" in said(post.lines[0]) and "Capture the Crown" in said(post.lines[0])

    report = await service.challenges.accept(report.match.id, BOB)
    match_id = report.match.id
    assert report.match.status == "setup"
    assert report.match.players == (ALICE, BOB)
    assert "Coin toss: @11 moves first" in public_said(report)[0]
    prompts = [n for n in report.notices if isinstance(n, Prompt)]
    assert {(p.user_id, p.ask) for p in prompts} == {(ALICE, Ask.SECRET), (BOB, Ask.SECRET)}

    report = await service.play.submit(match_id, ALICE, "3 3")
    assert report.match.status == "setup"
    assert not any("(3,3)" in line for line in public_said(report))
    told = [
        n.event.render(("@11", "@22")) for n in report.for_user(ALICE) if isinstance(n, Private)
    ]
    assert any("(3,3)" in text for text in told)
    assert report.for_user(BOB) == []

    report = await service.play.submit(match_id, BOB, "2 1")
    assert report.match.status == "active"
    assert report.match.to_act == (ALICE,)

    report = await service.play.submit(match_id, ALICE, "2 2")
    assert any("Miss" in line for line in public_said(report))
    [hint_prompt] = [n for n in report.notices if isinstance(n, Prompt)]
    assert hint_prompt.user_id == BOB and hint_prompt.ask is Ask.HINT
    hints = tuple(games.get("crown").choices(hint_prompt.view))
    assert len(hints) == 2
    assert report.match.to_act == (BOB,) and report.match.asks[BOB] is Ask.HINT
    # The two true hints locate Bob's Crown: they are for Bob only, never in public.
    for hint in hints:
        assert all(hint.label not in line for line in public_said(report))

    report = await service.play.submit(match_id, BOB, "column")
    assert any("column" in line and "less than 2" in line for line in public_said(report))
    report = await service.play.submit(match_id, BOB, "1 3")
    report = await service.play.submit(match_id, ALICE, "row")
    report = await service.play.submit(match_id, ALICE, "2 1")

    assert report.match.status == "finished"
    assert report.match.winner_id == ALICE and report.match.end_reason == "capture"
    end = [n for n in report.notices if isinstance(n, Public)]
    assert end and end[-1].kind == "end"
    assert any("(3,3)" in line for line in public_said(report))  # secrets revealed at the end

    alice, bob = await stats_of(sessions, ALICE), await stats_of(sessions, BOB)
    assert (alice.wins, alice.losses, alice.streak) == (1, 0, 1)
    assert (bob.wins, bob.losses, bob.streak) == (0, 1, -1)
    assert alice.rating > 1500 > bob.rating


async def test_every_step_is_logged_in_order(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession]
) -> None:
    match_id = await crown_started(service, "1 1", "3 3")
    await service.play.submit(match_id, ALICE, "3 3")
    async with sessions() as session:
        seqs = (
            await session.scalars(
                select(MatchEvent.seq)
                .where(MatchEvent.match_id == match_id)
                .order_by(MatchEvent.id)
            )
        ).all()
    assert seqs == sorted(seqs) and len(seqs) == len(set(seqs)) > 4


# ---------------------------------------------------------------------- who may do what


async def test_challenge_refusals(service: MatchParts) -> None:
    with pytest.raises(SelfChallenge):
        await service.challenges.challenge(
            guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=ALICE, game="crown"
        )
    with pytest.raises(BotAccount):
        await service.challenges.challenge(
            guild_id=GUILD,
            channel_id=CHANNEL,
            challenger_id=ALICE,
            opponent_id=BOB,
            game="crown",
            opponent_is_bot=True,
        )
    with pytest.raises(InvalidMove):
        await challenge(service, hints="sometimes")
    for _ in range(3):
        await challenge(service)
    with pytest.raises(LimitReached) as refused:
        await challenge(service)
    assert refused.value == LimitReached(Limit.OPEN_CHALLENGES, 3)


async def test_only_the_right_member_answers_a_challenge(service: MatchParts) -> None:
    match_id = (await challenge(service)).match.id
    with pytest.raises(NotYourMatch) as refused:
        await service.challenges.accept(match_id, CAROL)
    assert refused.value == OnlyMember(BOB, ChallengeStep.ANSWER)
    with pytest.raises(NotYourMatch):
        await service.challenges.accept(match_id, ALICE)
    with pytest.raises(NotYourMatch):
        await service.challenges.withdraw(match_id, BOB)
    with pytest.raises(NotYourMatch):
        await service.challenges.decline(match_id, ALICE)
    report = await service.challenges.withdraw(match_id, ALICE)
    assert report.match.status == "aborted"
    with pytest.raises(WrongStatus):
        await service.challenges.accept(match_id, BOB)


async def test_decline(service: MatchParts) -> None:
    match_id = (await challenge(service)).match.id
    report = await service.challenges.decline(match_id, BOB)
    assert report.match.status == "aborted" and report.match.end_reason == "declined"


async def test_refused_moves_change_nothing(service: MatchParts) -> None:
    match_id = await crown_started(service, "1 1", "3 3")
    before = await service.lookups.snapshot(match_id)
    with pytest.raises(NotYourMatch):
        await service.play.submit(match_id, CAROL, "2 2")
    with pytest.raises(NotYourTurn) as refused:
        await service.play.submit(match_id, BOB, "2 2")
    assert refused.value == OthersTurn(ALICE, Ask.ACTION)
    with pytest.raises(InvalidMove, match="1-3"):
        await service.play.submit(match_id, ALICE, "4 1")
    with pytest.raises(InvalidMove):
        await service.play.submit(match_id, ALICE, "banana")
    with pytest.raises(MatchNotFound):
        await service.play.submit(987654, ALICE, "2 2")
    after = await service.lookups.snapshot(match_id)
    assert after.version == before.version and after.public_view == before.public_view


async def test_secret_cannot_be_changed(service: MatchParts) -> None:
    match_id = await start(service)
    await service.play.submit(match_id, ALICE, "1 1")
    with pytest.raises((InvalidMove, NotYourTurn)):
        await service.play.submit(match_id, ALICE, "2 2")


async def test_resign_active_loses_and_resign_setup_aborts(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession]
) -> None:
    match_id = await start(service)
    report = await service.play.resign(match_id, BOB)
    assert report.match.status == "aborted"
    async with sessions() as session:
        assert await session.get(PlayerStats, (GUILD, "crown", BOB, False)) is None

    match_id = await crown_started(service, "1 1", "3 3")
    report = await service.play.resign(match_id, BOB)
    assert report.match.status == "finished"
    assert report.match.winner_id == ALICE and report.match.end_reason == "resign"
    assert any("(1,1)" in line and "(3,3)" in line for line in public_said(report))
    with pytest.raises(WrongStatus):
        await service.play.submit(match_id, ALICE, "2 2")
    with pytest.raises(WrongStatus):
        await service.play.resign(match_id, ALICE)


async def test_rematch_offers_the_same_game_again(service: MatchParts) -> None:
    match_id = await start(service, "crown", hints="auto")
    await service.play.resign(match_id, ALICE)
    with pytest.raises(NotYourMatch):
        await service.challenges.rematch(match_id, CAROL)
    report = await service.challenges.rematch(match_id, BOB)
    assert report.match.status == "challenged"
    assert (report.match.challenger_id, report.match.opponent_id) == (BOB, ALICE)
    assert report.match.options == {"hints": "auto"}


async def test_slash_commands_resolve_to_the_callers_match(service: MatchParts) -> None:
    with pytest.raises(MatchNotFound) as refused:
        await service.lookups.find_match(GUILD, CHANNEL, "crown", ALICE)
    assert refused.value == NoMatchHere("crown", 0)
    match_id = await crown_started(service, "1 1", "3 3")
    assert await service.lookups.find_match(GUILD, CHANNEL, "crown", ALICE) == match_id
    assert await service.lookups.find_match(GUILD, CHANNEL, "crown", BOB) == match_id
    with pytest.raises(MatchNotFound):
        await service.lookups.find_match(GUILD, CHANNEL + 1, "crown", ALICE)


# ---------------------------------------------------------------------- deadlines


async def test_challenge_expires_once(service: MatchParts, clock: Clock) -> None:
    match_id = (await challenge(service)).match.id
    clock.advance(minutes=4)
    assert await deadlines_for(service).sweep() == []
    clock.advance(minutes=2)
    [report] = await deadlines_for(service).sweep()
    assert report.match.id == match_id and report.match.status == "aborted"
    assert "expired" in public_said(report)[0]
    assert await deadlines_for(service).sweep() == []


async def test_setup_timeout_aborts_without_a_result(
    service: MatchParts, clock: Clock, sessions: async_sessionmaker[AsyncSession]
) -> None:
    match_id = await start(service)
    await service.play.submit(match_id, ALICE, "1 1")
    clock.advance(minutes=6)
    [report] = await deadlines_for(service).sweep()
    assert report.match.status == "aborted" and report.match.end_reason == "timeout"
    assert "@22" in public_said(report)[0]
    async with sessions() as session:
        assert await session.get(PlayerStats, (GUILD, "crown", ALICE, False)) is None


async def test_turn_timeout_forfeits(
    service: MatchParts, clock: Clock, sessions: async_sessionmaker[AsyncSession]
) -> None:
    match_id = await crown_started(service, "1 1", "3 3")
    clock.advance(minutes=9)
    await service.play.submit(
        match_id, ALICE, "2 2"
    )  # the move resets Alice's clock, hint is Bob's
    await service.play.submit(match_id, BOB, "row")
    clock.advance(minutes=11)
    [report] = await deadlines_for(service).sweep()
    assert report.match.status == "finished" and report.match.end_reason == "timeout"
    assert report.match.winner_id == ALICE  # Bob was to act and ran out of time
    assert (await stats_of(sessions, BOB)).losses == 1


async def test_hint_timeout_gives_the_least_helpful_hint(service: MatchParts, clock: Clock) -> None:
    match_id = await crown_started(service, "1 1", "3 1")
    await service.play.submit(
        match_id, ALICE, "1 1"
    )  # miss: Bob's Crown is below and left... or same col
    clock.advance(minutes=3)
    [report] = await deadlines_for(service).sweep()
    assert report.match.status == "active" and report.match.to_act == (BOB,)
    assert any(
        "did not answer in time, so I chose for them" in line for line in public_said(report)
    )
    # Crown (3,1) after an attack on (1,1): "row greater than 1" leaves 6 cells, "column equal
    # to 1" leaves 2 (the attacked cell excluded): the bot gives the row hint.
    assert any("row is greater than 1" in line for line in public_said(report))


async def test_a_deadline_missed_while_down_fires_once_on_restart(
    sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    first = match_parts(sessions, clock=clock, seeds=lambda: 1)
    match_id = (await challenge(first)).match.id
    clock.advance(hours=2)
    second = match_parts(sessions, clock=clock, seeds=lambda: 1)
    third = match_parts(sessions, clock=clock, seeds=lambda: 1)
    import asyncio

    results = await asyncio.gather(deadlines_for(second).sweep(), deadlines_for(third).sweep())
    fired = [r for batch in results for r in batch]
    assert [r.match.id for r in fired] == [match_id]


# ---------------------------------------------------------------------- races and restarts


async def test_fifty_identical_clicks_apply_once(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession]
) -> None:
    import asyncio

    match_id = await crown_started(service, "1 1", "3 3")
    seen = (await service.lookups.snapshot(match_id)).version
    async with sessions() as session:
        events_before = await session.scalar(
            select(func.count()).select_from(MatchEvent).where(MatchEvent.match_id == match_id)
        )
    assert events_before is not None

    async def click() -> str:
        try:
            await service.play.submit(match_id, ALICE, "2 2", expected_version=seen)
        except AlreadyPlayed as error:
            return repr(error)
        return "applied"

    results = await asyncio.gather(*(click() for _ in range(50)))
    assert results.count("applied") == 1
    assert all(r == repr(MovedOn()) for r in results if r != "applied")
    after = await service.lookups.snapshot(match_id)
    assert after.version == seen + 1
    async with sessions() as session:
        events_after = await session.scalar(
            select(func.count()).select_from(MatchEvent).where(MatchEvent.match_id == match_id)
        )
    assert events_after == events_before + 2  # the attack and its one "Miss" event


async def test_a_new_engine_continues_the_match(database_url: str, clock: Clock) -> None:
    from db.engine import create_engine, session_factory

    engine = create_engine(database_url)
    service = match_parts(session_factory(engine), clock=clock, seeds=lambda: 1)
    match_id = await crown_started(service, "1 1", "3 3")
    await service.play.submit(match_id, ALICE, "2 2")
    await engine.dispose()

    engine = create_engine(database_url)
    service = match_parts(session_factory(engine), clock=clock, seeds=lambda: 1)
    try:
        report = await service.play.submit(match_id, BOB, "column")
        assert report.match.to_act == (BOB,)
        report = await service.play.submit(match_id, BOB, "1 1")
        assert report.match.status == "finished" and report.match.winner_id == BOB
    finally:
        await engine.dispose()


async def test_the_event_log_keeps_a_trap_cell_private(
    service: MatchParts, sessions: async_sessionmaker[AsyncSession]
) -> None:
    import json

    match_id = await start(service, "flag")
    await service.play.submit(match_id, ALICE, "TRAP 3 3")
    async with sessions() as session:
        events = await get_events(session, match_id)
    public = [json.dumps(e.payload) for e in events if e.audience is None]
    assert public and all("3 3" not in text and "(3,3)" not in text for text in public)
    assert any("3 3" in json.dumps(e.payload) for e in events if e.audience == 0)


async def test_a_servers_own_timeouts_set_the_deadlines(
    service: MatchParts, clock: Clock, sessions: async_sessionmaker[AsyncSession]
) -> None:
    timeouts = await servers_for(service).set_server_timeouts(GUILD, {"challenge": 120, "turn": 45})
    assert (timeouts.challenge, timeouts.turn, timeouts.setup) == (120, 45, 300)
    report = await challenge(service)
    assert report.match.deadline == clock() + timedelta(seconds=120)
    match_id = await crown_started(service, "1 1", "3 3")
    await service.play.submit(match_id, ALICE, "2 2")  # a miss: Bob gives a hint, then Bob moves
    report = await service.play.submit(match_id, BOB, "row")
    assert report.match.deadline_kind == "turn"
    assert report.match.deadline == clock() + timedelta(seconds=45)


@pytest.mark.parametrize("game, secret", [("crown", "1 1"), ("safe", "213")])
async def test_a_secret_sent_again_during_play_is_refused_and_plays_nothing(
    service: MatchParts, game: str, secret: str
) -> None:
    """Typed again (the member saw no answer), a secret must not become a public move."""
    match_id = await start(service, game)
    await service.play.submit(match_id, ALICE, secret, answering={Ask.SECRET})
    report = await service.play.submit(match_id, BOB, "3 3" if game == "crown" else "321")
    assert report.match.status == "active" and report.match.to_act == (ALICE,)

    for answering in ({Ask.SECRET}, {Ask.SECRET, Ask.HINT}):
        with pytest.raises(WrongStatus) as refused:
            await service.play.submit(match_id, ALICE, secret, answering=answering)
        assert refused.value == NotAsked(Ask.ACTION, game)
        assert secret not in str(refused.value)
    after = await service.lookups.snapshot(match_id)
    assert (after.version, after.to_act) == (report.match.version, (ALICE,))


async def test_a_move_is_not_taken_as_the_secret_that_is_asked(service: MatchParts) -> None:
    match_id = await start(service)
    with pytest.raises(WrongStatus) as refused:
        await service.play.submit(match_id, ALICE, "1 1", answering={Ask.ACTION})
    assert refused.value == NotAsked(Ask.SECRET, "crown")
    assert (await service.lookups.snapshot(match_id)).status == "setup"
