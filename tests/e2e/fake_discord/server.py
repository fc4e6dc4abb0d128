"""The REST API and the gateway endpoint as one aiohttp application.

Every request is recorded (method, path, query, JSON body, time); a route the fake does not know
answers Discord's 404 JSON and is marked unexpected. JSON answers carry ``Content-Type:
application/json`` exactly: with a charset, discord.py would leave the body a string.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from .errors import (
    CANNOT_ACT_ON_DM,
    CANNOT_EDIT_OTHERS_MESSAGE,
    CANNOT_SEND_TO_USER,
    GENERAL_ERROR,
    INVALID_FORM_BODY,
    INVALID_JSON,
    JSON,
    UNKNOWN_APPLICATION,
    UNKNOWN_INTERACTION,
    UNKNOWN_USER,
    UNKNOWN_WEBHOOK,
    APIError,
    missing_permissions,
    not_found,
    unauthorized,
)
from .gateway import PRIVILEGED_INTENT_FLAGS, Gateway
from .interactions import (
    DEFAULT_DEADLINE,
    Answer,
    callback_response,
    edit_webhook_message,
    followup,
    respond,
    webhook_message,
)
from .limits import EPHEMERAL
from .messages import checked_edit, checked_fields
from .state import (
    MANAGE_MESSAGES,
    SEND_MESSAGES,
    VIEW_CHANNEL,
    DiscordState,
    FakeChannel,
    FakeGuild,
    FakeInteraction,
)

API_PREFIX = "/api/v10"
GATEWAY_PATH = "/gateway"

Handler = Callable[[web.Request, JSON], Awaitable[web.StreamResponse]]
"""A route handler: the request and its JSON body (``None`` when it has none)."""


def json_response(data: JSON, status: int = 200) -> web.Response:
    """A JSON answer with ``Content-Type: application/json`` and no charset."""
    return web.Response(
        body=json.dumps(data).encode(), status=status, content_type="application/json"
    )


def no_content() -> web.Response:
    return web.Response(status=204)


def snowflake(request: web.Request, key: str) -> int:
    """A numeric path parameter; anything else is a 404 like Discord's router gives."""
    value = request.match_info[key]
    if not value.isdigit():
        raise APIError(404, GENERAL_ERROR, "404: Not Found")
    return int(value)


def truthy(value: str | None) -> bool:
    return (value or "").lower() in ("1", "true")


