"""Member roles in the fake Discord: given and taken as Discord allows, refused as it refuses.

discord.py's own HTTP client calls the routes, so the answers are read as the bot reads them:
Manage Roles and the role hierarchy (50013), an unknown role (10011), an unknown member (10007),
and the role routes' per-guild bucket of 10 requests each 10 seconds.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from discord.http import HTTPClient

from .fake_discord import FakeDiscord, FakeGuild, FakeMember
from .fake_discord.permissions import ADMINISTRATOR, BOT_PERMISSIONS, MANAGE_ROLES
from .fake_discord.ratelimits import Limit, RateLimits, bucket_hash

MISSING_PERMISSIONS = 50013
UNKNOWN_ROLE = 10011
UNKNOWN_MEMBER = 10007


@pytest.fixture
async def http(fake_discord: FakeDiscord) -> AsyncIterator[HTTPClient]:
    """discord.py's own HTTP client, logged in to the fake."""
    client = HTTPClient(asyncio.get_running_loop())
    await client.static_login(fake_discord.token)
    try:
        yield client
    finally:
        await client.close()


def server(fake: FakeDiscord, permissions: int = BOT_PERMISSIONS | MANAGE_ROLES) -> FakeGuild:
    return fake.add_guild("ranks", bot_permissions=permissions)


async def test_a_role_below_the_bots_is_given_and_taken(
    fake_discord: FakeDiscord, http: HTTPClient
) -> None:
    guild = server(fake_discord)
    gold = fake_discord.add_role(guild, "Gold", position=1)
    assert gold.position < fake_discord.bot_role(guild).position
    alice = fake_discord.add_member(guild, fake_discord.add_user("alice"))

    await http.add_role(guild.id, alice.id, gold.id, reason="rank")
    await http.add_role(guild.id, alice.id, gold.id)  # already hers: still 204, no change
    assert alice.roles == [gold]
    member = await http.get_member(guild.id, alice.id)
    assert member["roles"] == [str(gold.id)]

    await http.remove_role(guild.id, alice.id, gold.id)
    await http.remove_role(guild.id, alice.id, gold.id)  # no longer hers: still 204
    assert alice.roles == []


async def test_without_manage_roles_nothing_changes(
    fake_discord: FakeDiscord, http: HTTPClient
) -> None:
    guild = server(fake_discord, BOT_PERMISSIONS)
    gold = fake_discord.add_role(guild, "Gold", position=1)
    alice = fake_discord.add_member(guild, fake_discord.add_user("alice"))

    with pytest.raises(discord.Forbidden) as refused:
        await http.add_role(guild.id, alice.id, gold.id)
    assert refused.value.code == MISSING_PERMISSIONS
    assert alice.roles == []

    fake_discord.set_role_permissions(fake_discord.bot_role(guild), ADMINISTRATOR)
    await http.add_role(guild.id, alice.id, gold.id)  # Administrator includes Manage Roles
    assert alice.roles == [gold]


async def test_a_role_at_or_above_the_bots_highest_is_refused(
    fake_discord: FakeDiscord, http: HTTPClient
) -> None:
    guild = server(fake_discord, ADMINISTRATOR)
    above = fake_discord.add_role(guild, "Above")  # at the top: above the bot's role
    alice = fake_discord.add_member(guild, fake_discord.add_user("alice"), roles=(above,))
    for call in (http.add_role, http.remove_role):
        with pytest.raises(discord.Forbidden) as refused:
            await call(guild.id, alice.id, above.id)
        assert refused.value.code == MISSING_PERMISSIONS
    for untouchable in (fake_discord.bot_role(guild), guild.everyone):
        with pytest.raises(discord.Forbidden):
            await http.add_role(guild.id, alice.id, untouchable.id)
    assert alice.roles == [above]


async def test_an_unknown_role_or_member_is_not_found(
    fake_discord: FakeDiscord, http: HTTPClient
) -> None:
    guild = server(fake_discord)
    gold = fake_discord.add_role(guild, "Gold", position=1)
    alice = fake_discord.add_member(guild, fake_discord.add_user("alice"))
    stranger = fake_discord.add_user("stranger")
    with pytest.raises(discord.NotFound) as unknown:
        await http.add_role(guild.id, alice.id, 12345)
    assert unknown.value.code == UNKNOWN_ROLE
    with pytest.raises(discord.NotFound) as unknown:
        await http.add_role(guild.id, stranger.id, gold.id)
    assert unknown.value.code == UNKNOWN_MEMBER


