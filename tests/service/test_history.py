"""After the game: history pages with rating changes, the review kept once computed, the replay
and the plain-text record, and each refused while the match is in play or asked from elsewhere."""

from __future__ import annotations

import random

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import games
from bot.chat.after_game.records import record
from bot.i18n import speaking
from bot.service.errors import NoFinishedMatch, StillInPlay
from bot.service.match_parts import MatchParts, match_parts
from bot.service.member_history import PAGE_SIZE, HistoryService
from bot.service.replays import Replays
from db.models import Match, MatchPlayer, MatchReview, RatingChange
from games.board import Mark
from games.review import Mark as ReviewMark
from games.review import worded
from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock
from tests.service.test_matches import challenge, start

PARLOR = 99
NAMES = {ALICE: "Alice", BOB: "Bob"}
OTHER_GUILD = GUILD + 1


@pytest.fixture
def service(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> MatchParts:
    return match_parts(
        sessions,
        clock=clock,
        seeds=lambda: 1,
        mention=lambda uid: f"@{uid}",
        bot_user_id=PARLOR,
        names=lambda guild, uid: NAMES.get(uid) if guild == GUILD else None,
    )


@pytest.fixture
def replays(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> Replays:
    return Replays(sessions, clock=clock)


@pytest.fixture
def histories(sessions: async_sessionmaker[AsyncSession], clock: Clock) -> HistoryService:
    return HistoryService(sessions, clock=clock)


async def crown_won_by_alice(service: MatchParts, clock: Clock) -> int:
    """The rule book's short Crown game: Alice's Crown at (3,3), Bob's at (2,1); Alice wins."""
    match_id = await start(service)
    for user, text in (
        (ALICE, "3 3"),
        (BOB, "2 1"),
        (ALICE, "2 2"),
        (BOB, "column"),
        (BOB, "1 3"),
        (ALICE, "row"),
        (ALICE, "2 1"),
    ):
        clock.advance(seconds=5)
        report = await service.play.submit(match_id, user, text)
    assert report.match.status == "finished" and report.match.winner_id == ALICE
    return match_id


async def test_a_rated_match_keeps_both_rating_changes_and_names(
    service: MatchParts,
    histories: HistoryService,
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
) -> None:
    match_id = await crown_won_by_alice(service, clock)
    async with sessions() as session:
        changes = (
            await session.scalars(select(RatingChange).where(RatingChange.match_id == match_id))
        ).all()
        names = dict(
            (
                await session.execute(
                    select(MatchPlayer.user_id, MatchPlayer.display_name).where(
                        MatchPlayer.match_id == match_id
                    )
                )
            ).all()
        )
    by_user = {change.user_id: change for change in changes}
    assert set(by_user) == {ALICE, BOB}
    assert by_user[ALICE].rating_before == by_user[BOB].rating_before == 1500.0
    assert by_user[ALICE].rating_after > 1500.0 > by_user[BOB].rating_after
    assert by_user[ALICE].deviation_after < by_user[ALICE].deviation_before
    assert names == {ALICE: "Alice", BOB: "Bob"}

    page = await histories.history(GUILD, ALICE)
    [past] = page.matches
    assert (past.id, past.opponent_id, past.result, past.game) == (match_id, BOB, "win", "crown")
    assert past.rating_change is not None and past.rating_change > 0
    assert past.channel_id == CHANNEL and not page.more
    [lost] = (await histories.history(GUILD, BOB)).matches
    assert lost.result == "loss" and lost.rating_change is not None and lost.rating_change < 0
    assert (await histories.history(OTHER_GUILD, ALICE)).matches == ()
    assert (await histories.history(GUILD, ALICE, "safe")).matches == ()

    series = await histories.rating_series(GUILD, ALICE)
    assert list(series) == ["crown"]
    [point] = series["crown"]
    assert point.rating == by_user[ALICE].rating_after
    assert await histories.rating_series(OTHER_GUILD, ALICE) == {}
    [first, second] = await histories.top_ratings(GUILD, "crown")
    assert (first.user_id, second.user_id, first.name) == (ALICE, BOB, "Alice")


async def test_history_pages_newest_first(
    service: MatchParts, histories: HistoryService, clock: Clock
) -> None:
    played = []
    for _ in range(PAGE_SIZE + 2):
        match_id = await start(service, "crystal")
        clock.advance(seconds=1)
        await service.play.resign(match_id, BOB)
        played.append(match_id)
    first = await histories.history(GUILD, ALICE)
    assert [m.id for m in first.matches] == played[::-1][:PAGE_SIZE] and first.more
    second = await histories.history(GUILD, ALICE, page=1)
    assert [m.id for m in second.matches] == played[::-1][PAGE_SIZE:] and not second.more
    assert all(m.result == "win" and m.end_reason == "resign" for m in first.matches)


async def test_the_review_is_computed_once_and_kept(
    service: MatchParts,
    replays: Replays,
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
) -> None:
    match_id = await crown_won_by_alice(service, clock)
    shown = await replays.review(GUILD, match_id)
    review = shown.review
    assert shown.title == "Capture the Crown" and shown.match.names == ("Alice", "Bob")
    assert review.exact and review.outcome.winner == 0
    for summary in review.players:
        assert summary.skill is not None and 0 <= summary.skill <= 99
        assert summary.luck is not None and 0 <= summary.luck <= 99
        assert summary.best_move is not None  # no worst move when every move was best
    assert [move.action for move in review.moves][-1] == "2 1"
    assert all(move.knowledge.text for move in review.moves)
    async with sessions() as session:
        stored = await session.get(MatchReview, match_id)
        assert stored is not None
        kept_at = stored.created_at
    clock.advance(minutes=5)
    again = await replays.review(GUILD, match_id)
    assert again.review == review
    async with sessions() as session:
        count = await session.scalar(select(func.count()).select_from(MatchReview))
        stored = await session.get(MatchReview, match_id)
    assert count == 1 and stored is not None and stored.created_at == kept_at


async def test_the_replay_shows_each_step_and_both_secrets(
    service: MatchParts, replays: Replays, clock: Clock
) -> None:
    match_id = await crown_won_by_alice(service, clock)
    replay = await replays.replay(GUILD, match_id)
    assert len(replay.steps) == 8  # the start and seven actions
    # The steps are the game's data (its actions and events), worded by whoever reads them.
    names = ("@11", "@22")
    moves = [
        None if step.action is None else replay.game.word(step.action) for step in replay.steps
    ]
    assert moves[0] is None and moves[1] == "Crown at (3,3)"
    assert replay.steps[1].seat == 0 and moves[2] == "Crown at (2,1)"
    assert any("Miss" in event.render(names) for event in replay.steps[3].events)
    last = replay.steps[-1].board
    assert sum(cell.mark in (Mark.CROWN, Mark.HIT) for cell in last.cells) == 2
    secrets = [event.render(names) for event in replay.secrets]
    assert any("(3,3)" in text and "(2,1)" in text for text in secrets)
    assert any("@11" in e.render(names) for step in replay.steps for e in step.events)


async def test_the_record_lists_players_options_moves_marks_and_result(
    service: MatchParts, replays: Replays, clock: Clock
) -> None:
    match_id = await crown_won_by_alice(service, clock)
    name, text = record(await replays.review(GUILD, match_id))
    assert name == f"parlor-match-{match_id}-crown.txt"
    lines = text.splitlines()
    assert lines[0] == f"Parlor · Capture the Crown · match #{match_id}"
    assert "Players: Alice (moved first) and Bob" in lines
    assert any(line.startswith("Options: ") and "hints" in line for line in lines)
    assert any("Alice: attack (2,2)" in line and "[" in line for line in lines)
    marks = {mark.value for mark in ReviewMark}
    assert any(any(f"[{mark}]" in line for mark in marks) for line in lines)
    assert "Result: Alice won (capture)" in lines
    assert any(line.startswith("Alice: skill ") for line in lines)


async def test_a_match_in_play_is_refused_without_a_word_of_its_secrets(
    service: MatchParts, replays: Replays, sessions: async_sessionmaker[AsyncSession]
) -> None:
    match_id = await start(service)
    await service.play.submit(match_id, ALICE, "3 3")
    await service.play.submit(match_id, BOB, "2 1")
    for ask in (replays.review, replays.replay):  # a record is written from the review
        with pytest.raises(StillInPlay) as refused:
            await ask(GUILD, match_id)
        assert refused.value == StillInPlay(match_id)  # the match's number, nothing of its play
    async with sessions() as session:
        assert await session.scalar(select(func.count()).select_from(MatchReview)) == 0
    waiting = (await challenge(service)).match.id
    with pytest.raises(StillInPlay) as refused:
        await replays.review(GUILD, waiting)
    assert refused.value == StillInPlay(waiting)


async def test_another_servers_match_is_answered_as_if_it_did_not_exist(
    service: MatchParts, replays: Replays, clock: Clock
) -> None:
    match_id = await crown_won_by_alice(service, clock)
    for ask in (replays.review, replays.replay):  # a record is written from the review
        with pytest.raises(NoFinishedMatch) as elsewhere:
            await ask(OTHER_GUILD, match_id)
        with pytest.raises(NoFinishedMatch) as nowhere:
            await ask(GUILD, match_id + 1000)
        assert elsewhere.value == NoFinishedMatch(match_id)
        assert nowhere.value == NoFinishedMatch(match_id + 1000)
    with pytest.raises(NoFinishedMatch):
        await replays.review(GUILD, 2**40)


async def test_a_resigned_match_and_a_match_against_the_bot_are_reviewed(
    service: MatchParts,
    replays: Replays,
    histories: HistoryService,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    resigned = await start(service, "crystal")
    await service.play.submit(resigned, ALICE, "5")
    await service.play.resign(resigned, BOB)
    shown = await replays.review(GUILD, resigned)
    assert shown.review.outcome.winner == 0 and shown.review.players[0].luck is None
    steps = (await replays.replay(GUILD, resigned)).steps
    ending = [event.render(("@11", "@22")) for event in steps[-1].events]
    assert steps[-1].seat is None and any("resign" in text for text in ending)

    report = await service.challenges.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger_id=ALICE,
        opponent_id=PARLOR,
        game="crown",
        opponent_is_bot=True,
    )
    rng = random.Random(3)
    engine = games.get("crown")
    while not report.match.over:
        async with sessions() as session:
            row = await session.get(Match, report.match.id)
            assert row is not None and row.state is not None
        seat = report.match.players.index(ALICE)
        legal = engine.legal_actions(engine.load(row.state), seat)
        report = await service.play.submit(report.match.id, ALICE, str(rng.choice(legal)))
    versus = await replays.review(GUILD, report.match.id)
    bot_seat = report.match.players.index(PARLOR)
    assert versus.review.players[bot_seat].moves > 0
    _, text = record(await replays.review(GUILD, report.match.id))
    assert "Parlor" in text.splitlines()[2]
    [latest, *_] = (await histories.history(GUILD, ALICE)).matches
    assert latest.id == report.match.id and latest.vs_bot and latest.rating_change is None


async def test_a_review_is_judged_once_for_every_language_and_worded_by_each_reader(
    service: MatchParts,
    replays: Replays,
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
) -> None:
    match_id = await crown_won_by_alice(service, clock)
    with speaking("de"):
        german = await replays.review(GUILD, match_id, ALICE)
    with speaking("fr"):
        french = await replays.review(GUILD, match_id, BOB)
    english = await replays.review(GUILD, match_id)
    assert replays.reviewer.computed == 1  # a second language does not judge the match again
    assert german.review == french.review == english.review
    with speaking("de"):
        in_german = worded(german.review)
    with speaking("fr"):
        in_french = worded(french.review)
    assert worded(english.review).moves[0].move == "attack (2,2)"
    assert in_german.moves[0].move == "(2,2) angreifen"
    assert in_french.moves[0].move == "attaquer (2,2)"
    assert "Angriff" in in_german.moves[0].knowledge.text
    # Kept with its words as phrases: a process that starts afresh reads it in any language.
    async with sessions() as session:
        stored = await session.get(MatchReview, match_id)
    assert stored is not None and stored.review["moves"][0]["move"]["msgid"] == "attack {cell}"
    afresh = Replays(sessions, clock=clock)
    with speaking("de"):
        again = worded((await afresh.review(GUILD, match_id, ALICE)).review)
    assert afresh.reviewer.computed == 0 and again == in_german
