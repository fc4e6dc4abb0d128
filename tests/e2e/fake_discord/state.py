"""What the fake Discord knows: every record, created with fresh snowflakes, and the requests.

:class:`DiscordState` holds the records (``records.py``), computes permissions as Discord does,
reads the fake's clock, and wakes anyone waiting for a change.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from .commands import CommandRegistry
from .errors import (
    JSON,
    UNKNOWN_CHANNEL,
    UNKNOWN_GUILD,
    UNKNOWN_MEMBER,
    UNKNOWN_MESSAGE,
    UNKNOWN_USER,
    missing_access,
    not_found,
    too_many_threads,
)
from .limits import EPHEMERAL, LOADING, MESSAGE_FIELDS, check_locale
from .permissions import (
    CHANNEL_PERMISSIONS,
    EVERYONE_PERMISSIONS,
    MANAGE_THREADS,
    Overwrite,
    apply_overwrites,
    with_implicit_denials,
)
from .permissions import MANAGE_GUILD as MANAGE_GUILD
from .records import (
    DEFAULT_MESSAGE,
    DM,
    GROUP_DM,
    GUILD_TEXT,
    MENTION,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    RecordedRequest,
    SnowflakeGenerator,
)
from .shards import Shard

ACTIVE_THREAD_CAP = 1000
"""Discord's cap on a server's active threads (160006 beyond it)."""


class DiscordState:
    """Every record of the fake, created with fresh snowflakes; changes wake :meth:`wait_until`."""

    def __init__(self, *, token: str, bot_name: str, clock: Callable[[], float]) -> None:
        self._source = clock
        self.clock_offset = 0.0
        """Seconds added to the clock source: how far a test moved the fake's time forward."""
        self.new_id = SnowflakeGenerator()
        self.token = token
        self.bot = FakeUser(self.new_id(), bot_name, bot=True)
        self.owner = FakeUser(self.new_id(), f"{bot_name} owner")
        self.application_id = self.bot.id
        self.users: dict[int, FakeUser] = {self.bot.id: self.bot, self.owner.id: self.owner}
        self.guilds: dict[int, FakeGuild] = {}
        """The servers the application is installed in (the bot is a member)."""
        self.external_guilds: dict[int, FakeGuild] = {}
        """Servers without the application, reached only through members' user installs."""
        self.active_thread_cap = ACTIVE_THREAD_CAP
        """Active (unarchived) threads a server may hold; a test lowers it to reach the cap."""
        self.channels: dict[int, FakeChannel] = {}
        self.dm_channels: dict[int, FakeChannel] = {}
        self._nonces: dict[tuple[int, str], tuple[float, FakeMessage]] = {}
        """(channel id, nonce) -> when and which message an enforced nonce made."""
        self.messages: dict[int, FakeMessage] = {}
        self.uploads: dict[int, bytes] = {}
        """Each uploaded file's bytes, by its attachment id."""
        self.interactions: dict[int, FakeInteraction] = {}
        self._interactions_by_token: dict[str, FakeInteraction] = {}
        self.requests: list[RecordedRequest] = []
        self.commands = CommandRegistry(self.application_id, self.new_id)
        self._changed = asyncio.Event()

    def clock(self) -> float:
        """The fake's time in seconds: the clock source plus what tests moved it forward."""
        return self._source() + self.clock_offset

    # -- change notification ------------------------------------------------------------------

    def notify(self) -> None:
        """Wake every waiter so it checks its condition again."""
        self._changed.set()
        self._changed = asyncio.Event()

    def change_event(self) -> asyncio.Event:
        """An event set at the next change; take it *before* checking a condition."""
        return self._changed

    # -- lookups that answer like Discord -----------------------------------------------------

    def user(self, user_id: int) -> FakeUser:
        try:
            return self.users[user_id]
        except KeyError:
            raise not_found(UNKNOWN_USER, "Unknown User") from None

    def guild(self, guild_id: int) -> FakeGuild:
        if guild_id in self.external_guilds:
            raise missing_access()  # a server the bot is not in
        try:
            return self.guilds[guild_id]
        except KeyError:
            raise not_found(UNKNOWN_GUILD, "Unknown Guild") from None

    def member(self, guild: FakeGuild, user_id: int) -> FakeMember:
        member = guild.member(user_id)
        if member is None:
            raise not_found(UNKNOWN_MEMBER, "Unknown Member")
        return member

    def channel(self, channel_id: int) -> FakeChannel:
        try:
            return self.channels[channel_id]
        except KeyError:
            raise not_found(UNKNOWN_CHANNEL, "Unknown Channel") from None

    def channel_message(self, channel: FakeChannel, message_id: int) -> FakeMessage:
        """A live, public message of ``channel`` (ephemeral ones are not reachable this way)."""
        message = self.messages.get(message_id)
        if message is None or message.channel is not channel or message.deleted:
            raise not_found(UNKNOWN_MESSAGE, "Unknown Message")
        if message.ephemeral:
            raise not_found(UNKNOWN_MESSAGE, "Unknown Message")
        return message

    def channel_messages(self, channel: FakeChannel) -> Iterator[FakeMessage]:
        """Live messages of ``channel``, oldest first, ephemeral ones included."""
        for message in self.messages.values():
            if message.channel is channel and not message.deleted:
                yield message

    def guild_of(self, channel: FakeChannel) -> FakeGuild | None:
        """The channel's guild; ``None`` for a DM, or a guild the bot is not (or no longer) in."""
        return None if channel.guild_id is None else self.guilds.get(channel.guild_id)

    def server_of(self, channel: FakeChannel) -> FakeGuild | None:
        """The channel's server, with the application installed or not; ``None`` outside one."""
        if channel.guild_id is None:
            return None
        return self.guilds.get(channel.guild_id) or self.external_guilds.get(channel.guild_id)

    def bot_reaches(self, channel: FakeChannel) -> bool:
        """False for a channel the bot is not in: a DM or group DM between people, or a channel
        of a server without the application."""
        if channel.guild_id is None:
            return channel.recipient is not None
        return channel.guild_id in self.guilds

    def channel_permissions(self, channel: FakeChannel, user_id: int) -> int:
        """What ``user_id`` may do in ``channel``, computed as Discord does (overwrites included).

        A thread takes its parent's overwrites; a private thread is hidden from whoever neither
        joined it nor has MANAGE_THREADS.
        """
        guild = self.server_of(channel)
        if guild is None:
            return EVERYONE_PERMISSIONS
        member = guild.member(user_id)
        if member is None:
            return 0
        parent = self.channels[channel.parent_id] if channel.parent_id is not None else channel
        allowed = apply_overwrites(
            guild.permissions(user_id),
            parent.overwrites,
            guild_id=guild.id,
            role_ids=[role.id for role in member.roles],
            member_id=user_id,
        )
        allowed = with_implicit_denials(allowed, in_thread=channel.is_thread)
        hidden = channel.type == PRIVATE_THREAD and user_id not in channel.member_ids
        if hidden and not allowed & MANAGE_THREADS:
            allowed &= ~CHANNEL_PERMISSIONS
        return allowed

    # -- world building -----------------------------------------------------------------------

    def add_user(
        self, name: str, *, bot: bool = False, dms_open: bool = True, locale: str = "en-US"
    ) -> FakeUser:
        user = FakeUser(
            self.new_id(), name, bot=bot, dms_open=dms_open, locale=check_locale(locale)
        )
        self.users[user.id] = user
        self.notify()
        return user

    def add_guild(
        self,
        name: str,
        *,
        owner: FakeUser,
        bot_permissions: int,
        shard: Shard | None = None,
        preferred_locale: str = "en-US",
        with_app: bool = True,
    ) -> FakeGuild:
        """A server; with the application installed (the bot a member) unless ``with_app`` is
        false."""
        guild_id = self.new_id() if shard is None else self.new_id.on_shard(shard)
        guild = FakeGuild(guild_id, name, owner.id, preferred_locale=check_locale(preferred_locale))
        guild.roles[guild.id] = FakeRole(guild.id, guild.id, "@everyone", EVERYONE_PERMISSIONS)
        guild.members[owner.id] = FakeMember(owner, guild.id)
        if not with_app:
            self.external_guilds[guild.id] = guild
            self.notify()
            return guild
        bot_role = FakeRole(self.new_id(), guild.id, self.bot.name, bot_permissions, 1, self.bot.id)
        guild.roles[bot_role.id] = bot_role
        guild.members[self.bot.id] = FakeMember(self.bot, guild.id, [bot_role])
        self.guilds[guild.id] = guild
        self.notify()
        return guild

    def add_text_channel(self, guild: FakeGuild, name: str) -> FakeChannel:
        channel = FakeChannel(self.new_id(), GUILD_TEXT, name, guild.id, len(guild.channels))
        guild.channels[channel.id] = channel
        self.channels[channel.id] = channel
        self.notify()
        return channel

    def add_thread(
        self,
        parent: FakeChannel,
        name: str,
        *,
        owner: FakeUser,
        kind: int = PUBLIC_THREAD,
        thread_id: int | None = None,
        auto_archive_duration: int = 1440,
    ) -> FakeChannel:
        """A new active thread of ``parent`` started by ``owner`` (who joins it)."""
        guild = self.guilds[parent.guild_id or 0]
        thread = FakeChannel(
            thread_id or self.new_id(),
            kind,
            name,
            guild.id,
            parent_id=parent.id,
            owner_id=owner.id,
            auto_archive_duration=auto_archive_duration,
        )
        thread.member_ids[owner.id] = thread.created_at
        guild.threads[thread.id] = thread
        self.channels[thread.id] = thread
        self.notify()
        return thread

    def active_threads(self, guild_id: int) -> int:
        """How many of the server's threads are active (not archived)."""
        return sum(not thread.archived for thread in self.guilds[guild_id].threads.values())

    def check_thread_room(self, guild_id: int) -> None:
        """Refuse (160006) one more active thread in a server at its cap."""
        if self.active_threads(guild_id) >= self.active_thread_cap:
            raise too_many_threads()

    def set_overwrite(self, channel: FakeChannel, overwrite: Overwrite | None, target: int) -> None:
        """Set ``channel``'s overwrite for the role or member ``target`` (``None`` removes it)."""
        if overwrite is None:
            channel.overwrites.pop(target, None)
        else:
            channel.overwrites[target] = overwrite
        self.notify()

    def add_role(
        self, guild: FakeGuild, name: str, permissions: int, position: int | None = None
    ) -> tuple[FakeRole, list[FakeRole]]:
        """A new role at the top, or at ``position`` (1 and up), where the roles from there
        up move one higher, as Discord moves them; the role and the roles moved."""
        top = max(role.position for role in guild.roles.values()) + 1
        at = top if position is None else max(1, min(position, top))
        moved = [
            role for role in guild.roles.values() if role.position >= at and role.id != guild.id
        ]
        for role in moved:
            role.position += 1
        role = FakeRole(self.new_id(), guild.id, name, permissions, at)
        guild.roles[role.id] = role
        self.notify()
        return role, moved

    def delete_role(self, role: FakeRole) -> list[FakeMember]:
        """The role is deleted: gone from its guild and from its members; the members who had
        it."""
        guild = self.guilds[role.guild_id]
        del guild.roles[role.id]
        had = [member for member in guild.members.values() if role in member.roles]
        for member in had:
            member.roles = [r for r in member.roles if r is not role]
        self.notify()
        return had

    def add_member(
        self, guild: FakeGuild, user: FakeUser, *, nick: str | None, roles: list[FakeRole]
    ) -> FakeMember:
        member = FakeMember(user, guild.id, roles, nick)
        guild.members[user.id] = member
        self.notify()
        return member

    def remove_guild(self, guild: FakeGuild) -> None:
        """The bot leaves ``guild`` (removed, or the guild deleted), and with it its channels."""
        del self.guilds[guild.id]
        for channel_id in guild.channels:
            self.channels.pop(channel_id, None)
        self.notify()

    def delete_channel(self, channel: FakeChannel) -> None:
        """A text channel is deleted, with its threads: every route to them is 10003 from now."""
        guild = self.guild(channel.guild_id or 0)
        gone = [channel.id, *(t.id for t in guild.threads.values() if t.parent_id == channel.id)]
        for channel_id in gone:
            guild.channels.pop(channel_id, None)
            guild.threads.pop(channel_id, None)
            self.channels.pop(channel_id, None)
        self.notify()

    def remove_member(self, guild: FakeGuild, user: FakeUser) -> FakeMember:
        """``user`` leaves ``guild``; their membership as it was."""
        member = guild.members.pop(user.id)
        self.notify()
        return member

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel between the bot and ``user``, opened on first use."""
        channel = self.dm_channels.get(user.id)
        if channel is None:
            channel = FakeChannel(self.new_id(), DM, recipient=user)
            self.dm_channels[user.id] = channel
            self.channels[channel.id] = channel
            self.notify()
        return channel

    def add_private_channel(
        self, owner: FakeUser, others: list[FakeUser], *, name: str | None = None
    ) -> FakeChannel:
        """A DM between ``owner`` and one other person, or a group DM (``name`` given, or more
        than one other): a private channel the bot is not in."""
        group = name is not None or len(others) != 1
        channel = FakeChannel(
            self.new_id(),
            GROUP_DM if group else DM,
            name if group else None,
            recipients=[owner, *others],
            owner_id=owner.id if group else None,
        )
        self.channels[channel.id] = channel
        self.notify()
        return channel

    # -- messages -----------------------------------------------------------------------------

    def mentioned_users(self, content: str) -> list[FakeUser]:
        ids = dict.fromkeys(int(match) for match in MENTION.findall(content))
        return [self.users[user_id] for user_id in ids if user_id in self.users]

    NONCE_WINDOW = 5 * 60.0
    """Seconds during which Discord answers a repeated enforced nonce with the first message."""

    def sent_with_nonce(self, channel: FakeChannel, payload: JSON) -> FakeMessage | None:
        """The message an earlier post with this payload's enforced nonce made, if recent."""
        key = _nonce_key(channel, payload)
        if key is None:
            return None
        found = self._nonces.get(key)
        if found is None or self.clock() - found[0] > self.NONCE_WINDOW:
            return None
        return found[1]

    def remember_nonce(self, channel: FakeChannel, payload: JSON, message: FakeMessage) -> None:
        key = _nonce_key(channel, payload)
        if key is not None:
            self._nonces[key] = (self.clock(), message)

    def create_message(
        self,
        channel: FakeChannel,
        author: FakeUser,
        fields: Mapping[str, JSON],
        *,
        flags: int = 0,
        interaction: FakeInteraction | None = None,
        message_type: int = DEFAULT_MESSAGE,
    ) -> FakeMessage:
        """Store a new message; ``flags`` adds to the payload's own (e.g. ephemeral, loading)."""
        content = fields.get("content") or ""
        message = FakeMessage(
            id=self.new_id(),
            channel=channel,
            author=author,
            content=content,
            embeds=list(fields.get("embeds") or []),
            components=list(fields.get("components") or []),
            attachments=list(fields.get("attachments") or []),
            flags=(fields.get("flags") or 0) | flags,
            type=message_type,
            mentions=self.mentioned_users(content),
            reference=fields.get("message_reference"),
            interaction=interaction,
        )
        self.messages[message.id] = message
        if not message.ephemeral:
            channel.last_message_id = message.id
            if channel.is_thread:
                channel.message_count += 1
                channel.total_message_sent += 1
                channel.member_ids.setdefault(author.id, message.created_at)  # posting joins
        self.notify()
        return message

    def edit_message(self, message: FakeMessage, fields: Mapping[str, JSON]) -> None:
        """Apply a partial edit: fields present replace the old ones (``null`` clears them)."""
        message.history.append(message.payload())
        for key in MESSAGE_FIELDS:
            if key not in fields:
                continue
            value = fields[key]
            if key == "content":
                message.content = value or ""
                message.mentions = self.mentioned_users(message.content)
            elif key == "flags":
                kept = message.flags & (EPHEMERAL | LOADING)
                message.flags = kept | (value or 0) & ~(EPHEMERAL | LOADING)
            else:
                setattr(message, key, list(value or []))
        message.edited_at = datetime.now(UTC)
        message.revision = self.new_id()
        self.notify()

    def delete_message(self, message: FakeMessage) -> None:
        message.deleted = True
        if message.channel.is_thread and not message.ephemeral:
            message.channel.message_count -= 1
        self.notify()

    # -- interactions and requests ------------------------------------------------------------

    def new_interaction(
        self,
        *,
        kind: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, JSON],
        message: FakeMessage | None = None,
        command: str | None = None,
        context: int = 0,
        owners: dict[str, str] | None = None,
    ) -> FakeInteraction:
        interaction = FakeInteraction(
            id=self.new_id(),
            application_id=self.application_id,
            token=f"interaction.{secrets.token_urlsafe(24)}",
            type=kind,
            user=user,
            channel=channel,
            guild=self.server_of(channel),
            data=data,
            message=message,
            command=command,
            created_at=self.clock(),
            context=context,
            owners=dict(owners or {}),
        )
        self.interactions[interaction.id] = interaction
        self._interactions_by_token[interaction.token] = interaction
        return interaction

    def interaction_by_token(self, token: str) -> FakeInteraction | None:
        return self._interactions_by_token.get(token)

    def record_request(
        self,
        method: str,
        path: str,
        query: Mapping[str, str],
        body: Any,
        *,
        route: str = "",
        bot_token: bool = False,
    ) -> RecordedRequest:
        request = RecordedRequest(
            method, path, dict(query), body, self.clock(), route=route, bot_token=bot_token
        )
        self.requests.append(request)
        self.notify()
        return request


def _nonce_key(channel: FakeChannel, payload: JSON) -> tuple[int, str] | None:
    if not isinstance(payload, dict) or not payload.get("enforce_nonce"):
        return None
    nonce = payload.get("nonce")
    return None if nonce is None else (channel.id, str(nonce))