async def test_patching_a_members_roles_checks_only_the_roles_it_changes(
    fake_discord: FakeDiscord, http: HTTPClient
) -> None:
    guild = server(fake_discord)
    above = fake_discord.add_role(guild, "Above")
    silver = fake_discord.add_role(guild, "Silver", position=1)
    gold = fake_discord.add_role(guild, "Gold", position=2)
    alice: FakeMember = fake_discord.add_member(
        guild, fake_discord.add_user("alice"), roles=(above, silver)
    )
    roles = [str(above.id), str(gold.id)]
    answer = await http.edit_member(guild.id, alice.id, roles=roles)
    assert set(answer["roles"]) == set(roles)
    assert set(alice.roles) == {above, gold}
    with pytest.raises(discord.Forbidden):
        await http.edit_member(guild.id, alice.id, roles=[str(gold.id)])  # would take Above
    assert set(alice.roles) == {above, gold}


def test_the_role_routes_are_limited_to_ten_each_ten_seconds_per_guild() -> None:
    limits = RateLimits()
    assert limits.member_role == Limit(10, 10.0)
    assert limits.edit_member == Limit(10, 10.0)


async def test_giving_and_taking_share_one_bucket_per_guild(
    fake_discord: FakeDiscord, http: HTTPClient
) -> None:
    fake_discord.rate_limits.member_role = Limit(10, 0.5)  # Discord's count, a short window
    guild = server(fake_discord)
    gold = fake_discord.add_role(guild, "Gold", position=1)
    members = [fake_discord.add_member(guild, fake_discord.add_user(f"m{i}")) for i in range(6)]
    other = server(fake_discord)
    elsewhere = fake_discord.add_role(other, "Gold", position=1)
    someone = fake_discord.add_member(other, fake_discord.add_user("someone"))
    for member in members[:5]:
        await http.add_role(guild.id, member.id, gold.id)
        await http.remove_role(guild.id, member.id, gold.id)
    await http.add_role(other.id, someone.id, elsewhere.id)  # another guild's bucket

    await http.add_role(guild.id, members[5].id, gold.id)  # the 11th waits for the window
    role_calls = [r for r in fake_discord.requests if r.route.endswith("/roles/{role_id}")]
    assert [r.status for r in role_calls] == [204] * 12
    first, eleventh_here = role_calls[0], role_calls[11]
    assert eleventh_here.time - first.time >= 0.5  # discord.py read the headers and waited
    assert fake_discord.rate_limit_hits == []
    assert members[5].roles == [gold] and someone.roles == [elsewhere]


async def test_the_eleventh_role_change_in_a_guild_gets_a_429_on_its_bucket(
    fake_discord: FakeDiscord,
) -> None:
    guild, other = server(fake_discord), server(fake_discord)
    gold = fake_discord.add_role(guild, "Gold", position=1)
    alice = fake_discord.add_member(guild, fake_discord.add_user("alice"))
    elsewhere = fake_discord.add_role(other, "Gold", position=1)
    someone = fake_discord.add_member(other, fake_discord.add_user("someone"))
    headers = {"Authorization": f"Bot {fake_discord.token}"}

    async def call(method: str, where: FakeGuild, who: FakeMember, role_id: int) -> Any:
        path = f"/guilds/{where.id}/members/{who.id}/roles/{role_id}"
        async with session.request(method, fake_discord.api_base + path, headers=headers) as got:
            return got.status, dict(got.headers)

    async with aiohttp.ClientSession() as session:
        answers = [await call(m, guild, alice, gold.id) for m in ("PUT", "DELETE") * 5]
        assert [status for status, _ in answers] == [204] * 10
        assert {h["X-RateLimit-Bucket"] for _, h in answers} == {bucket_hash("member_role")}
        assert [h["X-RateLimit-Remaining"] for _, h in answers][-1] == "0"
        status, refused = await call("PUT", guild, alice, gold.id)
        assert status == 429 and refused["X-RateLimit-Scope"] == "user"
        status, _ = await call("PUT", other, someone, elsewhere.id)  # another guild's bucket
        assert status == 204
    assert [hit.bucket for hit in fake_discord.rate_limit_hits] == ["member_role"]


async def test_a_deleted_role_leaves_its_members_and_is_then_unknown(
    fake_discord: FakeDiscord, http: HTTPClient
) -> None:
    guild = server(fake_discord)
    gold = fake_discord.add_role(guild, "Gold", position=1)
    alice = fake_discord.add_member(guild, fake_discord.add_user("alice"), roles=(gold,))
    fake_discord.delete_role(gold)
    assert alice.roles == [] and gold.id not in guild.roles
    with pytest.raises(discord.NotFound) as unknown:
        await http.remove_role(guild.id, alice.id, gold.id)
    assert unknown.value.code == UNKNOWN_ROLE
