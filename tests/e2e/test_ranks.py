"""Rank roles end to end: a manager sets ranks, rated matches give and take the roles, and the
bot says plainly what stands in the way when Discord would refuse it the role."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import discord
import pytest

from db.engine import session_factory
from db.models import PlayerStats

from .fake_discord.permissions import BOT_PERMISSIONS, MANAGE_GUILD, MANAGE_ROLES
from .test_bot_games import play_crystal, start

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeDiscord, FakeGuild, FakeMember

pytest_plugins = ("tests.e2e.bot_fixtures",)


async def rated(table: Table, guild: FakeGuild, member: FakeMember, rating: float) -> None:
    """The member's Crystal Capture rating, as many rated matches would have left it."""
    assert table.app is not None
    async with session_factory(table.app.engine).begin() as session:
        session.add(
            PlayerStats(
                guild_id=guild.id, game="crystal", user_id=member.id, vs_bot=False,
                wins=20, losses=20, draws=0, streak=0, best_streak=3, rating=rating,
                deviation=60.0, volatility=0.06, games_played=40,
            )
        )  # fmt: skip


def seen(table: Table, guild: FakeGuild) -> discord.Guild | None:
    """The server as the running bot last heard of it."""
    return None if table.bot is None else table.bot.get_guild(guild.id)


async def test_rated_matches_promote_a_member_move_them_up_and_down(
    idle_table: Table,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: FakeMember,
    bob: FakeMember,
    carol: FakeMember,
) -> None:
    fake = fake_discord
    fake.set_role_permissions(fake.bot_role(guild), BOT_PERMISSIONS | MANAGE_ROLES)
    silver = fake.add_role(guild, "Silver", position=1)
    gold = fake.add_role(guild, "Gold", position=1)
    champion = fake.add_role(guild, "Champion", position=1)
    artists = fake.add_role(guild, "Artists", position=1)
    managers = fake.add_role(guild, "Managers", permissions=MANAGE_GUILD)
    mod = fake.add_member(guild, fake.add_user("mod"), roles=(managers,))
    fake.set_member_roles(guild, alice, [artists])
    fake.set_member_roles(guild, bob, [silver])  # given by hand: not Parlor's to take
    async with idle_table.running():
        table = idle_table
        await rated(table, guild, alice, 1595.0)
        await rated(table, guild, bob, 1605.0)
        await rated(table, guild, carol, 1700.0)  # reaches every rank as it is set

        refused = table.answer(
            await table.slash(bob, "ranks set", game="crystal", rating=1600, role=silver)
        )
        assert "You need the Manage Server permission" in refused
        said = table.answer(
            await table.slash(mod, "ranks set", game="crystal", rating=1600, role=silver)
        )
        assert f"Crystal Capture rating reaches 1600 get {silver.mention}" in said
        await table.slash(mod, "ranks set", game="crystal", rating=1610, role=gold)
        await table.slash(mod, "ranks set", game="best", rating=1612, role=champion, season=True)
        listed = table.answer(await table.slash(bob, "ranks list"))  # anyone may read them
        assert f"{silver.mention}: Crystal Capture rating 1600 or more" in listed
        assert f"{champion.mention}: Best rating over every game rating 1612 or more" in listed
        await fake.wait_until(
            lambda: set(carol.roles) == {gold, champion}, what="Carol's ranks as they are set"
        )

        await start(table, alice, bob, "crystal challenge")
        await play_crystal(table, alice, bob)  # Alice 1595 → 1605, Bob 1605 → 1595
        await fake.wait_until(lambda: silver in alice.roles, what="Alice made Silver")
        assert set(alice.roles) == {artists, silver}
        assert bob.roles == [silver]

        await start(table, alice, bob, "crystal challenge")
        await play_crystal(table, alice, bob)  # Alice 1605 → 1615, Bob 1595 → 1585
        await fake.wait_until(lambda: gold in alice.roles, what="Alice made Gold")
        await fake.wait_until(lambda: silver not in alice.roles, what="Silver taken from Alice")
        assert set(alice.roles) == {artists, gold, champion}
        assert bob.roles == [silver]  # below 1600 now, but Parlor never gave it

        await start(table, bob, alice, "crystal challenge")
        await play_crystal(table, bob, alice)  # Bob wins: Alice 1615 → 1604
        await fake.wait_until(lambda: gold not in alice.roles, what="Gold taken from Alice")
        await fake.wait_until(
            lambda: set(alice.roles) == {artists, silver}, what="Alice back to Silver"
        )  # her best is under 1612 too

        cleared = table.answer(await table.slash(mod, "ranks clear", game="crystal"))
        assert silver.mention in cleared and gold.mention in cleared
        assert set(alice.roles) == {artists, silver}  # members keep what they have
    alices = f"/members/{alice.id}/roles/"
    role_calls = [(r.method, r.path.rsplit("/", 1)[1]) for r in fake.requests if alices in r.path]
    promoted, moved_up, moved_down = role_calls[:1], role_calls[1:4], role_calls[4:]
    assert promoted == [("PUT", str(silver.id))]
    gave = [("PUT", str(champion.id)), ("PUT", str(gold.id))]
    assert sorted(moved_up) == sorted([*gave, ("DELETE", str(silver.id))])
    took = [("DELETE", str(champion.id)), ("DELETE", str(gold.id))]
    assert sorted(moved_down) == sorted([("PUT", str(silver.id)), *took])
    bobs = [r for r in fake.requests if f"/members/{bob.id}/roles/" in r.path]
    assert bobs == []  # he had Silver already, by hand: never given, never taken
    assert fake.rate_limit_hits == []


