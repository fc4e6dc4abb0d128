"""The REST API and the gateway endpoint as one aiohttp application.

Every request is recorded (method, path, route, query, JSON body, time, whether it carried the
bot's token), then rate limited as Discord does (``ratelimits.py``), then handled; a route the
fake does not know answers Discord's 404 JSON and is marked unexpected. Every answer carries
``Via`` and, on a bucketed route, the ``X-RateLimit-*`` headers.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from aiohttp import web

from .channel_routes import ChannelRoutes
from .commands import listed
from .errors import (
    GENERAL_ERROR,
    INVALID_JSON,
    JSON,
    UNKNOWN_APPLICATION,
    UNKNOWN_USER,
    APIError,
    not_found,
    unauthorized,
)
from .events import PRIVILEGED_INTENT_FLAGS
from .gateway import Gateway
from .interaction_routes import InteractionRoutes
from .invalid_requests import InvalidRequests
from .member_roles import MemberRoleRoutes
from .ratelimits import VIA, RateLimiter
from .records import FakeGuild
from .replies import NotModelled, Route, json_response, no_content, snowflake, top_level_resource
from .state import DiscordState

API_PREFIX = "/api/v10"
GATEWAY_PATH = "/gateway"
NOT_FOUND = {"message": "404: Not Found", "code": GENERAL_ERROR}
UNAVAILABLE = {"message": "503: Service Unavailable", "code": GENERAL_ERROR}


class RestAPI:
    """The REST handlers, over the fake's state, gateway and rate limiter."""

    def __init__(
        self, state: DiscordState, gateway: Gateway, limiter: RateLimiter, *, shards: int = 1
    ) -> None:
        self.state = state
        self.gateway = gateway
        self.limiter = limiter
        self.shards = shards
        """The shard count ``GET /gateway/bot`` recommends."""
        self.interactions = InteractionRoutes(state, gateway)
        self.channels = ChannelRoutes(state, gateway)
        self.member_roles = MemberRoleRoutes(state, gateway)
        self.base_url = ""
        """``http://127.0.0.1:PORT``; set once the server listens."""
        self.unavailable = 0
        """REST requests still to answer 503, as in an outage (the gateway is not affected)."""
        self.unavailable_to_bot_token = False
        """The outage answers only requests made with the bot's token (interaction tokens work)."""
        self.invalid = InvalidRequests(state.clock)
        """The invalid answers (401, 403, 429) counted toward Discord's ban."""

    def routes(self) -> list[Route]:
        commands = [
            route
            for scope in ("", "/guilds/{guild_id}")
            for route in self._command_routes(f"/applications/{{application_id}}{scope}/commands")
        ]
        return [
            Route("GET", "/gateway", self.get_gateway, public=True),
            Route("GET", "/gateway/bot", self.get_gateway_bot),
            Route("GET", "/users/@me", self.get_me),
            Route("POST", "/users/@me/channels", self.create_dm),
            Route("GET", "/users/{user_id}", self.get_user),
            Route("GET", "/oauth2/applications/@me", self.get_application),
            Route("GET", "/applications/@me", self.get_application),
            *commands,
            *self.interactions.routes(),
            *self.channels.routes(),
            Route("GET", "/guilds/{guild_id}", self.get_guild),
            Route("GET", "/guilds/{guild_id}/channels", self.get_guild_channels),
            Route("GET", "/guilds/{guild_id}/members/{user_id}", self.get_member),
            *self.member_roles.routes(),
        ]

    def _command_routes(self, commands: str) -> list[Route]:
        return [
            Route("GET", commands, self.list_commands),
            Route("PUT", commands, self.overwrite_commands),
            Route("POST", commands, self.upsert_command),
            Route("GET", f"{commands}/{{command_id}}", self.get_command),
            Route("PATCH", f"{commands}/{{command_id}}", self.edit_command),
            Route("DELETE", f"{commands}/{{command_id}}", self.delete_command),
        ]

    def application(self) -> web.Application:
        app = web.Application()
        app.router.add_route("GET", GATEWAY_PATH, self._connect_gateway)
        for route in self.routes():
            app.router.add_route(route.method, API_PREFIX + route.path, self._recorded(route))
        # Registered last: whatever no route above takes (a path or a method) is unexpected.
        app.router.add_route("*", "/{tail:.*}", self._unknown_route)
        return app

    # -- plumbing -----------------------------------------------------------------------------

    def _has_bot_token(self, request: web.Request) -> bool:
        return request.headers.get("Authorization") == f"Bot {self.state.token}"

    def _recorded(self, route: Route) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        """Wrap a route's handler: record, rate limit, check the token, answer errors as JSON."""

        async def handle(request: web.Request) -> web.StreamResponse:
            path = request.path.removeprefix(API_PREFIX)
            bot_token = self._has_bot_token(request)
            record = self.state.record_request(
                request.method, path, request.query, None, route=route.path, bot_token=bot_token
            )
            banned = self.invalid.ban()
            if banned is not None:  # Cloudflare answers before the API
                record.status = banned.status
                self.state.notify()
                return banned
            out = self.unavailable and (bot_token or not self.unavailable_to_bot_token)
            if out:  # an outage: answered before any limit counts the request
                self.unavailable -= 1
                outage = json_response(UNAVAILABLE, status=503)
                outage.headers["Via"] = VIA
                record.status = outage.status
                self.state.notify()
                return outage
            admission = self.limiter.admit(
                method=request.method,
                route=route.path,
                path=path,
                bucket=route.bucket,
                resource=top_level_resource(request),
                counts_globally=bot_token and not route.interaction,
            )
            response: web.StreamResponse
            try:
                payload: JSON = None
                if request.method in ("POST", "PUT", "PATCH") and request.can_read_body:
                    payload = await self._read_payload(request)
                record.json = payload
                if admission.refusal is not None:
                    response = json_response(admission.refusal, status=429)
                else:
                    if route.needs_bot_token and not bot_token:
                        raise unauthorized()
                    response = await route.handler(request, payload)
            except APIError as error:
                response = json_response(error.body(), status=error.status)
            except NotModelled:
                record.expected = False
                response = json_response(NOT_FOUND, status=404)
            response.headers["Via"] = VIA
            response.headers.update(admission.headers)
            record.status = response.status
            self.invalid.answered(response.status, response.headers.get("X-RateLimit-Scope"))
            self.state.notify()
            return response

        return handle

    async def _unknown_route(self, request: web.Request) -> web.Response:
        """Discord's answer to a path it does not serve; the request is marked unexpected."""
        path = request.path.removeprefix(API_PREFIX)
        record = self.state.record_request(
            request.method, path, request.query, None, bot_token=self._has_bot_token(request)
        )
        record.expected = False
        record.status = 404
        self.state.notify()
        return json_response(NOT_FOUND, status=404)

    async def _connect_gateway(self, request: web.Request) -> web.StreamResponse:
        record = self.state.record_request("GET", GATEWAY_PATH, request.query, None)
        record.route = GATEWAY_PATH
        record.status = 101
        return await self.gateway.handle(request)

    async def _read_payload(self, request: web.Request) -> JSON:
        """The JSON body, or a multipart body's ``payload_json`` with its files as attachments."""
        if request.content_type.startswith("multipart/"):
            return await self._read_multipart(request)
        text = await request.text()
        if not text:
            return None
        try:
            return json.loads(text)
        except ValueError:
            raise APIError(400, INVALID_JSON, "The request body contains invalid JSON.") from None

    async def _read_multipart(self, request: web.Request) -> JSON:
        form = await request.post()
        raw = form.get("payload_json")
        try:
            payload = json.loads(raw) if isinstance(raw, str) else {}
        except ValueError:
            raise APIError(400, INVALID_JSON, "The request body contains invalid JSON.") from None
        uploads = [value for value in form.values() if isinstance(value, web.FileField)]
        attachments = []
        for upload in uploads:
            attachment_id = self.state.new_id()
            url = f"{self.base_url}/attachments/{attachment_id}/{upload.filename}"
            data = upload.file.read()
            self.state.uploads[attachment_id] = data
            attachments.append(
                {
                    "id": str(attachment_id),
                    "filename": upload.filename,
                    "size": len(data),
                    "url": url,
                    "proxy_url": url,
                    "content_type": upload.content_type,
                }
            )
        fields = payload.get("data") if "type" in payload else payload
        if isinstance(fields, dict):
            # An entry naming an upload by its index is replaced by the stored attachment.
            kept = [
                entry
                for entry in fields.get("attachments") or []
                if not (str(entry.get("id")).isdigit() and int(entry["id"]) < len(uploads))
            ]
            fields["attachments"] = kept + attachments
        return payload

    def _check_application(self, request: web.Request) -> None:
        if request.match_info["application_id"] != str(self.state.application_id):
            raise not_found(UNKNOWN_APPLICATION, "Unknown Application")

    def _guild_in_path(self, request: web.Request) -> FakeGuild | None:
        if "guild_id" not in request.match_info:
            return None
        return self.state.guild(snowflake(request, "guild_id"))

    # -- login, gateway, users ------------------------------------------------------------------

    async def get_gateway(self, request: web.Request, payload: JSON) -> web.Response:
        return json_response({"url": self.gateway.url})

    async def get_gateway_bot(self, request: web.Request, payload: JSON) -> web.Response:
        limit = self.gateway.starts.limit()
        return json_response(
            {"url": self.gateway.url, "shards": self.shards, "session_start_limit": limit}
        )

    async def get_me(self, request: web.Request, payload: JSON) -> web.Response:
        bot = self.state.bot.payload()
        return json_response({**bot, "verified": True, "mfa_enabled": False, "locale": "en-US"})

    async def get_user(self, request: web.Request, payload: JSON) -> web.Response:
        return json_response(self.state.user(snowflake(request, "user_id")).payload())

    async def create_dm(self, request: web.Request, payload: JSON) -> web.Response:
        body = payload if isinstance(payload, dict) else {}
        recipient = str(body.get("recipient_id", ""))
        if not recipient.isdigit():
            raise not_found(UNKNOWN_USER, "Unknown User")
        user = self.state.user(int(recipient))
        return json_response(self.state.dm_channel(user).payload())

    async def get_application(self, request: web.Request, payload: JSON) -> web.Response:
        state = self.state
        flags = PRIVILEGED_INTENT_FLAGS if self.gateway.privileged_intents else 0
        return json_response(
            {
                "id": str(state.application_id),
                "name": state.bot.name,
                "icon": None,
                "description": "",
                "summary": "",
                "type": None,
                "bot": state.bot.payload(),
                "bot_public": True,
                "bot_require_code_grant": False,
                "verify_key": "0" * 64,
                "owner": state.owner.payload(),
                "team": None,
                "flags": flags,
                "rpc_origins": [],
                "tags": [],
                "install_params": None,
                "custom_install_url": None,
                "interactions_endpoint_url": None,
                "redirect_uris": [],
                "approximate_guild_count": len(state.guilds),
                "integration_types_config": {"0": {}},
            }
        )

    # -- application commands -------------------------------------------------------------------

    def _command_scope(self, request: web.Request) -> int | None:
        self._check_application(request)
        guild = self._guild_in_path(request)
        return None if guild is None else guild.id

    async def list_commands(self, request: web.Request, payload: JSON) -> web.Response:
        commands = self.state.commands.commands(self._command_scope(request))
        full = request.query.get("with_localizations", "").lower() in ("true", "1")
        locale = request.headers.get("X-Discord-Locale")
        return json_response(listed(commands, with_localizations=full, locale=locale))

    async def overwrite_commands(self, request: web.Request, payload: JSON) -> web.Response:
        scope = self._command_scope(request)
        stored = self.state.commands.overwrite(scope, payload)
        self.state.notify()
        return json_response(stored)

    async def upsert_command(self, request: web.Request, payload: JSON) -> web.Response:
        scope = self._command_scope(request)
        stored = self.state.commands.upsert(scope, payload)
        self.state.notify()
        return json_response(stored, status=201)

    async def get_command(self, request: web.Request, payload: JSON) -> web.Response:
        scope = self._command_scope(request)
        return json_response(self.state.commands.command(scope, snowflake(request, "command_id")))

    async def edit_command(self, request: web.Request, payload: JSON) -> web.Response:
        scope = self._command_scope(request)
        changes = payload if isinstance(payload, dict) else {}
        edited = self.state.commands.edit(scope, snowflake(request, "command_id"), changes)
        return json_response(edited)

    async def delete_command(self, request: web.Request, payload: JSON) -> web.Response:
        scope = self._command_scope(request)
        self.state.commands.delete(scope, snowflake(request, "command_id"))
        return no_content()

    # -- guilds ---------------------------------------------------------------------------------

    async def get_guild(self, request: web.Request, payload: JSON) -> web.Response:
        guild = self.state.guild(snowflake(request, "guild_id"))
        return json_response(guild.rest_payload())

    async def get_guild_channels(self, request: web.Request, payload: JSON) -> web.Response:
        guild = self.state.guild(snowflake(request, "guild_id"))
        return json_response([channel.payload() for channel in guild.channels.values()])

    async def get_member(self, request: web.Request, payload: JSON) -> web.Response:
        guild = self.state.guild(snowflake(request, "guild_id"))
        member = self.state.member(guild, snowflake(request, "user_id"))
        return json_response(member.payload())
