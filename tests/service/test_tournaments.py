"""Tournaments through the service with real matches: sign-up, whole events, results of every
kind, withdrawals, cancelling, and the same event picked up by a new process at any point."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable
from datetime import timedelta

import pytest
from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.service.errors import GameRefused
from bot.service.match_parts import MatchParts, match_parts
from bot.service.notices import Prompt, Public, Report
from bot.service.tournaments.refusals import (
    AlreadyEntered,
    NoSuchTournament,
    NotEntered,
    NotOrganizer,
    NoTournamentMeant,
    OpenTournamentsLimit,
    RoundsOnlyForSwiss,
    SeveralTournaments,
    TooFewPlayers,
    TournamentClosed,
    TournamentFull,
    TournamentRefused,
    TournamentStep,
)
from bot.service.tournaments.rounds import LEFT, TIMEOUTS
from bot.service.tournaments.service import TournamentService, tournament_service
from bot.service.tournaments.view import TournamentView
from db.models import Match, MatchEvent, PlayerStats
from tests.db.plans import plans_recorded
from tests.service.conftest import CHANNEL, GUILD, Clock, board_posted, deadlines_for
from tests.wording import public_said, said

ORGANIZER = 1
PLAYERS = list(range(101, 109))
THREAD = 3000
CRYSTAL_WIN = ("9", "1", "6")
"""Seat 0 takes 9, seat 1 takes 1, seat 0 takes 6: 15 points, seat 0 wins."""
CRYSTAL_LOSS = ("1", "9", "2", "6")
"""Seat 1 reaches 15 first."""
CRYSTAL_DRAW = ("1", "5", "6", "9", "7")
"""Both players would pass: a draw."""


@pytest.fixture
def tournaments(
    sessions: async_sessionmaker[AsyncSession], service: MatchParts
) -> TournamentService:
    return tournament_service(service)


async def refused(request: Awaitable[object]) -> TournamentRefused:
    """What ``request`` was refused with."""
    with pytest.raises(TournamentRefused) as refusal:
        await request
    return refusal.value


async def create(
    tournaments: TournamentService, game: str = "crystal", format: str = "swiss", **more: object
) -> TournamentView:
    return await tournaments.create(
        guild_id=GUILD,
        channel_id=CHANNEL,
        creator_id=ORGANIZER,
        may_organize=True,
        game=game,
        format=format,
        **more,  # type: ignore[arg-type]
    )


async def create_by(
    tournaments: TournamentService, creator: int, *, guild_id: int = GUILD
) -> TournamentView:
    return await tournaments.create(
        guild_id=guild_id,
        channel_id=CHANNEL,
        creator_id=creator,
        may_organize=True,
        game="crystal",
        format="swiss",
    )


async def started(
    tournaments: TournamentService,
    players: list[int],
    game: str = "crystal",
    format: str = "swiss",
    **more: object,
) -> TournamentView:
    view = await create(tournaments, game, format, **more)
    for player in players:
        await tournaments.join(view.id, player, guild_id=GUILD)
    return await tournaments.start(view.id, ORGANIZER, guild_id=GUILD, may_organize=False)


async def post_rounds(tournaments: TournamentService, tournament_id: int) -> list[Report]:
    """What the Discord side does: post each new round (its matches go in a thread), then
    start the matches of posted rounds; the matches' first reports."""
    while (number := await tournaments.progress.claim_round(tournament_id)) is not None:
        await tournaments.progress.record_round(
            tournament_id, number, THREAD + number, 9000 + number
        )
    return await tournaments.progress.start_matches(tournament_id)


async def play(service: MatchParts, report: Report, moves: tuple[str, ...]) -> Report:
    """Play ``moves`` alternately from seat 0."""
    match = report.match
    for i, move in enumerate(moves):
        report = await service.play.submit(match.id, match.players[i % 2], move)
    return report


async def stats(sessions: async_sessionmaker[AsyncSession], user: int, game: str) -> PlayerStats:
    async with sessions() as session:
        row = await session.get(PlayerStats, (GUILD, game, user, False))
        assert row is not None
        return row


