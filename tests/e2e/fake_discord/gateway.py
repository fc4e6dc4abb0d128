"""The gateway: Discord's websocket protocol (v10, JSON text frames, no compression).

A client connects, gets HELLO, heartbeats (each answered by an ACK) and IDENTIFYs, with a shard
pair if it shards; it then gets READY and one GUILD_CREATE per guild of its shard. Any number of
sessions may be open at once: a guild's events go to every session on its shard, DMs to shard 0
(see ``shards.py``). Events are numbered per session and kept, so a client that lost its
connection can RESUME and receive what it missed; a client that closes with 1000 or 1001 ends its
session, as on Discord. What each session is sent depends on its intents (see ``events.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from aiohttp import WSMsgType, web

from .errors import JSON
from .events import (
    GUILD_MEMBERS,
    GUILDS,
    TRACE,
    bot_sees,
    guild_create_payload,
    message_delete_payload,
    message_payload,
    ready_payload,
)
from .events import PRIVILEGED_INTENTS as PRIVILEGED_INTENTS
from .records import FakeChannel, FakeGuild, FakeMember, FakeMessage, FakeRole
from .shards import SessionStarts, Shard, parse_shard
from .state import DiscordState

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

# Close codes.
UNKNOWN_OPCODE = 4001
DECODE_ERROR = 4002
NOT_AUTHENTICATED = 4003
AUTHENTICATION_FAILED = 4004
ALREADY_AUTHENTICATED = 4005
INVALID_SHARD = 4010
INVALID_INTENTS = 4013
DISALLOWED_INTENTS = 4014
CLIENT_ENDED = (1000, 1001)
"""Close codes with which a client ends its session (it cannot be resumed)."""

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
        self.closed_by_server = False
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
        self.closed_by_server = True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._queue.join(), timeout=1.0)
        await self.ws.close(code=code, message=reason.encode())

    async def stop(self) -> None:
        self._sender.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._sender


@dataclass(eq=False)
class GatewaySession:
    """An identified session: its intents, shard, numbered events and connection (if any)."""

    id: str
    intents: int
    shard: Shard = field(default_factory=Shard)
    shard_given: bool = False
    """True if IDENTIFY carried a shard pair (READY then echoes it)."""
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
        """The session identified or resumed last."""
        self._sessions: dict[str, GatewaySession] = {}
        self._connections: set[GatewayConnection] = set()
        self.identify_count = 0
        self.starts = SessionStarts()
        """The limits on IDENTIFYs, and what was taken and refused."""
        self.resume_count = 0

    @property
    def sessions(self) -> list[GatewaySession]:
        """The sessions that may still get events (connected, or waiting for a RESUME)."""
        return list(self._sessions.values())

    @property
    def connected(self) -> bool:
        return any(session.connection is not None for session in self._sessions.values())

    # -- connection handling ------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        """The websocket endpoint; any query (``?v=10&encoding=json&compress=...``) is accepted."""
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        connection = GatewayConnection(ws, self._state.clock)
        self._connections.add(connection)
        session: GatewaySession | None = None
        interval_ms = int(self.heartbeat_interval * 1000)
        connection.send_op(HELLO, {"heartbeat_interval": interval_ms, "_trace": TRACE})
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
                if ws.close_code in CLIENT_ENDED and not connection.closed_by_server:
                    self._sessions.pop(session.id, None)
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
        shard = parse_shard(data.get("shard"))
        if shard is None:
            await connection.close(INVALID_SHARD, "Invalid shard.")
            return None
        if not self.starts.admit(shard, self._state.clock()):
            # Too soon in its bucket: Discord answers Invalid Session, not resumable.
            connection.send_op(INVALID_SESSION, False)
            return None
        session = GatewaySession(
            secrets.token_hex(16), intents, shard, shard_given=data.get("shard") is not None
        )
        self._sessions[session.id] = session
        self.session = session
        session.connection = connection
        self.identify_count += 1
        ready = ready_payload(
            self._state,
            shard,
            session_id=session.id,
            resume_url=self.url,
            privileged=self.privileged_intents,
            shard_given=session.shard_given,
        )
        self._send(session, "READY", ready)
        for guild in self._state.guilds.values():
            if shard.covers(guild.id):
                payload = guild_create_payload(self._state, intents, guild)
                self._send(session, "GUILD_CREATE", payload)
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
        self._send(session, "RESUMED", {"_trace": TRACE})
        return session

    def _send_members(self, session: GatewaySession, data: JSON) -> None:
        """Answer REQUEST_GUILD_MEMBERS (op 8) with one GUILD_MEMBERS_CHUNK."""
        if not isinstance(data, dict):
            return
        guild = self._state.guilds.get(int(data.get("guild_id") or 0))
        if guild is None or not session.shard.covers(guild.id):
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

    def sessions_for(self, guild_id: int | None) -> list[GatewaySession]:
        """The sessions on the shard that gets ``guild_id``'s events (shard 0 for DMs)."""
        return [s for s in self._sessions.values() if s.shard.covers(guild_id)]

    def _fan_out(
        self,
        guild_id: int | None,
        event: str,
        render: Callable[[GatewaySession], JSON],
        *,
        intent: int = 0,
    ) -> asyncio.Future[float] | None:
        """Send ``event`` to every session of the guild's shard that has ``intent`` (if any).

        ``render`` builds each session's payload (``None``: that session is not sent it). The
        returned future gets the time the event was first written to a connection; ``None`` if
        no session was sent it.
        """
        sent = [
            self._send(session, event, payload)
            for session in self.sessions_for(guild_id)
            if not intent or session.intents & intent
            if (payload := render(session)) is not None
        ]
        return _first_of(sent, self.loop)

    def dispatch(
        self, event: str, data: JSON, *, guild_id: int | None = None
    ) -> asyncio.Future[float] | None:
        """Send an event to the sessions of ``guild_id``'s shard (shard 0 for ``None``).

        The future gets the time it was first written to a connection; without one the event
        waits in the sessions' logs for a RESUME. Returns ``None`` when no session is on that
        shard.
        """
        return self._fan_out(guild_id, event, lambda _: data)

    def message_created(self, message: FakeMessage) -> asyncio.Future[float] | None:
        """Send MESSAGE_CREATE to the sessions whose intents let them see ``message``."""
        return self._dispatch_message("MESSAGE_CREATE", message)

    def message_updated(self, message: FakeMessage) -> asyncio.Future[float] | None:
        """Send MESSAGE_UPDATE to the sessions whose intents let them see ``message``."""
        return self._dispatch_message("MESSAGE_UPDATE", message)

    def message_deleted(self, message: FakeMessage) -> None:
        self._fan_out(
            message.channel.guild_id,
            "MESSAGE_DELETE",
            lambda session: message_delete_payload(session.intents, message),
        )

    def _dispatch_message(self, event: str, message: FakeMessage) -> asyncio.Future[float] | None:
        return self._fan_out(
            message.channel.guild_id,
            event,
            lambda session: message_payload(self._state, session.intents, message),
        )

    def guild_created(self, guild: FakeGuild) -> None:
        self._fan_out(
            guild.id,
            "GUILD_CREATE",
            lambda session: guild_create_payload(self._state, session.intents, guild),
            intent=GUILDS,
        )

    def guild_updated(self, guild: FakeGuild) -> None:
        """GUILD_UPDATE: the guild object, as ``GET /guilds/{id}`` gives it."""
        data = guild.rest_payload()
        self._fan_out(guild.id, "GUILD_UPDATE", lambda _: data, intent=GUILDS)

    def channel_created(self, channel: FakeChannel) -> None:
        data = channel.payload()
        self._fan_out(channel.guild_id, "CHANNEL_CREATE", lambda _: data, intent=GUILDS)

    def channel_updated(self, channel: FakeChannel) -> None:
        """CHANNEL_UPDATE (its overwrites changed, say)."""
        data = channel.payload()
        self._fan_out(channel.guild_id, "CHANNEL_UPDATE", lambda _: data, intent=GUILDS)

    def channel_deleted(self, channel: FakeChannel) -> None:
        """CHANNEL_DELETE."""
        data = channel.payload()
        self._fan_out(channel.guild_id, "CHANNEL_DELETE", lambda _: data, intent=GUILDS)

    def thread_created(self, thread: FakeChannel) -> None:
        """THREAD_CREATE, if the bot can see the thread."""
        if bot_sees(self._state, thread):
            data = {**thread.payload(member_id=self._state.bot.id), "newly_created": True}
            self._fan_out(thread.guild_id, "THREAD_CREATE", lambda _: data, intent=GUILDS)

    def thread_updated(self, thread: FakeChannel) -> None:
        """THREAD_UPDATE (archived, unarchived, locked, renamed), if the bot can see it."""
        if bot_sees(self._state, thread):
            data = thread.payload(member_id=self._state.bot.id)
            self._fan_out(thread.guild_id, "THREAD_UPDATE", lambda _: data, intent=GUILDS)

    def role_created(self, role: FakeRole) -> None:
        data = {"guild_id": str(role.guild_id), "role": role.payload()}
        self._fan_out(role.guild_id, "GUILD_ROLE_CREATE", lambda _: data, intent=GUILDS)

    def role_deleted(self, role: FakeRole) -> None:
        data = {"guild_id": str(role.guild_id), "role_id": str(role.id)}
        self._fan_out(role.guild_id, "GUILD_ROLE_DELETE", lambda _: data, intent=GUILDS)

    def role_updated(self, role: FakeRole) -> None:
        data = {"guild_id": str(role.guild_id), "role": role.payload()}
        self._fan_out(role.guild_id, "GUILD_ROLE_UPDATE", lambda _: data, intent=GUILDS)

    def member_updated(self, member: FakeMember) -> None:
        """GUILD_MEMBER_UPDATE (its roles changed): with the GUILD_MEMBERS intent, but for the
        bot's own member whatever the intents, as Discord sends it."""
        data = {**member.payload(), "guild_id": str(member.guild_id)}
        own = member.user.id == self._state.bot.id
        intent = 0 if own else GUILD_MEMBERS
        self._fan_out(member.guild_id, "GUILD_MEMBER_UPDATE", lambda _: data, intent=intent)

    def member_added(self, member: FakeMember) -> None:
        data = {**member.payload(), "guild_id": str(member.guild_id)}
        self._fan_out(member.guild_id, "GUILD_MEMBER_ADD", lambda _: data, intent=GUILD_MEMBERS)

    def guild_deleted(self, guild: FakeGuild) -> None:
        """GUILD_DELETE without ``unavailable``: the bot was removed from the guild."""
        if self.session is not None and self.session.intents & GUILDS:
            self._send(self.session, "GUILD_DELETE", {"id": str(guild.id)})

    def member_removed(self, member: FakeMember) -> None:
        if self.session is not None and self.session.intents & GUILD_MEMBERS:
            data = {"guild_id": str(member.guild_id), "user": member.user.payload()}
            self._send(self.session, "GUILD_MEMBER_REMOVE", data)

    # -- control ------------------------------------------------------------------------------

    def _connected(self, shard: int | None) -> Iterable[GatewaySession]:
        for session in list(self._sessions.values()):
            if session.connection is not None and shard in (None, session.shard.id):
                yield session

    async def drop_connection(self, code: int = 4000, *, shard: int | None = None) -> None:
        """Close the connections (of one shard) as a network failure would; sessions stay."""
        for session in self._connected(shard):
            assert session.connection is not None
            await session.connection.close(code, "Connection dropped by the test.")

    def request_reconnect(self, *, shard: int | None = None) -> None:
        """Send RECONNECT (op 7) to the connections (of one shard): clients resume."""
        for session in self._connected(shard):
            assert session.connection is not None
            session.connection.send_op(RECONNECT, None)

    async def close(self) -> None:
        for connection in list(self._connections):
            await connection.close(1001, "Server shutting down.")


def _first_of(
    futures: list[asyncio.Future[float]], loop: asyncio.AbstractEventLoop | None
) -> asyncio.Future[float] | None:
    """A future done with the first of ``futures`` to succeed (``None`` if there are none)."""
    if len(futures) <= 1:
        return futures[0] if futures else None
    first: asyncio.Future[float] = (loop or asyncio.get_running_loop()).create_future()

    def settle(future: asyncio.Future[float]) -> None:
        if not first.done() and not future.cancelled() and future.exception() is None:
            first.set_result(future.result())

    for future in futures:
        future.add_done_callback(settle)
    return first


def _member_name_starts(member: FakeMember, query: str) -> bool:
    names = [member.user.name, member.nick or ""]
    return any(name.lower().startswith(query) for name in names if name)
