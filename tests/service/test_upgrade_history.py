"""The upgrade to 0010 keeps a host's data and starts rating history where the ratings stand: no
rating changes, one point per record against people, an old finished match reviewed and
replayed from its log, and an old match in play finished with its rating changes kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, MetaData, Table, insert, select, text

import games
from bot.chat.after_game.records import record
from bot.service.match_parts import match_parts
from bot.service.member_history import HistoryService
from bot.service.replays import Replays
from db.engine import create_engine, session_factory
from db.migrate import upgrade
from db.models import Base, PlayerStats, RatingChange
from games.base import Ask
from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Clock

PREVIOUS = "0009"
THEN = datetime(2025, 12, 1, 9, 0, tzinfo=UTC)
NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
OLD_FINISHED, OLD_OPEN = 3, 7


def crown_log(moves: list[tuple[int, str]]) -> tuple[Any, list[dict[str, Any]]]:
    """A Crown match played from seed 1 by ``moves`` (seat, text), and its event log rows as the
    previous version wrote them: each action private to its seat, then what it caused."""
    crown = games.get("crown")
    state = crown.new({}, 1)
    rows: list[dict[str, Any]] = []
    for seat, move in moves:
        ask = crown.ask(state, seat)
        action = crown.parse(state, seat, move)
        state, events = crown.apply(state, seat, action)
        rows.append({"seat": seat, "kind": f"action:{ask.value}", "audience": seat,
                     "payload": {"action": str(action)}})  # fmt: skip
        rows += [
            {"seat": None, "kind": e.kind, "audience": e.audience,
             "payload": {"text": e.text, "data": dict(e.data)}}
            for e in events
        ]  # fmt: skip
    return state, rows


def match_row(match_id: int, state: Any, **values: Any) -> dict[str, Any]:
    crown = games.get("crown")
    return {
        "id": match_id, "guild_id": GUILD, "channel_id": CHANNEL, "game": "crown",
        "options": crown.options(state), "seed": 1, "state": crown.dump(state),
        "challenger_id": ALICE, "opponent_id": BOB, "vs_bot": False, "created_at": THEN,
        "updated_at": THEN, "origin": "named", **values,
    }  # fmt: skip


def record_row(user: int, rating: float, deviation: float, vs_bot: bool = False) -> dict[str, Any]:
    return {
        "guild_id": GUILD, "game": "crown", "user_id": user, "vs_bot": vs_bot, "wins": 1,
        "losses": 0, "draws": 0, "streak": 1, "best_streak": 1, "rating": rating,
        "deviation": deviation, "volatility": 0.06, "games_played": 1, "updated_at": THEN,
    }  # fmt: skip


async def test_history_starts_at_the_current_ratings(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(Base.metadata.drop_all)
            await connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
        await upgrade(engine, PREVIOUS)

        finished, finished_log = crown_log(
            [(0, "3 3"), (1, "2 1"), (0, "2 2"), (1, "column"), (1, "1 3"), (0, "row"),
             (0, "2 1")]
        )  # fmt: skip
        in_play, in_play_log = crown_log([(0, "1 1"), (1, "3 3")])
        async with engine.begin() as connection:
            tables = await connection.run_sync(_previous_tables)
            for row in (
                match_row(OLD_FINISHED, finished, status="finished", version=7, winner_seat=0,
                          end_reason="capture", finished_at=THEN, message_id=444),
                match_row(OLD_OPEN, in_play, status="active", version=2, message_id=555,
                          deadline=NOW + timedelta(minutes=10), deadline_kind="turn"),
            ):  # fmt: skip
                await connection.execute(insert(tables["matches"]).values(row))
            await connection.execute(
                insert(tables["match_players"]),
                [
                    {"match_id": match_id, "seat": seat, "user_id": user}
                    for match_id in (OLD_FINISHED, OLD_OPEN)
                    for seat, user in enumerate((ALICE, BOB))
                ],
            )
            await connection.execute(
                insert(tables["match_events"]),
                [
                    {"match_id": match_id, "seq": seq, "created_at": THEN, **row}
                    for match_id, log in ((OLD_FINISHED, finished_log), (OLD_OPEN, in_play_log))
                    for seq, row in enumerate(log, 1)
                ],
            )
            await connection.execute(
                insert(tables["player_stats"]),
                [
                    record_row(ALICE, 1662.5, 290.0),
                    record_row(BOB, 1337.5, 290.0),
                    record_row(ALICE, 1500.0, 500.0, vs_bot=True),
                ],
            )

        await upgrade(engine)

        sessions = session_factory(engine)
        async with sessions() as session:
            points = (await session.scalars(select(RatingChange).order_by(RatingChange.id))).all()
            ratings = {
                r.user_id: (r.rating, r.deviation)
                for r in await session.scalars(select(PlayerStats).where(~PlayerStats.vs_bot))
            }
        assert ratings == {ALICE: (1662.5, 290.0), BOB: (1337.5, 290.0)}  # no rating changed
        assert [
            (p.match_id, p.user_id, p.rating_before, p.rating_after, p.deviation_after, p.at)
            for p in points
        ] == [
            (None, ALICE, 1662.5, 1662.5, 290.0, THEN),
            (None, BOB, 1337.5, 1337.5, 290.0, THEN),
        ]

        clock = Clock()
        replays = Replays(sessions, clock=clock)
        shown = await replays.review(GUILD, OLD_FINISHED)
        assert shown.match.names == (None, None) and shown.review.outcome.winner == 0
        assert len(shown.review.moves) == 5  # the attacks and hints; the Crowns are placed
        replay = await replays.replay(GUILD, OLD_FINISHED)
        assert (
            len(replay.steps) == 8 and replay.game.word(replay.steps[-1].action) == "attack (2,1)"
        )
        _, written = record(await replays.review(GUILD, OLD_FINISHED))
        assert "Players: Player 1 (moved first) and Player 2" in written.splitlines()
        histories = HistoryService(sessions, clock=clock)
        [old] = (await histories.history(GUILD, ALICE)).matches
        assert (old.id, old.result, old.rating_change, old.message_id) == (
            OLD_FINISHED, "win", None, 444
        )  # fmt: skip

        service = match_parts(
            sessions, clock=clock, mention=lambda u: f"@{u}", names=lambda g, u: f"name {u}"
        )
        snap = await service.lookups.snapshot(OLD_OPEN)
        assert snap.to_act == (ALICE,) and snap.asks[ALICE] is Ask.ACTION
        report = await service.play.submit(OLD_OPEN, ALICE, "3 3")
        assert report.match.status == "finished" and report.match.winner_id == ALICE
        series = await histories.rating_series(GUILD, ALICE)
        assert series["crown"][0].rating == 1662.5
        assert len(series["crown"]) == 2 and series["crown"][1].rating > 1662.5
        [new, _] = (await histories.history(GUILD, ALICE)).matches
        assert new.id == OLD_OPEN and new.rating_change is not None and new.rating_change > 0
        played = await replays.replay(GUILD, OLD_OPEN)
        assert played.match.names == (f"name {ALICE}", f"name {BOB}")
    finally:
        await engine.dispose()


def _previous_tables(connection: Connection) -> dict[str, Table]:
    """The tables as the previous schema made them, read from the database itself."""
    metadata = MetaData()
    metadata.reflect(connection, only=["matches", "match_players", "match_events", "player_stats"])
    return dict(metadata.tables)