async def test_a_rank_the_bot_could_not_give_is_refused_saying_why(
    table: Table, fake_discord: FakeDiscord, guild: FakeGuild, bob: FakeMember
) -> None:
    fake = fake_discord
    managers = fake.add_role(guild, "Managers", permissions=MANAGE_GUILD)
    mod = fake.add_member(guild, fake.add_user("mod"), roles=(managers,))
    silver = fake.add_role(guild, "Silver", position=1)
    bronze = fake.add_role(guild, "Bronze", position=1)
    above = fake.add_role(guild, "Above")
    await fake.wait_until(
        lambda: (server := seen(table, guild)) and server.get_role(above.id),
        what="the bot to hear of the roles",
    )

    said = table.answer(
        await table.slash(mod, "ranks set", game="crystal", rating=1600, role=silver)
    )
    assert "I need the Manage Roles permission to give" in said
    fake.set_role_permissions(fake.bot_role(guild), BOT_PERMISSIONS | MANAGE_ROLES)
    await fake.wait_until(
        lambda: (server := seen(table, guild)) and server.me.guild_permissions.manage_roles,
        what="the bot to hear of its new permission",
    )
    said = table.answer(
        await table.slash(mod, "ranks set", game="crystal", rating=1600, role=above)
    )
    assert f"{above.mention} is not below my highest role" in said
    said = table.answer(
        await table.slash(mod, "ranks set", game="crystal", rating=1600, role=fake.bot_role(guild))
    )
    assert "managed by Discord or by an app" in said
    listed = table.answer(await table.slash(mod, "ranks list"))
    assert "This server has no rank" in listed

    said = table.answer(
        await table.slash(mod, "ranks set", game="crystal", rating=1600, role=silver)
    )
    assert f"get {silver.mention}" in said
    taken = table.answer(
        await table.slash(mod, "ranks set", game="crystal", rating=1600, role=bronze)
    )
    assert f"Crystal Capture already has a rank at rating 1600: {silver.mention}" in taken
    both = table.answer(await table.slash(mod, "ranks clear", role=silver, game="crystal"))
    assert "Name one rank role to clear, or one game" in both
    unknown = table.answer(await table.slash(mod, "ranks clear", role=bronze))
    assert f"{bronze.mention} is not a rank here" in unknown
    listed = table.answer(await table.slash(mod, "ranks list"))
    assert silver.mention in listed and bronze.mention not in listed