# --- sign-up -------------------------------------------------------------------------------


async def test_sign_up_takes_members_once_until_full_and_start_needs_the_creator_or_an_organizer(
    tournaments: TournamentService,
) -> None:
    creating = tournaments.create(
        guild_id=GUILD,
        channel_id=CHANNEL,
        creator_id=5,
        may_organize=False,
        game="crown",
        format="swiss",
    )
    assert await refused(creating) == NotOrganizer(TournamentStep.CREATE)
    with pytest.raises(RoundsOnlyForSwiss):
        await create(tournaments, "crown", "knockout", rounds=3)
    with pytest.raises(GameRefused) as options_refused:
        await create(tournaments, "crown", "swiss", options={"hints": "never"})
    assert "hints" in str(options_refused.value.error)
    view = await create(tournaments, "crown", "knockout", options={"hints": "auto"}, max_players=3)
    assert (view.status, view.options["hints"], view.entrants) == ("signup", "auto", ())

    assert await refused(
        tournaments.start(view.id, ORGANIZER, guild_id=GUILD, may_organize=False)
    ) == TooFewPlayers(view.id)
    for player in PLAYERS[:3]:
        view = await tournaments.join(view.id, player, guild_id=GUILD)
    assert [e.user_id for e in view.entrants] == PLAYERS[:3]
    assert await refused(tournaments.join(view.id, PLAYERS[0], guild_id=GUILD)) == AlreadyEntered(
        view.id
    )
    assert await refused(tournaments.join(view.id, PLAYERS[3], guild_id=GUILD)) == TournamentFull(
        view.id
    )
    left = await tournaments.leave(view.id, PLAYERS[1], guild_id=GUILD)
    assert [e.user_id for e in left.tournament.entrants] == [PLAYERS[0], PLAYERS[2]]
    assert await refused(tournaments.leave(view.id, PLAYERS[1], guild_id=GUILD)) == NotEntered(
        view.id
    )

    assert await refused(
        tournaments.start(view.id, PLAYERS[0], guild_id=GUILD, may_organize=False)
    ) == NotOrganizer(TournamentStep.START, view.id, ORGANIZER)
    begun = await tournaments.start(view.id, PLAYERS[0], guild_id=GUILD, may_organize=True)
    assert (begun.status, begun.round, begun.rounds) == ("running", 1, 1)
    assert await refused(tournaments.join(view.id, PLAYERS[5], guild_id=GUILD)) == TournamentClosed(
        view.id, TournamentStep.JOIN
    )
    assert await refused(
        tournaments.start(view.id, ORGANIZER, guild_id=GUILD, may_organize=True)
    ) == TournamentClosed(view.id, TournamentStep.START)


async def test_a_server_and_an_organizer_have_only_a_few_tournaments_open_at_once(
    tournaments: TournamentService,
) -> None:
    mine = [await create(tournaments), await create(tournaments, "crown")]
    assert await refused(create(tournaments, "safe")) == OpenTournamentsLimit((2, 1), mine=True)
    other = await create_by(tournaments, ORGANIZER + 1)
    assert await refused(create_by(tournaments, ORGANIZER + 2)) == OpenTournamentsLimit(
        (3, 2, 1), mine=False
    )
    # Another server has its own allowance; a cancelled or finished event counts no more.
    await create_by(tournaments, ORGANIZER + 2, guild_id=GUILD + 1)
    await tournaments.cancel(mine[0].id, ORGANIZER, guild_id=GUILD, may_organize=True)
    assert (await create_by(tournaments, ORGANIZER + 2)).id > other.id


async def test_a_command_naming_no_tournament_finds_the_one_meant(
    tournaments: TournamentService,
) -> None:
    assert await refused(tournaments.find(GUILD, {CHANNEL}, ["signup"])) == NoTournamentMeant(
        entrant=False
    )
    first = await create(tournaments)
    assert (await tournaments.find(GUILD, {CHANNEL}, ["signup"])).id == first.id
    second = await create(tournaments, "crown")
    assert await refused(tournaments.find(GUILD, {CHANNEL}, ["signup"])) == SeveralTournaments(
        (second.id, first.id)
    )
    await tournaments.join(second.id, PLAYERS[0], guild_id=GUILD)
    mine = await tournaments.find(GUILD, set(), ["signup", "running"], entrant=PLAYERS[0])
    assert mine.id == second.id


