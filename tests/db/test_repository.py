"""Every query of a match, its events, deadlines, outbox, records, settings and the bot's values,
on the test database (SQLite, or PostgreSQL when configured)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db import deadlines
from db.bot_meta import get_meta, set_meta
from db.match_events import append_events, get_events
from db.matches import (
    MatchContext,
    MatchRow,
    channel_matches,
    insert_match,
    load_match,
    save_match,
    seat_players,
    set_message_id,
    unfinished_matches,
)
from db.member_load import MemberLoad, member_load
from db.member_matches import member_matches
from db.models import Match, MatchPlayer, MatchStatus, PlayerStats
from db.records import leaderboard_rows, lock_records, record, save_records
from db.server_timeouts import server_timeouts, set_server_timeouts

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
GUILD, OTHER_GUILD = 1_100_000_000_000_000_001, 1_100_000_000_000_000_002
CHANNEL, OTHER_CHANNEL = 2_200_000_000_000_000_001, 2_200_000_000_000_000_002
ALICE, BOB, CAROL = 3_300_000_000_000_000_001, 3_300_000_000_000_000_002, 3_300_000_000_000_000_003

Sessions = async_sessionmaker[AsyncSession]


async def add_match(
    sessions: Sessions,
    challenger: int = ALICE,
    opponent: int = BOB,
    *,
    seated: bool = True,
    **values: Any,
) -> Match:
    """Store a match (seating the challenger in seat 0 unless ``seated`` is false)."""
    fields: dict[str, Any] = {
        "guild_id": GUILD,
        "channel_id": CHANNEL,
        "game": "crown",
        "seed": 42,
        "challenger_id": challenger,
        "opponent_id": opponent,
        "created_at": NOW,
        "updated_at": NOW,
    }
    fields.update(values)
    async with sessions.begin() as session:
        match = Match(**fields)
        session.add(match)
        await session.flush()
        if seated:
            session.add_all(
                [
                    MatchPlayer(match_id=match.id, seat=0, user_id=challenger),
                    MatchPlayer(match_id=match.id, seat=1, user_id=opponent),
                ]
            )
    return match


def ids(found: list[MatchContext]) -> list[int]:
    return [context.match.id for context in found]


async def stored(sessions: Sessions, match_id: int) -> MatchRow:
    async with sessions() as session:
        context = await load_match(session, match_id)
    assert context is not None
    return context.match


# ---------------------------------------------------------------- matches and players


async def test_load_match_reads_settings_players_and_last_event_together(
    sessions: Sessions,
) -> None:
    unseated = await add_match(sessions, seated=False)
    match = await add_match(sessions, BOB, ALICE, options={"hints": "auto"})
    async with sessions.begin() as session:
        await set_server_timeouts(session, GUILD, {"turn": 120}, NOW)
        await append_events(session, match.id, 0, [(None, "a", None, {}), (0, "b", 0, {})], NOW)

    async with sessions() as session:
        context = await load_match(session, match.id, for_update=True)
        bare = await load_match(session, unseated.id)
        missing = await load_match(session, 987654)
    assert context is not None and bare is not None and missing is None
    assert context.match.id == match.id and context.players == [BOB, ALICE]
    assert context.match.options == {"hints": "auto"}
    assert context.settings is not None and context.settings.turn_timeout == 120
    assert context.last_seq == 2
    assert bare.players == [] and bare.last_seq == 0


async def test_insert_match_and_seat_players(sessions: Sessions) -> None:
    values = {
        "guild_id": GUILD,
        "channel_id": CHANNEL,
        "game": "safe",
        "options": {"digits": 3},
        "seed": 7,
        "state": None,
        "status": "challenged",
        "version": 0,
        "challenger_id": ALICE,
        "opponent_id": BOB,
        "vs_bot": False,
        "created_at": NOW,
        "updated_at": NOW,
    }
    async with sessions.begin() as session:
        match_id = await insert_match(session, values)
        await seat_players(session, match_id, [BOB, ALICE])
        await set_message_id(session, match_id, 555)
    async with sessions() as session:
        context = await load_match(session, match_id)
    assert context is not None
    assert context.players == [BOB, ALICE]
    assert (context.match.game, context.match.options, context.match.message_id) == (
        "safe",
        {"digits": 3},
        555,
    )


async def test_save_match_applies_values_and_bumps_the_version(sessions: Sessions) -> None:
    match = await add_match(sessions)
    deadline = NOW + timedelta(minutes=10)
    later = NOW + timedelta(seconds=30)

    async with sessions.begin() as session:
        applied = await save_match(
            session,
            match.id,
            0,
            {
                "status": MatchStatus.ACTIVE,
                "state": {"turn": 1},
                "deadline": deadline,
                "deadline_kind": "turn",
                "updated_at": later,
            },
        )

    row = await stored(sessions, match.id)
    assert applied is True
    assert row.version == 1
    assert (row.status, row.state) == ("active", {"turn": 1})
    assert (row.deadline, row.deadline_kind, row.updated_at) == (deadline, "turn", later)


async def test_save_match_with_a_stale_version_changes_nothing(sessions: Sessions) -> None:
    match = await add_match(sessions, state={"turn": 1})
    async with sessions.begin() as session:
        assert await save_match(session, match.id, 0, {"state": {"turn": 2}})
    before = await stored(sessions, match.id)

    async with sessions.begin() as session:
        applied = await save_match(
            session, match.id, 0, {"state": {"turn": 99}, "status": MatchStatus.FINISHED}
        )

    after = await stored(sessions, match.id)
    assert applied is False
    assert (after.version, after.state, after.status) == (1, {"turn": 2}, "challenged")
    assert after.updated_at == before.updated_at


async def test_save_match_on_a_missing_match_is_false(sessions: Sessions) -> None:
    async with sessions.begin() as session:
        assert await save_match(session, 12345, 0, {"status": "active"}) is False


@pytest.mark.parametrize("column", ["version", "id"])
async def test_save_match_keeps_id_and_version_to_itself(sessions: Sessions, column: str) -> None:
    match = await add_match(sessions)

    async with sessions.begin() as session:
        with pytest.raises(ValueError, match="version"):
            await save_match(session, match.id, 0, {column: 7})


async def test_of_fifty_concurrent_writers_with_one_version_exactly_one_wins(
    sessions: Sessions,
) -> None:
    match = await add_match(sessions)

    async def move(writer: int) -> bool:
        """A use case that saw version 0: read the match, then write on top of that version."""
        async with sessions.begin() as session:
            assert await load_match(session, match.id) is not None
            if not await save_match(session, match.id, 0, {"state": {"writer": writer}}):
                return False
            await append_events(session, match.id, 0, [(0, "move", None, {"w": writer})], NOW)
            return True

    outcomes = await asyncio.gather(*(move(writer) for writer in range(50)))

    assert outcomes.count(True) == 1
    winner = outcomes.index(True)
    row = await stored(sessions, match.id)
    async with sessions() as session:
        events = await get_events(session, match.id)
    assert (row.version, row.state) == (1, {"writer": winner})
    assert [(e.seq, e.payload) for e in events] == [(1, {"w": winner})]


# ---------------------------------------------------------------- the event log


async def test_append_events_numbers_on_from_the_last_event(sessions: Sessions) -> None:
    match = await add_match(sessions)
    other = await add_match(sessions, CAROL, BOB)
    later = NOW + timedelta(minutes=1)

    async with sessions.begin() as session:
        await append_events(
            session,
            match.id,
            0,
            [(None, "accept", None, {}), (0, "secret", 0, {"cell": [2, 3]})],
            NOW,
        )
        await append_events(session, other.id, 0, [(None, "accept", None, {})], NOW)
    async with sessions.begin() as session:
        await append_events(session, match.id, 2, [(1, "attack", None, {"cell": [1, 1]})], later)
        await append_events(session, match.id, 3, [], later)

    async with sessions() as session:
        log = await get_events(session, match.id)
        other_log = await get_events(session, other.id)
    assert [(e.seq, e.seat, e.kind, e.audience, e.payload) for e in log] == [
        (1, None, "accept", None, {}),
        (2, 0, "secret", 0, {"cell": [2, 3]}),
        (3, 1, "attack", None, {"cell": [1, 1]}),
    ]
    assert [e.created_at for e in log] == [NOW, NOW, later]
    assert [e.seq for e in other_log] == [1]


# ---------------------------------------------------------------- finding matches


async def claimed_in_turn(sessions: Sessions, now: datetime) -> list[int]:
    """The ids ``claim_due_match`` gives one after another in one transaction, until none."""
    claimed: list[int] = []
    async with sessions.begin() as session:
        while (due := await deadlines.claim_due_match(session, now, claimed)) is not None:
            claimed.append(due.match_id)
    return claimed


async def test_due_matches_are_unfinished_and_overdue_oldest_first(sessions: Sessions) -> None:
    late = await add_match(sessions, status="active", deadline=NOW - timedelta(minutes=5))
    later = await add_match(sessions, status="setup", deadline=NOW - timedelta(minutes=1))
    latest = await add_match(sessions, status="challenged", deadline=NOW - timedelta(hours=1))
    on_time = await add_match(sessions, status="active", deadline=NOW)
    await add_match(sessions, status="active", deadline=NOW + timedelta(seconds=1))
    await add_match(sessions, status="active")
    await add_match(sessions, status="finished", deadline=NOW - timedelta(days=1))
    await add_match(sessions, status="aborted", deadline=NOW - timedelta(days=1))

    assert await claimed_in_turn(sessions, NOW) == [m.id for m in (latest, late, later, on_time)]


async def test_due_matches_compares_instants_whatever_the_offset(sessions: Sessions) -> None:
    east = timezone(timedelta(hours=2))
    # 12:50 at UTC+2 is 10:50 UTC: due before 11:55 UTC, though its wall time is later.
    earlier = await add_match(
        sessions, status="active", deadline=datetime(2026, 1, 1, 12, 50, tzinfo=east)
    )
    later = await add_match(
        sessions, status="active", deadline=datetime(2026, 1, 1, 11, 55, tzinfo=UTC)
    )

    assert await claimed_in_turn(sessions, datetime(2026, 1, 1, 13, 0, tzinfo=east)) == [earlier.id]
    assert await claimed_in_turn(sessions, NOW) == [earlier.id, later.id]


async def test_a_members_load_counts_challenges_matches_and_challenges_to_one_member(
    sessions: Sessions,
) -> None:
    await add_match(sessions, ALICE, BOB, status="challenged")
    await add_match(sessions, ALICE, CAROL, status="challenged", guild_id=OTHER_GUILD)
    await add_match(sessions, ALICE, BOB, status="active")
    await add_match(sessions, ALICE, BOB, status="aborted", end_reason="withdrawn")
    await add_match(
        sessions,
        ALICE,
        BOB,
        status="aborted",
        end_reason="declined",
        created_at=NOW - timedelta(hours=1),
    )
    await add_match(sessions, ALICE, BOB, status="finished")
    await add_match(sessions, BOB, ALICE, status="challenged")
    await add_match(sessions, CAROL, ALICE, status="setup")

    since = NOW - timedelta(minutes=10)
    async with sessions.begin() as session:
        alice = await member_load(session, ALICE, BOB, since)
        bob = await member_load(session, BOB, ALICE, since)
        carol = await member_load(session, CAROL, None, since)
    assert alice == MemberLoad(open_challenges=2, playing=2, sent_to_opponent=2)
    assert bob == MemberLoad(open_challenges=1, playing=1, sent_to_opponent=1)
    assert carol == MemberLoad(open_challenges=0, playing=1, sent_to_opponent=0)


async def test_unfinished_matches_as_challenger_or_opponent_newest_first(
    sessions: Sessions,
) -> None:
    oldest = await add_match(sessions, ALICE, BOB, status="active", created_at=NOW)
    await add_match(sessions, ALICE, BOB, status="finished", created_at=NOW)
    await add_match(sessions, BOB, CAROL, status="active", created_at=NOW)
    newest = await add_match(
        sessions, CAROL, ALICE, status="challenged", created_at=NOW + timedelta(minutes=2)
    )
    middle = await add_match(
        sessions,
        ALICE,
        CAROL,
        status="setup",
        guild_id=OTHER_GUILD,
        created_at=NOW + timedelta(minutes=1),
    )
    await add_match(sessions, ALICE, CAROL, status="aborted", created_at=NOW)

    async with sessions() as session:
        everywhere = await unfinished_matches(session, ALICE)
        here = await unfinished_matches(session, ALICE, GUILD)

    assert ids(everywhere) == [newest.id, middle.id, oldest.id]
    assert ids(here) == [newest.id, oldest.id]


async def test_channel_matches_are_the_users_unfinished_ones_of_that_game_there(
    sessions: Sessions,
) -> None:
    mine = await add_match(sessions, ALICE, BOB, status="active")
    as_opponent = await add_match(
        sessions, CAROL, ALICE, status="setup", created_at=NOW + timedelta(minutes=1)
    )
    await add_match(sessions, ALICE, BOB, status="active", game="safe")
    await add_match(sessions, ALICE, BOB, status="active", channel_id=OTHER_CHANNEL)
    await add_match(sessions, ALICE, BOB, status="active", guild_id=OTHER_GUILD)
    await add_match(sessions, ALICE, BOB, status="finished")
    await add_match(sessions, BOB, CAROL, status="active")

    async with sessions() as session:
        found = await channel_matches(session, GUILD, CHANNEL, "crown", ALICE)

    assert ids(found) == [as_opponent.id, mine.id]


async def test_recent_matches_are_the_users_finished_ones_here_newest_first(
    sessions: Sessions,
) -> None:
    finished = [
        await add_match(
            sessions,
            *players,
            status="finished",
            finished_at=NOW + timedelta(minutes=minutes),
        )
        for players, minutes in [((ALICE, BOB), 5), ((CAROL, ALICE), 9), ((BOB, ALICE), 1)]
    ]
    await add_match(sessions, ALICE, BOB, status="active")
    await add_match(sessions, ALICE, BOB, status="aborted", finished_at=NOW)
    await add_match(sessions, BOB, CAROL, status="finished", finished_at=NOW)
    await add_match(sessions, ALICE, BOB, status="finished", finished_at=NOW, guild_id=OTHER_GUILD)

    async with sessions() as session:
        recent = await member_matches(session, GUILD, ALICE, limit=10, by_finish=True)
        last_two = await member_matches(session, GUILD, ALICE, limit=2, by_finish=True)

    by_finish = [finished[1].id, finished[0].id, finished[2].id]
    assert [m.id for m in recent] == by_finish
    assert [m.id for m in last_two] == by_finish[:2]
    assert [m.opponent_id for m in recent] == [CAROL, BOB, BOB]


# ---------------------------------------------------------------- stats


async def test_lock_records_creates_the_starting_record_once(sessions: Sessions) -> None:
    key = (GUILD, "flag", CAROL, False)
    async with sessions.begin() as session:
        fresh = (await lock_records(session, [key], NOW))[key]
        assert (fresh.wins, fresh.rating, fresh.deviation, fresh.volatility) == (0, 1500, 500, 0.09)
        fresh.wins = 3
        await save_records(session, [fresh])
    async with sessions.begin() as session:
        again = (await lock_records(session, [key, key], NOW))[key]
    assert again.wins == 3


async def test_lock_records_reads_many_records_at_once(sessions: Sessions) -> None:
    keys = [
        (GUILD, "flag", CAROL, False),
        (GUILD, "safe", ALICE, True),
        (GUILD, "flag", BOB, False),
    ]
    async with sessions.begin() as session:
        rows = await lock_records(session, keys, NOW)
        rows[keys[1]].draws = 2
        await save_records(session, list(rows.values()))
    async with sessions() as session:
        stored_rows = {(r.game, r.vs_bot): r for r in await record(session, GUILD, ALICE)}
        bob = await record(session, GUILD, BOB)
    assert sorted(rows) == sorted(keys)
    assert stored_rows[("safe", True)].draws == 2 and bob[0].draws == 0


async def test_results_added_concurrently_all_count(sessions: Sessions) -> None:
    key = (GUILD, "claim", ALICE, False)

    async def add_win() -> None:
        async with sessions.begin() as session:
            stats = (await lock_records(session, [key], NOW))[key]
            stats.wins += 1
            stats.games_played += 1
            await save_records(session, [stats])

    await asyncio.gather(*(add_win() for _ in range(10)))

    async with sessions() as session:
        [stats] = await record(session, GUILD, ALICE)
    assert (stats.wins, stats.games_played) == (10, 10)


async def test_leaderboard_sections_rank_by_rating_then_wins_then_user(
    sessions: Sessions,
) -> None:
    """Ranked: ``ranked_until`` still ahead; provisional: rated since the cut but not ranked;
    inactive: not rated since the cut. Each section in the leaderboard's order."""
    day = timedelta(days=1)
    ranked, lapsed, old = NOW + day, NOW - day, NOW - 40 * day
    rows = [  # user, rating, wins, rated_at, ranked_until
        (10, 1500.0, 3, NOW, ranked),
        (11, 1700.0, 1, NOW, ranked),
        (12, 1500.0, 7, NOW, ranked),
        (13, 1500.0, 3, NOW, ranked),
        (14, 1650.0, 0, NOW, ranked),
        (15, 1742.0, 1, NOW, NOW),  # one win: provisional at once
        (16, 1600.0, 9, NOW - 2 * day, lapsed),  # grew provisional while away
        (17, 1800.0, 30, old, old + 30 * day),  # gone for 40 days
    ]
    async with sessions.begin() as session:
        for user, rating, wins, rated_at, until in rows:
            session.add(
                PlayerStats(
                    guild_id=GUILD, game="crown", user_id=user, rating=rating, wins=wins,
                    rated_at=rated_at, deviation_at=rated_at, ranked_until=until,
                )
            )  # fmt: skip
        session.add_all(
            [
                PlayerStats(guild_id=GUILD, game="crown", user_id=20, vs_bot=True, rating=2900.0),
                PlayerStats(
                    guild_id=GUILD, game="safe", user_id=21, rating=2800.0,
                    rated_at=NOW, ranked_until=ranked,
                ),
                PlayerStats(
                    guild_id=OTHER_GUILD, game="crown", user_id=22, rating=2700.0,
                    rated_at=NOW, ranked_until=ranked,
                ),
            ]
        )  # fmt: skip

    async def section(name: str, game: str = "crown", **page: int) -> list[int]:
        async with sessions() as session:
            found = await leaderboard_rows(
                session, GUILD, game, name, now=NOW, active_since=NOW - 30 * day,
                limit=page.get("limit", 10), offset=page.get("offset", 0),
            )  # fmt: skip
        return [r.user_id for r in found]

    assert await section("ranked") == [11, 14, 12, 10, 13]
    assert await section("ranked", limit=2, offset=1) == [14, 12]
    assert await section("provisional") == [15, 16]
    assert await section("inactive") == [17]
    assert await section("ranked", "safe") == [21]
    assert await section("ranked", "flag") == []
    with pytest.raises(ValueError, match="ranked"):
        await section("best")