async def test_roles_owed_while_discord_is_down_are_given_after_a_restart(
    idle_table: Table,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: FakeMember,
    bob: FakeMember,
) -> None:
    fake = fake_discord
    fake.set_role_permissions(fake.bot_role(guild), BOT_PERMISSIONS | MANAGE_ROLES)
    silver = fake.add_role(guild, "Silver", position=1)
    managers = fake.add_role(guild, "Managers", permissions=MANAGE_GUILD)
    mod = fake.add_member(guild, fake.add_user("mod"), roles=(managers,))
    table = idle_table
    async with table.running():
        await rated(table, guild, alice, 1595.0)
        await rated(table, guild, bob, 1599.0)
        await table.slash(mod, "ranks set", game="crystal", rating=1600, role=silver)
        await start(table, alice, bob, "crystal challenge")
        fake.outage(1000, bot_token=True)  # the moves' answers ride on their interactions
        await play_crystal(table, alice, bob)
        await fake.wait_until(
            lambda: any(r.route.endswith("/members/{user_id}") and r.status == 503
                        for r in fake.requests),
            what="the keeper to meet the outage",
        )  # fmt: skip
    fake.outage(0)
    assert silver not in alice.roles

    table.clock.advance(seconds=10)  # past the update's backoff
    async with table.running():
        await fake.wait_until(lambda: silver in alice.roles, what="Alice made Silver")
    puts = [r for r in fake.requests if r.method == "PUT" and "/roles/" in r.path]
    assert [r.status for r in puts] == [204]


async def test_manage_roles_taken_away_later_leaves_the_roles_alone_and_says_so(
    idle_table: Table,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: FakeMember,
    bob: FakeMember,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake = fake_discord
    bot_role = fake.bot_role(guild)
    fake.set_role_permissions(bot_role, BOT_PERMISSIONS | MANAGE_ROLES)
    silver = fake.add_role(guild, "Silver", position=1)
    managers = fake.add_role(guild, "Managers", permissions=MANAGE_GUILD)
    mod = fake.add_member(guild, fake.add_user("mod"), roles=(managers,))
    table = idle_table
    async with table.running():
        await rated(table, guild, alice, 1595.0)
        await rated(table, guild, bob, 1599.0)
        await table.slash(mod, "ranks set", game="crystal", rating=1600, role=silver)
        fake.set_role_permissions(bot_role, BOT_PERMISSIONS)  # a manager takes it away
        await start(table, alice, bob, "crystal challenge")
        await play_crystal(table, alice, bob)
        refused = await fake.wait_until(
            lambda: [r for r in fake.requests if "/roles/" in r.path and r.status == 403],
            what="Discord to refuse the role",
        )
        table.clock.advance(minutes=10)
        await asyncio.sleep(0.5)  # several keeper rounds
    assert len(refused) == 1 and silver not in alice.roles
    assert [r for r in fake.requests if "/roles/" in r.path] == refused  # not tried again
    assert any("cannot give or take rank roles" in r.getMessage() for r in caplog.records)


async def test_a_rank_whose_role_was_deleted_goes_and_the_next_rank_down_is_given(
    idle_table: Table,
    fake_discord: FakeDiscord,
    guild: FakeGuild,
    alice: FakeMember,
    bob: FakeMember,
) -> None:
    fake = fake_discord
    fake.set_role_permissions(fake.bot_role(guild), BOT_PERMISSIONS | MANAGE_ROLES)
    silver = fake.add_role(guild, "Silver", position=1)
    gold = fake.add_role(guild, "Gold", position=1)
    managers = fake.add_role(guild, "Managers", permissions=MANAGE_GUILD)
    mod = fake.add_member(guild, fake.add_user("mod"), roles=(managers,))
    table = idle_table
    async with table.running():
        await rated(table, guild, alice, 1595.0)
        await rated(table, guild, bob, 1599.0)
        await table.slash(mod, "ranks set", game="crystal", rating=1600, role=silver)
        await table.slash(mod, "ranks set", game="crystal", rating=1605, role=gold)
        fake.delete_role(gold)  # in Discord, behind Parlor's back
        await start(table, alice, bob, "crystal challenge")
        await play_crystal(table, alice, bob)  # Alice 1595 → 1605: Gold's rating
        await fake.wait_until(lambda: silver in alice.roles, what="Alice made Silver")
        listed = table.answer(await table.slash(mod, "ranks list"))
    assert gold.mention not in listed and silver.mention in listed
    asked = [
        (r.method, r.path.rsplit("/", 1)[1], r.status) for r in fake.requests if "/roles/" in r.path
    ]
    assert asked == [("PUT", str(gold.id), 404), ("PUT", str(silver.id), 204)]
