"""Honest leaderboards through the fake Discord: ``/stats`` ranks only settled, active players;
a newcomer's lucky win and a member long away are listed apart, and time away moves a ranked
member off the ranking."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from bot.service.ratings import Rating, ranked_until
from db.models import PlayerStats

from .test_board_crowd import play_crystal

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeDiscord, FakeGuild, FakeMember

pytest_plugins = ("tests.e2e.bot_fixtures",)


def section(board: str, title: str, until: str | None = None) -> str:
    """The part of ``/stats``'s text from the field ``title`` to the field ``until``."""
    after = board.split(title, 1)[1]
    return after.split(until, 1)[0] if until else after


async def test_stats_lists_ranked_provisional_and_inactive_players_apart(
    table: Table,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: FakeMember,
    bob: FakeMember,
) -> None:
    assert table.app is not None
    veteran = fake_discord.add_member(guild, fake_discord.add_user("veteran"))
    gone = fake_discord.add_member(guild, fake_discord.add_user("gone"))
    now = table.clock()
    away = now - timedelta(days=40)
    async with table.app.matches.runner.sessions.begin() as session:
        for member, rating, last in ((veteran, 1600.0, now), (gone, 1900.0, away)):
            settled = Rating(rating, 60.0, 0.06)
            session.add(
                PlayerStats(
                    guild_id=guild.id, game="crystal", user_id=member.id, rating=rating,
                    deviation=60.0, volatility=0.06, wins=30, losses=20, games_played=50,
                    rated_at=last, deviation_at=last,
                    ranked_until=ranked_until(settled, last, last),
                )
            )  # fmt: skip

    await play_crystal(table, alice, bob)  # alice's one win: 1742? ahead of everyone active

    board = table.answer(await table.slash(alice, "stats", game="crystal"))
    ranked = section(board, "Crystal Capture", "Provisional")
    assert f"**1.** <@{veteran.id}> · rating 1600" in ranked
    assert f"<@{alice.id}>" not in ranked and f"<@{gone.id}>" not in ranked
    provisional = section(board, "Provisional", "Inactive")
    assert f"<@{alice.id}> · rating 1742? · 1 W 0 L 0 D" in provisional
    assert f"<@{bob.id}> · rating 1258?" in provisional
    assert "**" not in provisional, "provisional players are not numbered"
    inactive = section(board, "Inactive", "Ratings are Glicko-2")
    assert f"<@{gone.id}> · rating 1900 · 30 W 20 L 0 D" in inactive
    assert "listed apart" in board

    compact = table.answer(await table.slash(bob, "stats"))
    crystal = section(compact, "Crystal Capture", "Flag Chase")
    assert f"1. <@{veteran.id}> 1600 (30-20-0)" in crystal
    assert f"Provisional: <@{alice.id}> 1742?, <@{bob.id}> 1258?" in crystal
    assert f"Inactive: <@{gone.id}> 1900" in crystal

    # A month on, nobody has played: the veteran is inactive too, and alice's and bob's
    # deviations have grown while away (their ratings stay).
    table.clock.advance(days=31)
    later = table.answer(await table.slash(alice, "stats", game="crystal"))
    assert "Nobody is ranked yet." in later
    assert "Provisional" not in later.split("Ratings are Glicko-2")[0].split("Crystal Capture")[1]
    inactive = section(later, "Inactive", "Ratings are Glicko-2")
    for member in (gone, veteran, alice, bob):
        assert f"<@{member.id}>" in inactive
    assert inactive.index(f"<@{gone.id}>") < inactive.index(f"<@{alice.id}>")

    record = table.answer(await table.slash(bob, "stats", user=veteran, game="crystal"))
    assert "Rating 1600 ·" in record, "31 days away: 60 grows to about 71, still settled"
