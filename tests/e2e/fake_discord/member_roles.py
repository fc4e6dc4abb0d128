"""The member role routes the bot calls with its token: giving a role, taking it away, and
setting a member's whole list of roles.

Discord's checks, in its order: the guild, the member, then each role named (10011 Unknown Role),
then Manage Roles in the guild (50013), then the role hierarchy: the bot may give or take only a
role below its own highest role (50013 otherwise, Administrator or not), and never a managed
role (a bot's or an integration's) nor ``@everyone``. ``PUT`` and ``DELETE`` answer 204 whether
or not the member had the role; ``PATCH`` checks only the roles it adds or removes.
"""

from __future__ import annotations

from collections.abc import Iterable

from aiohttp import web

from .errors import INVALID_FORM_BODY, JSON, APIError, missing_permissions, not_found
from .gateway import Gateway
from .permissions import MANAGE_ROLES
from .records import FakeGuild, FakeMember, FakeRole
from .replies import NotModelled, Route, json_response, no_content, snowflake
from .state import DiscordState

UNKNOWN_ROLE = 10011


class MemberRoleRoutes:
    """Handlers of ``/guilds/{guild_id}/members/{user_id}`` that change a member's roles."""

    def __init__(self, state: DiscordState, gateway: Gateway) -> None:
        self.state = state
        self.gateway = gateway

    def routes(self) -> list[Route]:
        member = "/guilds/{guild_id}/members/{user_id}"
        return [
            Route("PUT", f"{member}/roles/{{role_id}}", self.add_role, bucket="member_role"),
            Route("DELETE", f"{member}/roles/{{role_id}}", self.remove_role, bucket="member_role"),
            Route("PATCH", member, self.edit_member, bucket="edit_member"),
        ]

    async def add_role(self, request: web.Request, payload: JSON) -> web.Response:
        guild, member = self._member(request)
        role = self._role(guild, snowflake(request, "role_id"))
        self._check_may_change(guild, [role])
        if role not in member.roles:
            self._set_roles(guild, member, [*member.roles, role])
        return no_content()

    async def remove_role(self, request: web.Request, payload: JSON) -> web.Response:
        guild, member = self._member(request)
        role = self._role(guild, snowflake(request, "role_id"))
        self._check_may_change(guild, [role])
        if role in member.roles:
            self._set_roles(guild, member, [r for r in member.roles if r is not role])
        return no_content()

    async def edit_member(self, request: web.Request, payload: JSON) -> web.Response:
        guild, member = self._member(request)
        if not isinstance(payload, dict) or set(payload) - {"roles"}:
            raise NotModelled()  # only the roles of a member are modelled
        ids = payload.get("roles")
        if not isinstance(ids, list) or not all(isinstance(i, str | int) for i in ids):
            raise APIError(400, INVALID_FORM_BODY, "Invalid Form Body")
        wanted = [self._role(guild, int(str(i))) for i in dict.fromkeys(ids)]
        changed = set(wanted) ^ set(member.roles)
        self._check_may_change(guild, changed)
        if changed:
            self._set_roles(guild, member, wanted)
        return json_response(member.payload())

    # -- checks ---------------------------------------------------------------------------------

    def _member(self, request: web.Request) -> tuple[FakeGuild, FakeMember]:
        guild = self.state.guild(snowflake(request, "guild_id"))
        return guild, self.state.member(guild, snowflake(request, "user_id"))

    @staticmethod
    def _role(guild: FakeGuild, role_id: int) -> FakeRole:
        role = guild.roles.get(role_id)
        if role is None:
            raise not_found(UNKNOWN_ROLE, "Unknown Role")
        return role

    def _check_may_change(self, guild: FakeGuild, roles: Iterable[FakeRole]) -> None:
        roles = list(roles)
        if not roles:
            return
        bot_id = self.state.bot.id
        if not guild.permissions(bot_id) & MANAGE_ROLES:
            raise missing_permissions()
        if bot_id == guild.owner_id:
            return
        top = highest_position(guild, bot_id)
        for role in roles:
            if role.bot_id is not None or role.id == guild.id or role.position >= top:
                raise missing_permissions()

    def _set_roles(self, guild: FakeGuild, member: FakeMember, roles: list[FakeRole]) -> None:
        member.roles = roles
        self.state.notify()
        if guild.id in self.state.guilds:
            self.gateway.member_updated(member)


def highest_position(guild: FakeGuild, user_id: int) -> int:
    """The position of the member's highest role (``@everyone``'s, 0, when they have none)."""
    member = guild.member(user_id)
    return max((role.position for role in member.roles), default=0) if member else 0