async def test_the_organizer_role_is_set_changed_and_cleared_per_server(
    tournaments: TournamentService,
) -> None:
    assert await tournaments.organizer_role(GUILD) is None
    await tournaments.set_organizer_role(GUILD, 70)
    await tournaments.set_organizer_role(GUILD, 71)
    await tournaments.set_organizer_role(GUILD + 1, 80)
    assert await tournaments.organizer_role(GUILD) == 71
    assert await tournaments.clear_organizer_role(GUILD)
    assert await tournaments.organizer_role(GUILD) is None
    assert not await tournaments.clear_organizer_role(GUILD)  # nothing left to clear
    assert await tournaments.organizer_role(GUILD + 1) == 80


OTHER_GUILD = GUILD + 1


async def test_another_servers_tournament_is_refused_as_one_that_does_not_exist(
    tournaments: TournamentService, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """A member of another server (with Manage Server there) can neither see nor change a
    tournament: every use case answers as it would for a number nobody has."""
    signup = await create(tournaments)
    await tournaments.join(signup.id, PLAYERS[0], guild_id=GUILD)
    running = await started(tournaments, PLAYERS[:2])
    before = [await tournaments.view(t.id, guild_id=GUILD) for t in (signup, running)]
    missing = running.id + 100
    for number in (signup.id, running.id, missing):
        asked = [
            tournaments.view(number, guild_id=OTHER_GUILD),
            tournaments.join(number, PLAYERS[5], guild_id=OTHER_GUILD),
            tournaments.leave(number, PLAYERS[0], guild_id=OTHER_GUILD),
            tournaments.start(number, ORGANIZER, guild_id=OTHER_GUILD, may_organize=True),
            tournaments.cancel(number, ORGANIZER, guild_id=OTHER_GUILD, may_organize=True),
        ]
        for request in asked:
            assert await refused(request) == NoSuchTournament(number)
    assert [await tournaments.view(t.id, guild_id=GUILD) for t in (signup, running)] == before
    async with sessions() as session:
        assert await session.scalar(select(func.count()).select_from(Match)) == 0  # not posted


# --- whole events --------------------------------------------------------------------------


async def test_an_eight_player_swiss_of_crystal_capture_runs_to_its_winner(
    tournaments: TournamentService,
    service: MatchParts,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    view = await started(tournaments, PLAYERS)
    assert (view.rounds, view.round) == (3, 1)
    boards = 0
    while view.status == "running":
        reports = await post_rounds(tournaments, view.id)
        assert len(reports) == 4 and all(r.match.status == "active" for r in reports)
        for report in reports:
            first = report.match.players[0]
            # The lower id wins, except that one game a round is drawn.
            moves: tuple[str, ...]
            if report is reports[0]:
                moves = CRYSTAL_DRAW
            else:
                moves = CRYSTAL_WIN if first < report.match.players[1] else CRYSTAL_LOSS
            (public,) = [n for n in report.notices if isinstance(n, Public)]
            assert said(public.lines[0]).startswith(f"Tournament #{view.id}, round {view.round}:")
            assert report.match.channel_id == THREAD + view.round
            await play(service, report, moves)
            boards += 1
        assert await tournaments.progress.settle(view.id)
        assert not await tournaments.progress.settle(view.id)  # nothing more to do
        view = await tournaments.view(view.id, guild_id=GUILD)

    assert (view.status, view.round, boards) == ("finished", 3, 12)
    pairs = Counter(frozenset((f.seat0, f.seat1)) for f in view.pairings)
    assert len(pairs) == 12 and set(pairs.values()) == {1}
    # The first move went to whoever had moved first less often so far.
    balance: Counter[int] = Counter()
    for pairing in sorted(view.pairings, key=lambda p: p.round):
        assert pairing.seat1 is not None
        assert balance[pairing.seat0] <= balance[pairing.seat1]
        balance[pairing.seat0] += 1
        balance[pairing.seat1] -= 1
    table = view.table()
    assert view.winner_id == table[0].player
    assert table[0].points == max(s.points for s in table)
    assert sum(s.points for s in table) == 12
    # Tournament matches are ordinary matches: they count in the records and ratings.
    record = await stats(sessions, view.winner_id, "crystal")
    assert record.games_played == 3 and record.rating > 1500


async def test_a_drawn_knockout_match_is_replayed_with_seats_swapped_then_goes_by_rating(
    tournaments: TournamentService,
    service: MatchParts,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    low, high = PLAYERS[0], PLAYERS[1]
    async with sessions.begin() as session:
        session.add(PlayerStats(guild_id=GUILD, game="crystal", user_id=high, rating=1700.0))
    view = await started(tournaments, [low, high], format="knockout")
    (first,) = await post_rounds(tournaments, view.id)
    await play(service, first, CRYSTAL_DRAW)
    assert await tournaments.progress.settle(view.id)
    (second,) = await post_rounds(tournaments, view.id)
    assert second.match.players == first.match.players[::-1]
    (public,) = [n for n in second.notices if isinstance(n, Public)]
    assert said(public.lines[0]).startswith(f"Tournament #{view.id}, round 1, game 2:")
    await play(service, second, CRYSTAL_DRAW)
    await tournaments.progress.settle(view.id)
    view = await tournaments.view(view.id, guild_id=GUILD)
    assert (view.status, view.winner_id) == ("finished", high)
    assert not await post_rounds(tournaments, view.id)


async def test_provisional_players_are_seeded_after_the_settled_ones(
    tournaments: TournamentService, sessions: async_sessionmaker[AsyncSession], clock: Clock
) -> None:
    settled, newcomer, away, steady = PLAYERS[:4]
    now = clock()
    async with sessions.begin() as session:
        for user, rating, deviation, since in (
            (settled, 1600.0, 60.0, now),
            (newcomer, 1800.0, 200.0, now),  # rated highest, but uncertain
            (away, 1700.0, 90.0, now - timedelta(days=3 * 365)),  # uncertain again by now
            (steady, 1500.0, 70.0, now),
        ):
            session.add(
                PlayerStats(
                    guild_id=GUILD, game="crystal", user_id=user, rating=rating,
                    deviation=deviation, rated_at=since, deviation_at=since,
                )
            )  # fmt: skip
    view = await started(tournaments, [newcomer, away, steady, settled], format="knockout")
    # Seeds 1 to 4: settled, steady, then newcomer and away by rating; 1 v 4 and 2 v 3.
    assert view.round_info[1].bracket == (settled, away, steady, newcomer)
    seeded = {e.user_id: e for e in view.entrants}
    assert [seeded[u].provisional for u in (settled, newcomer, away, steady)] == [
        False, True, True, False,
    ]  # fmt: skip
    assert seeded[away].rating == 1700.0


async def test_a_round_robin_of_five_meets_everyone_once(
    tournaments: TournamentService, service: MatchParts
) -> None:
    view = await started(tournaments, PLAYERS[:5], format="round_robin")
    assert view.rounds == 5
    while view.status == "running":
        for report in await post_rounds(tournaments, view.id):
            await play(service, report, CRYSTAL_WIN)
        await tournaments.progress.settle(view.id)
        view = await tournaments.view(view.id, guild_id=GUILD)
    pairs = Counter(frozenset((f.seat0, f.seat1)) for f in view.pairings if f.seat1)
    assert len(pairs) == 10 and set(pairs.values()) == {1}
    assert Counter(f.seat0 for f in view.pairings if f.seat1 is None) == Counter(PLAYERS[:5])


# --- results of every kind ----------------------------------------------------------------


async def test_setup_timeouts_and_resignations_are_losses_and_two_timeouts_withdraw(
    tournaments: TournamentService, service: MatchParts, clock: Clock
) -> None:
    idle = PLAYERS[0]
    view = await started(tournaments, PLAYERS[:4], game="crown", rounds=3)
    reports = await post_rounds(tournaments, view.id)
    assert all(r.match.status == "setup" for r in reports)
    for report in reports:
        prompts = [n for n in report.notices if isinstance(n, Prompt)]
        assert sorted(p.user_id for p in prompts) == sorted(report.match.players)
        for player in report.match.players:
            if player == idle:
                continue
            await service.play.submit(report.match.id, player, "1 1")
        if idle not in report.match.players:  # seat 0 captures the Crown at once
            await service.play.submit(report.match.id, report.match.players[0], "1 1")
    # The idle player never chooses a secret: the setup deadline calls the match off, a loss
    # for them alone.
    clock.advance(minutes=6)
    assert await deadlines_for(service).sweep()
    assert await tournaments.progress.settle(view.id)
    view = await tournaments.view(view.id, guild_id=GUILD)
    round1 = view.pairings_of(1)
    mine = next(f for f in round1 if idle in (f.seat0, f.seat1))
    assert mine.ended and mine.lapsed[mine.seat_of(idle) or 0]
    assert mine.score0 == (0.0 if mine.seat0 == idle else 1.0)
    assert view.round == 2

    # Round 2: the idle player out of time again is withdrawn; another resigns before the start.
    reports = await post_rounds(tournaments, view.id)
    resigner = next(p for r in reports for p in r.match.players if idle not in r.match.players)
    for report in reports:
        if idle in report.match.players:
            other = next(p for p in report.match.players if p != idle)
            await service.play.submit(report.match.id, other, "2 2")
        else:
            await service.play.resign(report.match.id, resigner)
    clock.advance(minutes=6)
    await deadlines_for(service).sweep()
    await tournaments.progress.settle(view.id)
    view = await tournaments.view(view.id, guild_id=GUILD)
    withdrawn = {e.user_id: e.withdrawn for e in view.entrants if e.withdrawn}
    assert withdrawn == {idle: TIMEOUTS}
    resigned = next(f for f in view.pairings_of(2) if resigner in (f.seat0, f.seat1))
    assert resigned.score0 == (0.0 if resigned.seat0 == resigner else 1.0)
    assert resigned.lapsed == (False, False)
    # Round 3 pairs the three left: one has the bye, and the idle player is not seen again.
    round3 = view.pairings_of(3)
    assert idle not in {p for f in round3 for p in (f.seat0, f.seat1)}
    assert sum(f.seat1 is None for f in round3) == 1


async def test_results_are_read_from_the_match_columns_not_its_event_log(
    tournaments: TournamentService,
    service: MatchParts,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """Who acted and who called a match off are the match's own columns: a log without the
    events that once told them (pruned, or written by another version) changes no result."""
    view = await started(tournaments, PLAYERS[:4], game="crown")
    first, second = await post_rounds(tournaments, view.id)
    async with sessions.begin() as session:
        await session.execute(delete(MatchEvent))
        ended = {"status": "aborted", "end_reason": "timeout"}
        await session.execute(
            update(Match).where(Match.id == first.match.id).values(**ended, acted_seats=0b10)
        )
        called_off_by = second.match.players[0]
        await session.execute(
            update(Match)
            .where(Match.id == second.match.id)
            .values(status="aborted", end_reason="resign", called_off_by=called_off_by)
        )
    assert await tournaments.progress.settle(view.id)
    results = {
        f.match_id: (f.score0, f.lapsed)
        for f in (await tournaments.view(view.id, guild_id=GUILD)).pairings
    }
    # Only seat 1 acted before the setup ran out: seat 0 lost, out of time.
    assert results[first.match.id] == (0.0, (True, False))
    # Seat 0 resigned before the start: a loss for them.
    assert results[second.match.id] == (0.0, (False, False))


async def test_leaving_mid_round_resigns_the_match_and_withdraws(
    tournaments: TournamentService, service: MatchParts
) -> None:
    view = await started(tournaments, PLAYERS[:4])
    reports = await post_rounds(tournaments, view.id)
    leaver = reports[0].match.players[0]
    left = await tournaments.leave(view.id, leaver, guild_id=GUILD)
    assert left.report is not None and left.report.match.status == "finished"
    assert left.report.match.winner_id == reports[0].match.players[1]
    await play(service, reports[1], CRYSTAL_WIN)
    assert await tournaments.progress.settle(view.id)
    view = await tournaments.view(view.id, guild_id=GUILD)
    assert {e.user_id: e.withdrawn for e in view.entrants if e.withdrawn} == {leaver: LEFT}
    assert view.round == 2 and leaver not in {
        p for f in view.pairings_of(2) for p in (f.seat0, f.seat1)
    }


async def test_cancelling_calls_matches_off_without_touching_ratings(
    tournaments: TournamentService,
    service: MatchParts,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    view = await started(tournaments, PLAYERS[:4])
    reports = await post_rounds(tournaments, view.id)
    await service.play.submit(reports[0].match.id, reports[0].match.players[0], "9")
    assert await refused(
        tournaments.cancel(view.id, PLAYERS[0], guild_id=GUILD, may_organize=False)
    ) == NotOrganizer(TournamentStep.CANCEL, view.id, ORGANIZER)
    cancelled = await tournaments.cancel(view.id, ORGANIZER, guild_id=GUILD, may_organize=False)
    assert cancelled.tournament.status == "cancelled"
    assert sorted(r.match.id for r in cancelled.reports) == sorted(r.match.id for r in reports)
    for report in cancelled.reports:
        assert report.match.status == "aborted"
        assert "called off, no result" in public_said(report)[0]
    async with sessions() as session:
        assert await session.scalar(select(func.count()).select_from(PlayerStats)) == 0
    assert not await tournaments.progress.settle(view.id)
    assert not await tournaments.progress.start_matches(view.id)
    assert await refused(
        tournaments.cancel(view.id, ORGANIZER, guild_id=GUILD, may_organize=True)
    ) == TournamentClosed(view.id, TournamentStep.CANCEL)


# --- a restart at any point ---------------------------------------------------------------


async def test_a_new_process_picks_the_event_up_and_pairs_nobody_twice(
    sessions: async_sessionmaker[AsyncSession], service: MatchParts, clock: Clock
) -> None:
    def process() -> TournamentService:
        return tournament_service(match_parts(sessions, clock=clock, seeds=lambda: 1))

    first = process()
    view = await started(first, PLAYERS)
    number = await first.progress.claim_round(view.id)
    assert number == 1
    # The first process stops after claiming round 1's post: a second one may post it only
    # once the claim has run out.
    second = process()
    assert await second.progress.claim_round(view.id) is None
    clock.advance(minutes=3)
    assert await second.progress.claim_round(view.id) == 1
    await second.progress.record_round(view.id, 1, THREAD, 9001)
    # Two processes start the round's matches at once: each game gets one match.
    started_a, started_b = await asyncio.gather(
        first.progress.start_matches(view.id), second.progress.start_matches(view.id)
    )
    assert len(started_a) + len(started_b) == 4
    async with sessions() as session:
        assert await session.scalar(select(func.count()).select_from(Match)) == 4
    assert not await process().progress.start_matches(view.id)

    for report in [*started_a, *started_b]:
        await play(service, report, CRYSTAL_WIN)
    # Results are read from the matches by whichever process settles first, once.
    outcomes = await asyncio.gather(first.progress.settle(view.id), second.progress.settle(view.id))
    assert sorted(outcomes) == [False, True]
    view = await process().view(view.id, guild_id=GUILD)
    assert view.round == 2 and len(view.pairings_of(2)) == 4
    round1 = {frozenset((f.seat0, f.seat1)) for f in view.pairings_of(1)}
    round2 = {frozenset((f.seat0, f.seat1)) for f in view.pairings_of(2)}
    assert not round1 & round2


async def test_a_board_never_posted_is_posted_again_once(
    tournaments: TournamentService, clock: Clock
) -> None:
    view = await started(tournaments, PLAYERS[:2], game="crown")
    (report,) = await post_rounds(tournaments, view.id)
    # The process stopped before posting the board (no message recorded).
    assert not await tournaments.progress.unposted(view.id)
    clock.advance(minutes=3)
    assert view.id in await tournaments.progress.needing_attention()
    (again,) = await tournaments.progress.unposted(view.id)
    assert again.match.id == report.match.id
    prompts = [n for n in again.notices if isinstance(n, Prompt)]
    assert sorted(p.user_id for p in prompts) == sorted(report.match.players)
    assert not await tournaments.progress.unposted(view.id)


async def test_the_sweep_finds_only_tournaments_with_something_to_do(
    tournaments: TournamentService, service: MatchParts, clock: Clock
) -> None:
    idle = await create(tournaments)
    view = await started(tournaments, PLAYERS[:2])
    assert await tournaments.progress.needing_attention() == [view.id]  # round 1 to post
    (report,) = await post_rounds(tournaments, view.id)
    await board_posted(service, report.match.id, 1)
    assert await tournaments.progress.needing_attention() == []
    await play(service, report, CRYSTAL_WIN)
    assert await tournaments.progress.needing_attention() == [view.id]  # a result to record
    await tournaments.progress.settle(view.id)
    assert await tournaments.progress.needing_attention() == [view.id]  # the end to announce
    assert await tournaments.progress.claim_end(view.id)
    assert not await tournaments.progress.claim_end(view.id)
    assert await tournaments.progress.needing_attention() == []
    clock.advance(minutes=3)
    assert await tournaments.progress.needing_attention() == [view.id]  # the claim ran out
    await tournaments.progress.record_end(view.id)
    assert await tournaments.progress.needing_attention() == []
    assert idle.id not in await tournaments.progress.needing_attention()


async def test_several_tournaments_run_at_once_with_the_same_players(
    tournaments: TournamentService, service: MatchParts
) -> None:
    swiss = await started(tournaments, PLAYERS[:4])
    knockout = await started(tournaments, PLAYERS[:4], game="crown", format="knockout")
    swiss_matches = await post_rounds(tournaments, swiss.id)
    crown_matches = await post_rounds(tournaments, knockout.id)
    assert len(swiss_matches) == len(crown_matches) == 2
    # Each member plays one match in each; finishing the Swiss's touches the knockout not.
    for report in swiss_matches:
        await play(service, report, CRYSTAL_WIN)
    assert not await tournaments.progress.settle(knockout.id)
    assert await tournaments.progress.settle(swiss.id)
    assert (await tournaments.view(swiss.id, guild_id=GUILD)).round == 2
    assert (await tournaments.view(knockout.id, guild_id=GUILD)).round == 1
    crown = {p.match_id for p in (await tournaments.view(knockout.id, guild_id=GUILD)).pairings}
    assert {r.match.id for r in crown_matches} <= crown


async def test_no_statement_of_a_tournament_scans_a_table(
    engine: AsyncEngine,
    sessions: async_sessionmaker[AsyncSession],
    tournaments: TournamentService,
    service: MatchParts,
    clock: Clock,
) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("query plans are SQLite's (a file)")
    with plans_recorded(engine) as plans:
        view = await started(tournaments, PLAYERS[:4], game="crown")
        await tournaments.set_message(view.id, 77)
        await tournaments.progress.needing_attention()
        reports = await post_rounds(tournaments, view.id)
        await tournaments.find(GUILD, {CHANNEL}, ["running"])
        await tournaments.leave(view.id, reports[0].match.players[0], guild_id=GUILD)
        clock.advance(minutes=6)
        await deadlines_for(service).sweep()
        await tournaments.progress.settle(view.id)
        await tournaments.progress.unposted(view.id)
        await tournaments.progress.claim_end(view.id)
        await tournaments.organizer_role(GUILD)
        await tournaments.cancel(view.id, ORGANIZER, guild_id=GUILD, may_organize=True)
    assert not plans.scans, "\n".join(f"{line}: {statement}" for line, statement in plans.scans)