async def test_a_section_rare_at_the_top_is_read_from_its_own_range(
    sessions: Sessions, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Thirty provisional members rate above three ranked ones: with a window of 20 rows the
    ranked are not among the best, and are read from ``ranked_until``'s range, in order."""
    monkeypatch.setattr("db.records.WINDOW", 20)
    day = timedelta(days=1)
    async with sessions.begin() as session:
        for n in range(30):
            session.add(
                PlayerStats(
                    guild_id=GUILD, game="crown", user_id=100 + n, rating=2000.0 + n,
                    rated_at=NOW, deviation_at=NOW, ranked_until=NOW,
                )
            )  # fmt: skip
        for user, rating in ((1, 1500.0), (2, 1700.0), (3, 1600.0)):
            session.add(
                PlayerStats(
                    guild_id=GUILD, game="crown", user_id=user, rating=rating,
                    rated_at=NOW, deviation_at=NOW, ranked_until=NOW + day,
                )
            )  # fmt: skip

    async def section(name: str, limit: int) -> list[int]:
        async with sessions() as session:
            found = await leaderboard_rows(
                session, GUILD, "crown", name, now=NOW, active_since=NOW - 30 * day, limit=limit
            )
        return [r.user_id for r in found]

    assert await section("ranked", 2) == [2, 3]  # looked for in the window first: none there
    assert await section("ranked", 10) == [2, 3, 1]
    assert await section("provisional", 2) == [129, 128]
    assert await section("inactive", 2) == []


async def test_deep_pages_of_each_section_follow_the_leaderboards_order(
    sessions: Sessions,
) -> None:
    """Pages past the first hundred rows walk the ranking index: paged through, each section
    is every member it holds once, in the leaderboard's order (rating, then wins, then member),
    ties included, and nobody from another board."""
    day = timedelta(days=1)
    kinds = {  # rated_at, ranked_until: ranked, provisional twice over, inactive
        0: (NOW, NOW + day), 1: (NOW, NOW), 2: (NOW - 2 * day, NOW - day),
        3: (NOW - 40 * day, NOW - 10 * day),
    }  # fmt: skip
    section_of = {0: "ranked", 1: "provisional", 2: "provisional", 3: "inactive"}
    members = [(user, 1400.0 + 10 * (user * 7 % 13), user * 5 % 4, user % 4) for user in range(600)]
    async with sessions.begin() as session:
        for user, rating, wins, kind in members:
            rated_at, until = kinds[kind]
            session.add(
                PlayerStats(
                    guild_id=GUILD, game="crown", user_id=user, rating=rating, wins=wins,
                    rated_at=rated_at, deviation_at=rated_at, ranked_until=until,
                )
            )  # fmt: skip
        for guild, game, vs_bot in ((OTHER_GUILD, "crown", False), (GUILD, "safe", False)):
            session.add(
                PlayerStats(
                    guild_id=guild, game=game, user_id=1, vs_bot=vs_bot, rating=1450.0,
                    rated_at=NOW, deviation_at=NOW, ranked_until=NOW + day,
                )
            )  # fmt: skip
        session.add(PlayerStats(guild_id=GUILD, game="crown", user_id=1, vs_bot=True))

    for name in ("ranked", "provisional", "inactive"):
        expected = [
            user
            for user, rating, wins, kind in sorted(members, key=lambda m: (-m[1], -m[2], m[0]))
            if section_of[kind] == name
        ]
        found: list[int] = []
        async with sessions() as session:
            for offset in range(0, len(expected) + 40, 40):
                page = await leaderboard_rows(
                    session, GUILD, "crown", name, now=NOW, active_since=NOW - 30 * day,
                    offset=offset, limit=40,
                )  # fmt: skip
                assert [r.user_id for r in page] == expected[offset : offset + 40]
                assert all(r.game == "crown" and not r.vs_bot for r in page)
                found += [r.user_id for r in page]
        assert found == expected


async def test_record_lists_every_game_against_people_and_the_bot(sessions: Sessions) -> None:
    async with sessions.begin() as session:
        session.add_all(
            [
                PlayerStats(guild_id=GUILD, game="safe", user_id=ALICE, wins=1),
                PlayerStats(guild_id=GUILD, game="crown", user_id=ALICE, vs_bot=True, wins=2),
                PlayerStats(guild_id=GUILD, game="crown", user_id=ALICE, wins=3),
                PlayerStats(guild_id=GUILD, game="crown", user_id=BOB, wins=4),
                PlayerStats(guild_id=OTHER_GUILD, game="crown", user_id=ALICE, wins=5),
            ]
        )

    async with sessions() as session:
        rows = await record(session, GUILD, ALICE)
        nothing = await record(session, GUILD, CAROL)

    assert [(r.game, r.vs_bot, r.wins) for r in rows] == [
        ("crown", False, 3),
        ("crown", True, 2),
        ("safe", False, 1),
    ]
    assert nothing == []


# ---------------------------------------------------------------- settings and metadata


async def test_server_timeouts_are_set_and_kept_one_by_one(sessions: Sessions) -> None:
    async with sessions.begin() as session:
        assert await server_timeouts(session, GUILD) is None
        await set_server_timeouts(session, GUILD, {"turn": 60}, NOW)
        await set_server_timeouts(session, OTHER_GUILD, {"hint": 30}, NOW)
    async with sessions.begin() as session:
        await set_server_timeouts(session, GUILD, {"setup": 600}, NOW)

    async with sessions() as session:
        here = await server_timeouts(session, GUILD)
        there = await server_timeouts(session, OTHER_GUILD)
    assert here is not None and there is not None
    assert (here.turn_timeout, here.setup_timeout, here.hint_timeout) == (60, 600, None)
    assert (there.turn_timeout, there.hint_timeout) == (None, 30)


async def test_meta_values_are_stored_and_overwritten(sessions: Sessions) -> None:
    async with sessions.begin() as session:
        assert await get_meta(session, "command_hash") is None
        await set_meta(session, "command_hash", "abc", NOW)
        assert await get_meta(session, "command_hash") == "abc"

    async with sessions.begin() as session:
        await set_meta(session, "command_hash", "def", NOW)
        await set_meta(session, "other", "x", NOW)

    async with sessions() as session:
        assert await get_meta(session, "command_hash") == "def"
        assert await get_meta(session, "other") == "x"
