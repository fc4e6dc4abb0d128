"""The channel routes the bot calls with its token: channels, messages and threads.

Each checks the bot's permissions in the channel first (``access.py``), then the thread's state
(``threads.py``), then the payload against Discord's limits (``messages.py``).
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from .access import check_new_message, require, visible
from .errors import (
    CANNOT_ACT_ON_DM,
    CANNOT_EDIT_OTHERS_MESSAGE,
    CANNOT_SEND_TO_USER,
    INVALID_FORM_BODY,
    JSON,
    THREAD_ALREADY_CREATED,
    WRONG_CHANNEL_TYPE,
    APIError,
    missing_permissions,
)
from .gateway import Gateway
from .limits import EPHEMERAL
from .messages import checked_edit, checked_fields
from .permissions import (
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    EMBED_LINKS,
    MANAGE_MESSAGES,
    READ_MESSAGE_HISTORY,
    sending_permission,
)
from .records import GUILD_TEXT, PUBLIC_THREAD, THREAD_CREATED, FakeChannel, FakeMessage
from .replies import NotModelled, Route, json_response, no_content, snowflake
from .state import DiscordState
from .threads import (
    check_delete,
    check_edit,
    check_post,
    check_thread_fields,
    edit_thread,
    set_archived,
)

HAS_THREAD = 1 << 5
"""Message flag: a thread was started from this message."""


class ChannelRoutes:
    """Handlers of ``/channels/{channel_id}...``."""

    def __init__(self, state: DiscordState, gateway: Gateway) -> None:
        self.state = state
        self.gateway = gateway

    def routes(self) -> list[Route]:
        channel = "/channels/{channel_id}"
        message = f"{channel}/messages/{{message_id}}"
        return [
            Route("GET", channel, self.get_channel),
            Route("PATCH", channel, self.edit_channel),
            Route("POST", f"{channel}/typing", self.typing),
            Route("GET", f"{channel}/messages", self.list_messages),
            Route("POST", f"{channel}/messages", self.create_message, "create_message"),
            Route("GET", message, self.get_message),
            Route("PATCH", message, self.edit_message, "edit_message"),
            Route("DELETE", message, self.delete_message, "delete_message"),
            Route("POST", f"{channel}/threads", self.start_thread),
            Route("POST", f"{message}/threads", self.start_thread_from_message),
        ]

    def _channel(self, request: web.Request) -> tuple[FakeChannel, int]:
        """The channel of the path and the bot's permissions there (403 if it cannot see it)."""
        channel = self.state.channel(snowflake(request, "channel_id"))
        return channel, visible(self.state, channel)

    def _message(self, request: web.Request, channel: FakeChannel) -> FakeMessage:
        return self.state.channel_message(channel, snowflake(request, "message_id"))

    # -- channels -------------------------------------------------------------------------------

    async def get_channel(self, request: web.Request, payload: JSON) -> web.Response:
        channel, _ = self._channel(request)
        return json_response(channel.payload(member_id=self.state.bot.id))

    async def edit_channel(self, request: web.Request, payload: JSON) -> web.Response:
        """Edit a thread (name, archived, locked, auto-archive); other channels are not modelled."""
        channel, permissions = self._channel(request)
        if not channel.is_thread:
            raise NotModelled("editing a channel that is not a thread")
        changes = payload if isinstance(payload, dict) else {}
        if channel.archived and changes.get("archived") is False:
            self.state.check_thread_room(channel.guild_id or 0)
        edit_thread(channel, changes, permissions=permissions, user_id=self.state.bot.id)
        self.state.notify()
        self.gateway.thread_updated(channel)
        return json_response(channel.payload(member_id=self.state.bot.id))

    async def typing(self, request: web.Request, payload: JSON) -> web.Response:
        channel, permissions = self._channel(request)
        if channel.guild_id is not None:
            require(permissions, sending_permission(channel.is_thread))
        return no_content()

    # -- messages -------------------------------------------------------------------------------

    async def list_messages(self, request: web.Request, payload: JSON) -> web.Response:
        channel, permissions = self._channel(request)
        try:
            limit = min(100, max(1, int(request.query.get("limit", "50"))))
            before = int(request.query.get("before", "0")) or None
            after = int(request.query.get("after", "0"))
        except ValueError:
            raise APIError(400, INVALID_FORM_BODY, "Invalid Form Body") from None
        if not permissions & READ_MESSAGE_HISTORY:
            return json_response([])
        found = [
            message
            for message in self.state.channel_messages(channel)
            if not message.ephemeral
            and message.id > after
            and (before is None or message.id < before)
        ]
        # Discord gives the ``limit`` messages nearest to ``after`` (without ``before``), else
        # the newest, newest first either way.
        ordered = sorted(found, key=lambda message: message.id)
        page = ordered[:limit] if after and before is None else ordered[-limit:]
        return json_response([message.payload() for message in reversed(page)])

    async def create_message(self, request: web.Request, payload: JSON) -> web.Response:
        channel, permissions = self._channel(request)
        if channel.recipient is not None:
            if channel.recipient.bot or not channel.recipient.dms_open:
                raise APIError(403, CANNOT_SEND_TO_USER, "Cannot send messages to this user")
        else:
            check_new_message(channel, permissions, payload if isinstance(payload, dict) else {})
        unarchives = channel.is_thread and check_post(channel, permissions)
        if unarchives:
            self.state.check_thread_room(channel.guild_id or 0)
        sent = self.state.sent_with_nonce(channel, payload)
        if sent is not None:
            # Discord's enforce_nonce: the same nonce again within minutes answers with the
            # message it made the first time, and posts nothing.
            return json_response(sent.payload())
        embeds = bool(permissions & EMBED_LINKS)
        fields: dict[str, Any] = dict(checked_fields(payload, embeds_allowed=embeds))
        # Only interaction responses can be ephemeral; Discord ignores the flag elsewhere.
        fields["flags"] = (fields.get("flags") or 0) & ~EPHEMERAL
        if unarchives:
            set_archived(channel, False)
            self.gateway.thread_updated(channel)
        message = self.state.create_message(channel, self.state.bot, fields)
        self.state.remember_nonce(channel, payload, message)
        self.gateway.message_created(message)
        return json_response(message.payload())

    async def get_message(self, request: web.Request, payload: JSON) -> web.Response:
        channel, permissions = self._channel(request)
        require(permissions, READ_MESSAGE_HISTORY)
        return json_response(self._message(request, channel).payload())

    async def edit_message(self, request: web.Request, payload: JSON) -> web.Response:
        channel, permissions = self._channel(request)
        message = self._message(request, channel)
        if message.author is not self.state.bot:
            message_text = "Cannot edit a message authored by another user"
            raise APIError(403, CANNOT_EDIT_OTHERS_MESSAGE, message_text)
        if channel.is_thread:
            check_edit(channel, permissions)
        embeds = bool(permissions & EMBED_LINKS)
        checked_edit(self.state, message, payload, embeds_allowed=embeds)
        self.gateway.message_updated(message)
        return json_response(message.payload())

    async def delete_message(self, request: web.Request, payload: JSON) -> web.Response:
        channel, permissions = self._channel(request)
        message = self._message(request, channel)
        if message.author is not self.state.bot:
            if channel.is_dm:
                raise APIError(403, CANNOT_ACT_ON_DM, "Cannot execute action on a DM channel")
            require(permissions, MANAGE_MESSAGES)
        if channel.is_thread:
            check_delete(channel, permissions)
        self.state.delete_message(message)
        self.gateway.message_deleted(message)
        return no_content()

    # -- threads --------------------------------------------------------------------------------

    def _thread_parent(self, request: web.Request) -> tuple[FakeChannel, int]:
        channel, permissions = self._channel(request)
        if channel.type != GUILD_TEXT:
            raise APIError(400, WRONG_CHANNEL_TYPE, "Cannot execute action on this channel type")
        return channel, permissions

    async def start_thread(self, request: web.Request, payload: JSON) -> web.Response:
        parent, permissions = self._thread_parent(request)
        name, duration, kind = check_thread_fields(payload, with_type=True)
        needed = CREATE_PUBLIC_THREADS if kind == PUBLIC_THREAD else CREATE_PRIVATE_THREADS
        require(permissions, needed)
        self.state.check_thread_room(parent.guild_id or 0)
        thread = self.state.add_thread(
            parent, name, owner=self.state.bot, kind=kind, auto_archive_duration=duration
        )
        self.gateway.thread_created(thread)
        self._announce_thread(parent, thread)
        return json_response(thread.payload(member_id=self.state.bot.id), status=201)

    def _announce_thread(self, parent: FakeChannel, thread: FakeChannel) -> None:
        """Discord's system message in the parent: "<creator> started a thread: <name>",
        referring to the thread (the Discord side counts it like any message there)."""
        reference = {"channel_id": str(thread.id), "guild_id": str(parent.guild_id)}
        notice = self.state.create_message(
            parent,
            self.state.bot,
            {"content": thread.name, "message_reference": reference},
            message_type=THREAD_CREATED,
        )
        self.gateway.message_created(notice)

    async def start_thread_from_message(self, request: web.Request, payload: JSON) -> web.Response:
        parent, permissions = self._thread_parent(request)
        message = self._message(request, parent)
        name, duration, kind = check_thread_fields(payload, with_type=False)
        if not permissions & CREATE_PUBLIC_THREADS:
            raise missing_permissions()
        if message.id in self.state.channels:
            message_text = "A thread has already been created for this message"
            raise APIError(400, THREAD_ALREADY_CREATED, message_text)
        self.state.check_thread_room(parent.guild_id or 0)
        thread = self.state.add_thread(
            parent,
            name,
            owner=self.state.bot,
            kind=kind,
            thread_id=message.id,
            auto_archive_duration=duration,
        )
        message.flags |= HAS_THREAD
        self.gateway.thread_created(thread)
        self.gateway.message_updated(message)
        self._announce_thread(parent, thread)
        return json_response(thread.payload(member_id=self.state.bot.id), status=201)
