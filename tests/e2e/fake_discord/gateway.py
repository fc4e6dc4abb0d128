"""The gateway: Discord's websocket protocol (v10, JSON text frames, no compression).

A client connects, gets HELLO, heartbeats (each answered by an ACK) and IDENTIFYs; it then gets
READY and one GUILD_CREATE per guild. Events are numbered per session and kept, so a client that
lost its connection can RESUME and receive what it missed. Message events respect the session's
intents the way Discord does (no GUILD_MESSAGES, no guild messages; no MESSAGE_CONTENT, no content
in guild messages that neither come from the bot nor mention it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import WSMsgType, web

from .errors import JSON
from .state import DiscordState, FakeChannel, FakeGuild, FakeMember, FakeMessage

log = logging.getLogger(__name__)

# Opcodes.
DISPATCH = 0
HEARTBEAT = 1
IDENTIFY = 2
PRESENCE_UPDATE = 3
VOICE_STATE_UPDATE = 4
RESUME = 6
RECONNECT = 7
REQUEST_GUILD_MEMBERS = 8
INVALID_SESSION = 9
HELLO = 10
HEARTBEAT_ACK = 11

# Intents.
GUILDS = 1 << 0
GUILD_MEMBERS = 1 << 1
GUILD_PRESENCES = 1 << 8
GUILD_MESSAGES = 1 << 9
DIRECT_MESSAGES = 1 << 12
MESSAGE_CONTENT = 1 << 15
PRIVILEGED_INTENTS = GUILD_MEMBERS | GUILD_PRESENCES | MESSAGE_CONTENT

# Application flags granting the privileged intents to an unverified bot.
PRIVILEGED_INTENT_FLAGS = (1 << 13) | (1 << 15) | (1 << 19)

# Close codes.
UNKNOWN_OPCODE = 4001
DECODE_ERROR = 4002
NOT_AUTHENTICATED = 4003
AUTHENTICATION_FAILED = 4004
ALREADY_AUTHENTICATED = 4005
INVALID_INTENTS = 4013
DISALLOWED_INTENTS = 4014

EVENT_LOG_SIZE = 5000
"""Events kept per session for RESUME; an older gap gets INVALID_SESSION instead."""


@dataclass
class _Frame:
    text: str
    sent: asyncio.Future[float] | None = None


class GatewayConnection:
    """One websocket; frames leave in order through a single sender task."""

    def __init__(self, ws: web.WebSocketResponse, clock: Callable[[], float]) -> None:
        self.ws = ws
        self._clock = clock
        self._queue: asyncio.Queue[_Frame] = asyncio.Queue()
        self._sender = asyncio.create_task(self._send_frames(), name="fake-discord-gateway-send")

    def send(self, text: str, sent: asyncio.Future[float] | None = None) -> None:
        """Queue a frame; ``sent`` gets the clock time once it is written to the socket."""
        self._queue.put_nowait(_Frame(text, sent))

    def send_op(self, op: int, data: JSON) -> None:
        self.send(json.dumps({"op": op, "d": data, "s": None, "t": None}))

    async def _send_frames(self) -> None:
        while True:
            frame = await self._queue.get()
            try:
                await self._write(frame)
            finally:
                self._queue.task_done()

    async def _write(self, frame: _Frame) -> None:
        if self.ws.closed:
            return
        try:
            await self.ws.send_str(frame.text)
        except (ConnectionError, RuntimeError):
            log.debug("gateway frame not sent: the connection is closing")
            return
        if frame.sent is not None and not frame.sent.done():
            frame.sent.set_result(self._clock())

    async def close(self, code: int, reason: str = "") -> None:
        """Close with ``code`` once the frames already queued have gone out."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._queue.join(), timeout=1.0)
        await self.ws.close(code=code, message=reason.encode())

    async def stop(self) -> None:
        self._sender.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._sender


@dataclass(eq=False)
class GatewaySession:
    """An identified session: its intents, numbered events, and current connection (if any)."""

    id: str
    intents: int
    shard: JSON = None
    sequence: int = 0
    log: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=EVENT_LOG_SIZE))
    pending: dict[int, asyncio.Future[float]] = field(default_factory=dict)
    connection: GatewayConnection | None = None