class RestAPI:
    """The REST handlers, over the fake's state and gateway."""

    def __init__(self, state: DiscordState, gateway: Gateway) -> None:
        self.state = state
        self.gateway = gateway
        self.interaction_deadline = DEFAULT_DEADLINE
        self.base_url = ""
        """``http://127.0.0.1:PORT``; set once the server listens."""

    def application(self) -> web.Application:
        app = web.Application()
        api = API_PREFIX

        def add(method: str, path: str, handler: Handler, *, expected: bool = True) -> None:
            app.router.add_route(method, path, self._recorded(handler, expected=expected))

        add("GET", GATEWAY_PATH, self.connect_gateway)
        add("GET", f"{api}/gateway", self.get_gateway)
        add("GET", f"{api}/gateway/bot", self.get_gateway_bot)
        add("GET", f"{api}/users/@me", self.get_me)
        add("POST", f"{api}/users/@me/channels", self.create_dm)
        add("GET", f"{api}/users/{{user_id}}", self.get_user)
        add("GET", f"{api}/oauth2/applications/@me", self.get_application)
        add("GET", f"{api}/applications/@me", self.get_application)
        for scope in ("", "/guilds/{guild_id}"):
            commands = f"{api}/applications/{{application_id}}{scope}/commands"
            add("GET", commands, self.list_commands)
            add("PUT", commands, self.overwrite_commands)
            add("POST", commands, self.upsert_command)
            add("GET", f"{commands}/{{command_id}}", self.get_command)
            add("PATCH", f"{commands}/{{command_id}}", self.edit_command)
            add("DELETE", f"{commands}/{{command_id}}", self.delete_command)
        add("POST", f"{api}/interactions/{{interaction_id}}/{{token}}/callback", self.callback)
        webhook = f"{api}/webhooks/{{application_id}}/{{token}}"
        add("POST", webhook, self.execute_webhook)
        add("GET", f"{webhook}/messages/{{message_id}}", self.get_webhook_message)
        add("PATCH", f"{webhook}/messages/{{message_id}}", self.edit_webhook_message)
        add("DELETE", f"{webhook}/messages/{{message_id}}", self.delete_webhook_message)
        channel = f"{api}/channels/{{channel_id}}"
        add("GET", channel, self.get_channel)
        add("POST", f"{channel}/typing", self.typing)
        add("GET", f"{channel}/messages", self.list_messages)
        add("POST", f"{channel}/messages", self.create_message)
        add("GET", f"{channel}/messages/{{message_id}}", self.get_message)
        add("PATCH", f"{channel}/messages/{{message_id}}", self.edit_message)
        add("DELETE", f"{channel}/messages/{{message_id}}", self.delete_message)
        add("GET", f"{api}/guilds/{{guild_id}}", self.get_guild)
        add("GET", f"{api}/guilds/{{guild_id}}/channels", self.get_guild_channels)
        add("GET", f"{api}/guilds/{{guild_id}}/members/{{user_id}}", self.get_member)
        # Registered last: whatever no route above takes (a path or a method) is unexpected.
        add("*", "/{tail:.*}", self.unknown_route, expected=False)
        return app

    # -- plumbing -----------------------------------------------------------------------------

    def _recorded(
        self, handler: Handler, *, expected: bool
    ) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        """Wrap ``handler``: record the request, read its body, answer APIErrors as JSON."""

        async def handle(request: web.Request) -> web.StreamResponse:
            path = request.path.removeprefix(API_PREFIX)
            record = self.state.record_request(request.method, path, request.query, None)
            try:
                payload: JSON = None
                if request.method in ("POST", "PUT", "PATCH") and request.can_read_body:
                    payload = await self._read_payload(request)
                record.json = payload
                response = await handler(request, payload)
            except APIError as error:
                response = json_response(error.body(), status=error.status)
            record.expected = expected
            record.status = response.status
            self.state.notify()
            return response

        return handle

    async def unknown_route(self, request: web.Request, payload: JSON) -> web.Response:
        """Discord's answer to a path it does not serve."""
        return json_response({"message": "404: Not Found", "code": GENERAL_ERROR}, 404)

    async def connect_gateway(self, request: web.Request, payload: JSON) -> web.StreamResponse:
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
            attachments.append(
                {
                    "id": str(attachment_id),
                    "filename": upload.filename,
                    "size": len(upload.file.read()),
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

    def _require_bot(self, request: web.Request) -> None:
        if request.headers.get("Authorization") != f"Bot {self.state.token}":
            raise unauthorized()

    def _check_application(self, request: web.Request) -> None:
        if request.match_info["application_id"] != str(self.state.application_id):
            raise not_found(UNKNOWN_APPLICATION, "Unknown Application")

    def _guild_in_path(self, request: web.Request) -> FakeGuild | None:
        if "guild_id" not in request.match_info:
            return None
        return self.state.guild(snowflake(request, "guild_id"))

    def _channel(self, request: web.Request) -> FakeChannel:
        return self.state.channel(snowflake(request, "channel_id"))

    def _tell_gateway(self, answer: Answer) -> None:
        if answer.created is not None:
            self.gateway.message_created(answer.created)
        if answer.updated is not None:
            self.gateway.message_updated(answer.updated)

    # -- login, gateway, users ------------------------------------------------------------------

    async def get_gateway(self, request: web.Request, payload: JSON) -> web.Response:
        return json_response({"url": self.gateway.url})

    async def get_gateway_bot(self, request: web.Request, payload: JSON) -> web.Response:
        self._require_bot(request)
        limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
        return json_response({"url": self.gateway.url, "shards": 1, "session_start_limit": limit})

    async def get_me(self, request: web.Request, payload: JSON) -> web.Response:
        self._require_bot(request)
        bot = self.state.bot.payload()
        return json_response({**bot, "verified": True, "mfa_enabled": False, "locale": "en-US"})

    async def get_user(self, request: web.Request, payload: JSON) -> web.Response:
        self._require_bot(request)
        return json_response(self.state.user(snowflake(request, "user_id")).payload())

    async def create_dm(self, request: web.Request, payload: JSON) -> web.Response:
        self._require_bot(request)
        body = payload if isinstance(payload, dict) else {}
        recipient = str(body.get("recipient_id", ""))
        if not recipient.isdigit():
            raise not_found(UNKNOWN_USER, "Unknown User")
        user = self.state.user(int(recipient))
        return json_response(self.state.dm_channel(user).payload())

    async def get_application(self, request: web.Request, payload: JSON) -> web.Response:
        self._require_bot(request)
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
        self._require_bot(request)
        self._check_application(request)
        guild = self._guild_in_path(request)
        return None if guild is None else guild.id

    async def list_commands(self, request: web.Request, payload: JSON) -> web.Response:
        return json_response(self.state.commands.commands(self._command_scope(request)))

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

    # -- interactions and their webhooks --------------------------------------------------------

    async def callback(self, request: web.Request, payload: JSON) -> web.Response:
        interaction = self.state.interactions.get(snowflake(request, "interaction_id"))
        if interaction is None or interaction.token != request.match_info["token"]:
            raise not_found(UNKNOWN_INTERACTION, "Unknown interaction")
        deadline = self.interaction_deadline
        answer = respond(self.state, interaction, payload, deadline=deadline)
        self._tell_gateway(answer)
        if truthy(request.query.get("with_response")):
            return json_response(callback_response(interaction))
        return no_content()

    def _webhook_interaction(self, request: web.Request) -> FakeInteraction:
        interaction = self.state.interaction_by_token(request.match_info["token"])
        application = request.match_info["application_id"]
        if interaction is None or application != str(self.state.application_id):
            raise not_found(UNKNOWN_WEBHOOK, "Unknown Webhook")
        return interaction

    async def execute_webhook(self, request: web.Request, payload: JSON) -> web.Response:
        interaction = self._webhook_interaction(request)
        answer = followup(self.state, interaction, payload)
        self._tell_gateway(answer)
        message = answer.created or answer.updated
        if message is not None and truthy(request.query.get("wait")):
            return json_response(message.payload())
        return no_content()

    async def get_webhook_message(self, request: web.Request, payload: JSON) -> web.Response:
        interaction = self._webhook_interaction(request)
        message = webhook_message(interaction, request.match_info["message_id"])
        return json_response(message.payload())

    async def edit_webhook_message(self, request: web.Request, payload: JSON) -> web.Response:
        interaction = self._webhook_interaction(request)
        message = webhook_message(interaction, request.match_info["message_id"])
        answer = edit_webhook_message(self.state, interaction, message, payload)
        self._tell_gateway(answer)
        return json_response(message.payload())

    async def delete_webhook_message(self, request: web.Request, payload: JSON) -> web.Response:
        interaction = self._webhook_interaction(request)
        message = webhook_message(interaction, request.match_info["message_id"])
        self.state.delete_message(message)
        self.gateway.message_deleted(message)
        return no_content()

    # -- channels and messages ------------------------------------------------------------------

    async def get_channel(self, request: web.Request, payload: JSON) -> web.Response:
        self._require_bot(request)
        return json_response(self._channel(request).payload())

    async def typing(self, request: web.Request, payload: JSON) -> web.Response:
        self._require_bot(request)
        self._channel(request)
        return no_content()

    async def list_messages(self, request: web.Request, payload: JSON) -> web.Response:
        self._require_bot(request)
        channel = self._channel(request)
        try:
            limit = min(100, max(1, int(request.query.get("limit", "50"))))
            before = int(request.query.get("before", "0")) or None
            after = int(request.query.get("after", "0"))
        except ValueError:
            raise APIError(400, INVALID_FORM_BODY, "Invalid Form Body") from None
        found = [
            message
            for message in self.state.channel_messages(channel)
            if not message.ephemeral
            and message.id > after
            and (before is None or message.id < before)
        ]
        newest = sorted(found, key=lambda message: message.id, reverse=True)[:limit]
        return json_response([message.payload() for message in newest])

    async def create_message(self, request: web.Request, payload: JSON) -> web.Response:
        self._require_bot(request)
        channel = self._channel(request)
        bot = self.state.bot
        if channel.recipient is not None:
            if channel.recipient.bot or not channel.recipient.dms_open:
                raise APIError(403, CANNOT_SEND_TO_USER, "Cannot send messages to this user")
        else:
            needed = VIEW_CHANNEL | SEND_MESSAGES
            if self.state.channel_permissions(channel, bot.id) & needed != needed:
                raise missing_permissions()
        fields: dict[str, Any] = dict(checked_fields(payload))
        # Only interaction responses can be ephemeral; Discord ignores the flag elsewhere.
        fields["flags"] = (fields.get("flags") or 0) & ~EPHEMERAL
        message = self.state.create_message(channel, bot, fields)
        self.gateway.message_created(message)
        return json_response(message.payload())

    async def get_message(self, request: web.Request, payload: JSON) -> web.Response:
        self._require_bot(request)
        channel = self._channel(request)
        message = self.state.channel_message(channel, snowflake(request, "message_id"))
        return json_response(message.payload())

    async def edit_message(self, request: web.Request, payload: JSON) -> web.Response:
        self._require_bot(request)
        channel = self._channel(request)
        message = self.state.channel_message(channel, snowflake(request, "message_id"))
        if message.author is not self.state.bot:
            message_text = "Cannot edit a message authored by another user"
            raise APIError(403, CANNOT_EDIT_OTHERS_MESSAGE, message_text)
        checked_edit(self.state, message, payload)
        self.gateway.message_updated(message)
        return json_response(message.payload())

    async def delete_message(self, request: web.Request, payload: JSON) -> web.Response:
        self._require_bot(request)
        channel = self._channel(request)
        message = self.state.channel_message(channel, snowflake(request, "message_id"))
        bot = self.state.bot
        if message.author is not bot:
            if channel.is_dm:
                raise APIError(403, CANNOT_ACT_ON_DM, "Cannot execute action on a DM channel")
            if not self.state.channel_permissions(channel, bot.id) & MANAGE_MESSAGES:
                raise missing_permissions()
        self.state.delete_message(message)
        self.gateway.message_deleted(message)
        return no_content()

    # -- guilds ---------------------------------------------------------------------------------

    async def get_guild(self, request: web.Request, payload: JSON) -> web.Response:
        self._require_bot(request)
        guild = self.state.guild(snowflake(request, "guild_id"))
        return json_response(guild.rest_payload())

    async def get_guild_channels(self, request: web.Request, payload: JSON) -> web.Response:
        self._require_bot(request)
        guild = self.state.guild(snowflake(request, "guild_id"))
        return json_response([channel.payload() for channel in guild.channels.values()])

    async def get_member(self, request: web.Request, payload: JSON) -> web.Response:
        self._require_bot(request)
        guild = self.state.guild(snowflake(request, "guild_id"))
        member = self.state.member(guild, snowflake(request, "user_id"))
        return json_response(member.payload())