class Gateway:
    """Every gateway session and connection of the fake, and the events sent to them."""

    def __init__(
        self,
        state: DiscordState,
        *,
        heartbeat_interval: float,
        privileged_intents: bool,
    ) -> None:
        self._state = state
        self.loop: asyncio.AbstractEventLoop | None = None
        """The loop the server runs on; events may be dispatched from outside it (sync code)."""
        self.heartbeat_interval = heartbeat_interval
        self.privileged_intents = privileged_intents
        self.url = ""
        """The websocket URL, also sent as ``resume_gateway_url``; set once the server listens."""
        self.session: GatewaySession | None = None
        """The session events go to: the one identified last."""
        self._sessions: dict[str, GatewaySession] = {}
        self._connections: set[GatewayConnection] = set()
        self.identify_count = 0
        self.resume_count = 0

    @property
    def connected(self) -> bool:
        return self.session is not None and self.session.connection is not None

    # -- connection handling ------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        """The websocket endpoint; any query (``?v=10&encoding=json&compress=...``) is accepted."""
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        connection = GatewayConnection(ws, self._state.clock)
        self._connections.add(connection)
        session: GatewaySession | None = None
        interval_ms = int(self.heartbeat_interval * 1000)
        connection.send_op(HELLO, {"heartbeat_interval": interval_ms, "_trace": ["fake-discord"]})
        try:
            async for message in ws:
                if message.type is not WSMsgType.TEXT:
                    await connection.close(DECODE_ERROR, "Error while decoding payload.")
                    break
                try:
                    payload = json.loads(message.data)
                    op, data = payload["op"], payload.get("d")
                except (ValueError, KeyError, TypeError):
                    await connection.close(DECODE_ERROR, "Error while decoding payload.")
                    break
                session = await self._receive(connection, session, op, data)
        finally:
            self._connections.discard(connection)
            await connection.stop()
            if session is not None and session.connection is connection:
                session.connection = None
        return ws

    async def _receive(
        self,
        connection: GatewayConnection,
        session: GatewaySession | None,
        op: object,
        data: JSON,
    ) -> GatewaySession | None:
        if op == HEARTBEAT:
            connection.send_op(HEARTBEAT_ACK, None)
        elif op == IDENTIFY:
            if session is not None:
                await connection.close(ALREADY_AUTHENTICATED, "Already authenticated.")
                return session
            return await self._identify(connection, data)
        elif op == RESUME:
            return await self._resume(connection, data)
        elif session is None:
            await connection.close(NOT_AUTHENTICATED, "Not authenticated.")
        elif op == REQUEST_GUILD_MEMBERS:
            self._send_members(session, data)
        elif op not in (PRESENCE_UPDATE, VOICE_STATE_UPDATE):
            await connection.close(UNKNOWN_OPCODE, "Unknown opcode.")
        return session

    async def _identify(self, connection: GatewayConnection, data: JSON) -> GatewaySession | None:
        if not isinstance(data, dict) or data.get("token") != self._state.token:
            await connection.close(AUTHENTICATION_FAILED, "Authentication failed.")
            return None
        intents = data.get("intents")
        if not isinstance(intents, int) or isinstance(intents, bool) or intents < 0:
            await connection.close(INVALID_INTENTS, "Invalid intent(s).")
            return None
        if intents & PRIVILEGED_INTENTS and not self.privileged_intents:
            await connection.close(DISALLOWED_INTENTS, "Disallowed intent(s).")
            return None
        session = GatewaySession(secrets.token_hex(16), intents, data.get("shard"))
        previous = self.session
        if previous is not None and previous.connection is not None:
            await previous.connection.close(4000, "Session replaced.")
        self._sessions[session.id] = session
        self.session = session
        session.connection = connection
        self.identify_count += 1
        self._send(session, "READY", self._ready_payload(session))
        for guild in self._state.guilds.values():
            self._send(session, "GUILD_CREATE", self._guild_create_payload(session, guild))
        return session

    async def _resume(self, connection: GatewayConnection, data: JSON) -> GatewaySession | None:
        session = None
        if isinstance(data, dict) and data.get("token") == self._state.token:
            session = self._sessions.get(str(data.get("session_id")))
        sequence = data.get("seq") if isinstance(data, dict) else None
        sequence = sequence if isinstance(sequence, int) else 0
        if session is not None and session.log and session.log[0][0] > sequence + 1:
            session = None  # the events it missed are no longer kept
        if session is None:
            connection.send_op(INVALID_SESSION, False)
            return None
        if session.connection is not None and session.connection is not connection:
            await session.connection.close(4000, "Session resumed elsewhere.")
        session.connection = connection
        self.session = session
        for number, text in session.log:
            if number > sequence:
                connection.send(text, session.pending.get(number))
        self.resume_count += 1
        self._send(session, "RESUMED", {"_trace": ["fake-discord"]})
        return session

    def _send_members(self, session: GatewaySession, data: JSON) -> None:
        """Answer REQUEST_GUILD_MEMBERS (op 8) with one GUILD_MEMBERS_CHUNK."""
        if not isinstance(data, dict):
            return
        guild = self._state.guilds.get(int(data.get("guild_id") or 0))
        if guild is None:
            return
        members = list(guild.members.values())
        not_found: list[str] = []
        user_ids = data.get("user_ids")
        if user_ids:
            wanted = {int(i) for i in (user_ids if isinstance(user_ids, list) else [user_ids])}
            members = [member for member in members if member.id in wanted]
            not_found = [str(i) for i in sorted(wanted - {member.id for member in members})]
        elif data.get("query"):
            query = str(data["query"]).lower()
            members = [m for m in members if _member_name_starts(m, query)]
        limit = data.get("limit") or 0
        if limit:
            members = members[:limit]
        chunk: dict[str, JSON] = {
            "guild_id": str(guild.id),
            "members": [member.payload() for member in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": not_found,
        }
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        self._send(session, "GUILD_MEMBERS_CHUNK", chunk)

    # -- payloads -----------------------------------------------------------------------------

    def _ready_payload(self, session: GatewaySession) -> dict[str, JSON]:
        state = self._state
        flags = PRIVILEGED_INTENT_FLAGS if self.privileged_intents else 0
        payload: dict[str, JSON] = {
            "v": 10,
            "user": {**state.bot.payload(), "verified": True, "mfa_enabled": False},
            "guilds": [{"id": str(guild_id), "unavailable": True} for guild_id in state.guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.url,
            "application": {"id": str(state.application_id), "flags": flags},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "_trace": ["fake-discord"],
        }
        if session.shard is not None:
            payload["shard"] = session.shard
        return payload

    def _guild_create_payload(self, session: GatewaySession, guild: FakeGuild) -> dict[str, JSON]:
        # Without GUILD_PRESENCES Discord sends only the bot's own member here.
        if session.intents & GUILD_PRESENCES:
            members = list(guild.members.values())
        else:
            members = [guild.members[self._state.bot.id]]
        return guild.payload(members=members)

    def _message_payload(self, session: GatewaySession, message: FakeMessage) -> JSON:
        """A message as this session may see it, or ``None`` if its intents exclude it."""
        if message.ephemeral:
            return None
        direct = message.channel.is_dm
        if not session.intents & (DIRECT_MESSAGES if direct else GUILD_MESSAGES):
            return None
        payload = message.payload()
        if direct:
            return payload
        guild = self._state.guilds[message.channel.guild_id or 0]
        payload["guild_id"] = str(guild.id)
        member = guild.member(message.author.id)
        if member is not None:
            payload["member"] = member.payload(with_user=False)
        bot = self._state.bot
        readable = message.author is bot or bot in message.mentions
        if not session.intents & MESSAGE_CONTENT and not readable:
            payload.update(content="", embeds=[], attachments=[], components=[])
        return payload

    # -- sending events -----------------------------------------------------------------------

    def _send(self, session: GatewaySession, event: str, data: JSON) -> asyncio.Future[float]:
        session.sequence += 1
        number = session.sequence
        text = json.dumps({"op": DISPATCH, "t": event, "s": number, "d": data})
        session.log.append((number, text))
        loop = self.loop or asyncio.get_running_loop()
        sent: asyncio.Future[float] = loop.create_future()
        session.pending[number] = sent
        sent.add_done_callback(lambda _: session.pending.pop(number, None))
        if session.connection is not None:
            session.connection.send(text, sent)
        return sent

    def dispatch(self, event: str, data: JSON) -> asyncio.Future[float] | None:
        """Send an event to the current session; the future gets the time it was written.

        Without a connection the event waits in the session's log for a RESUME. Returns ``None``
        when no client ever identified.
        """
        if self.session is None:
            return None
        return self._send(self.session, event, data)

    def message_created(self, message: FakeMessage) -> asyncio.Future[float] | None:
        """Send MESSAGE_CREATE if the session's intents let it see ``message``."""
        return self._dispatch_message("MESSAGE_CREATE", message)

    def message_updated(self, message: FakeMessage) -> asyncio.Future[float] | None:
        """Send MESSAGE_UPDATE if the session's intents let it see ``message``."""
        return self._dispatch_message("MESSAGE_UPDATE", message)

    def message_deleted(self, message: FakeMessage) -> None:
        session = self.session
        if session is None or message.ephemeral:
            return
        direct = message.channel.is_dm
        if not session.intents & (DIRECT_MESSAGES if direct else GUILD_MESSAGES):
            return
        data: dict[str, JSON] = {"id": str(message.id), "channel_id": str(message.channel.id)}
        if not direct:
            data["guild_id"] = str(message.channel.guild_id)
        self._send(session, "MESSAGE_DELETE", data)

    def _dispatch_message(self, event: str, message: FakeMessage) -> asyncio.Future[float] | None:
        session = self.session
        if session is None:
            return None
        payload = self._message_payload(session, message)
        return None if payload is None else self._send(session, event, payload)

    def guild_created(self, guild: FakeGuild) -> None:
        if self.session is not None and self.session.intents & GUILDS:
            self._send(
                self.session, "GUILD_CREATE", self._guild_create_payload(self.session, guild)
            )

    def channel_created(self, channel: FakeChannel) -> None:
        if self.session is not None and self.session.intents & GUILDS:
            self._send(self.session, "CHANNEL_CREATE", channel.payload())

    def member_added(self, member: FakeMember) -> None:
        if self.session is not None and self.session.intents & GUILD_MEMBERS:
            data = {**member.payload(), "guild_id": str(member.guild_id)}
            self._send(self.session, "GUILD_MEMBER_ADD", data)

    def guild_deleted(self, guild: FakeGuild) -> None:
        """GUILD_DELETE without ``unavailable``: the bot was removed from the guild."""
        if self.session is not None and self.session.intents & GUILDS:
            self._send(self.session, "GUILD_DELETE", {"id": str(guild.id)})

    def member_removed(self, member: FakeMember) -> None:
        if self.session is not None and self.session.intents & GUILD_MEMBERS:
            data = {"guild_id": str(member.guild_id), "user": member.user.payload()}
            self._send(self.session, "GUILD_MEMBER_REMOVE", data)

    # -- control ------------------------------------------------------------------------------

    async def drop_connection(self, code: int = 4000) -> None:
        """Close the current connection as a network failure would; the session stays resumable."""
        if self.session is not None and self.session.connection is not None:
            await self.session.connection.close(code, "Connection dropped by the test.")

    def request_reconnect(self) -> None:
        """Send RECONNECT (op 7), as Discord does before maintenance: the client resumes."""
        if self.session is not None and self.session.connection is not None:
            self.session.connection.send_op(RECONNECT, None)

    async def close(self) -> None:
        for connection in list(self._connections):
            await connection.close(1001, "Server shutting down.")


def _member_name_starts(member: FakeMember, query: str) -> bool:
    names = [member.user.name, member.nick or ""]
    return any(name.lower().startswith(query) for name in names if name)
