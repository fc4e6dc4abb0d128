"""What the fake Discord knows: users, guilds, channels, messages, interactions and requests.

Records are plain dataclasses a test can read directly. Each renders the JSON Discord would send
for it (``payload()``), in the shapes discord.py 2.7 parses. :class:`DiscordState` holds them all,
creates them with fresh snowflakes, and wakes anyone waiting for a change.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
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
    not_found,
)
from .limits import BUTTON, EPHEMERAL, LOADING, MESSAGE_FIELDS, walk_components

DISCORD_EPOCH_MS = 1_420_070_400_000

# Channel types.
GUILD_TEXT = 0
DM = 1

# Message types.
DEFAULT_MESSAGE = 0
CHAT_INPUT_COMMAND_MESSAGE = 20

# Interaction types.
APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
MODAL_SUBMIT = 5

# Permission bits.
CREATE_INSTANT_INVITE = 1 << 0
ADMINISTRATOR = 1 << 3
MANAGE_GUILD = 1 << 5
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
USE_EXTERNAL_EMOJIS = 1 << 18
CHANGE_NICKNAME = 1 << 26
USE_APPLICATION_COMMANDS = 1 << 31
SEND_MESSAGES_IN_THREADS = 1 << 38
ALL_PERMISSIONS = (1 << 51) - 1
EVERYONE_PERMISSIONS = (
    CREATE_INSTANT_INVITE
    | ADD_REACTIONS
    | VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | USE_EXTERNAL_EMOJIS
    | CHANGE_NICKNAME
    | USE_APPLICATION_COMMANDS
    | SEND_MESSAGES_IN_THREADS
)
BOT_PERMISSIONS = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | ADD_REACTIONS
    | USE_EXTERNAL_EMOJIS
    | SEND_MESSAGES_IN_THREADS
    | USE_APPLICATION_COMMANDS
)
"""What a bot typically asks for when invited: read, write, embed, react, commands."""

MENTION = re.compile(r"<@!?(\d+)>")


class SnowflakeGenerator:
    """Discord ids: milliseconds since 2015 in the top bits, so ids sort by creation time."""

    def __init__(self) -> None:
        self._last = 0

    def __call__(self) -> int:
        now = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        self._last = max(now, self._last + 1)
        return self._last


def timestamp(moment: datetime) -> str:
    """Discord's ISO 8601 timestamp format."""
    return moment.isoformat()


@dataclass(eq=False)
class FakeUser:
    """A Discord account: a person, or a bot when ``bot`` is set."""

    id: int
    name: str
    bot: bool = False
    dms_open: bool = True
    """False when the user refuses DMs from server members (sending to them fails with 50007)."""

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, JSON]:
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": None if self.bot else self.name,
            "avatar": None,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
            "bot": self.bot,
            "system": False,
            "public_flags": 0,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeRole:
    """A guild role; the ``@everyone`` role shares its guild's id."""

    id: int
    guild_id: int
    name: str
    permissions: int
    position: int = 0
    bot_id: int | None = None
    """Set for the role Discord manages for a bot that joined the guild."""

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"

    def payload(self) -> dict[str, JSON]:
        payload: dict[str, JSON] = {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": self.bot_id is not None,
            "mentionable": False,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }
        if self.bot_id is not None:
            payload["tags"] = {"bot_id": str(self.bot_id)}
        return payload


@dataclass(eq=False)
class FakeMember:
    """A user's membership of a guild."""

    user: FakeUser
    guild_id: int
    roles: list[FakeRole] = field(default_factory=list)
    nick: str | None = None
    joined_at: datetime = field(default_factory=lambda: datetime.now(UTC))

    @property
    def id(self) -> int:
        return self.user.id

    @property
    def mention(self) -> str:
        return self.user.mention

    def payload(self, *, with_user: bool = True, permissions: int | None = None) -> dict[str, JSON]:
        payload: dict[str, JSON] = {
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "roles": [str(role.id) for role in self.roles],
            "joined_at": timestamp(self.joined_at),
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_user:
            payload["user"] = self.user.payload()
        if permissions is not None:
            payload["permissions"] = str(permissions)
        return payload


@dataclass(eq=False)
class FakeChannel:
    """A guild text channel, or the DM channel between the bot and one user."""

    id: int
    type: int
    name: str | None = None
    guild_id: int | None = None
    position: int = 0
    recipient: FakeUser | None = None
    last_message_id: int | None = None

    @property
    def is_dm(self) -> bool:
        return self.type == DM

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def payload(self) -> dict[str, JSON]:
        last = None if self.last_message_id is None else str(self.last_message_id)
        if self.recipient is not None:
            return {
                "id": str(self.id),
                "type": self.type,
                "last_message_id": last,
                "recipients": [self.recipient.payload()],
                "flags": 0,
            }
        return {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [],
            "topic": None,
            "nsfw": False,
            "parent_id": None,
            "rate_limit_per_user": 0,
            "last_message_id": last,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeGuild:
    """A guild (server) with its roles, text channels and members; the bot is always a member."""

    id: int
    name: str
    owner_id: int
    roles: dict[int, FakeRole] = field(default_factory=dict)
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)

    @property
    def everyone(self) -> FakeRole:
        return self.roles[self.id]

    def member(self, user_id: int) -> FakeMember | None:
        return self.members.get(user_id)

    def permissions(self, user_id: int) -> int:
        """A member's guild-wide permissions: the owner and administrators have them all."""
        member = self.members.get(user_id)
        if member is None:
            return 0
        if user_id == self.owner_id:
            return ALL_PERMISSIONS
        allowed = self.everyone.permissions
        for role in member.roles:
            allowed |= role.permissions
        return ALL_PERMISSIONS if allowed & ADMINISTRATOR else allowed

    def payload(self, *, members: list[FakeMember]) -> dict[str, JSON]:
        """The GUILD_CREATE payload, carrying ``members`` (Discord sends only some of them)."""
        return {
            **self.rest_payload(),
            "joined_at": timestamp(datetime.now(UTC)),
            "large": False,
            "unavailable": False,
            "member_count": len(self.members),
            "voice_states": [],
            "members": [member.payload() for member in members],
            "channels": [channel.payload() for channel in self.channels.values()],
            "threads": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    def rest_payload(self) -> dict[str, JSON]:
        """The guild object of ``GET /guilds/{id}``."""
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 1,
            "explicit_content_filter": 0,
            "roles": [role.payload() for role in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
        }


@dataclass(eq=False)
class FakeMessage:
    """A message as it is now (after every edit), with its earlier versions in ``history``."""

    id: int
    channel: FakeChannel
    author: FakeUser
    content: str = ""
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    attachments: list[JSON] = field(default_factory=list)
    flags: int = 0
    type: int = DEFAULT_MESSAGE
    mentions: list[FakeUser] = field(default_factory=list)
    reference: JSON = None
    interaction: FakeInteraction | None = None
    """The interaction this message answers (initial response or followup)."""
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    edited_at: datetime | None = None
    deleted: bool = False
    history: list[dict[str, JSON]] = field(default_factory=list)
    """Payloads of the earlier versions, oldest first."""

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while this is a deferred response's "is thinking..." placeholder."""
        return bool(self.flags & LOADING)

    @property
    def guild_id(self) -> int | None:
        return self.channel.guild_id

    @property
    def custom_ids(self) -> list[str]:
        """custom_ids of every component on the message, in order."""
        return [c["custom_id"] for c in walk_components(self.components) if "custom_id" in c]

    @property
    def buttons(self) -> list[dict[str, JSON]]:
        """Every button on the message, in order."""
        return [c for c in walk_components(self.components) if c.get("type") == BUTTON]

    def component(self, custom_id: str) -> dict[str, JSON] | None:
        """The component with ``custom_id``, if the message has it."""
        for component in walk_components(self.components):
            if component.get("custom_id") == custom_id:
                return component
        return None

    @property
    def text(self) -> str:
        """Everything a reader sees: content, embed texts, component labels (one per line)."""
        parts: list[object] = [self.content]
        for embed in self.embeds:
            parts += [embed.get("title"), embed.get("description")]
            for embed_field in embed.get("fields") or []:
                parts += [embed_field.get("name"), embed_field.get("value")]
            parts += [(embed.get("author") or {}).get("name")]
            parts += [(embed.get("footer") or {}).get("text")]
        for component in walk_components(self.components):
            parts += [component.get(key) for key in ("label", "placeholder", "content")]
            parts += [option.get("label") for option in component.get("options") or []]
        return "\n".join(part for part in parts if isinstance(part, str) and part)

    def fields(self) -> dict[str, JSON]:
        """The editable fields, as a message payload would carry them."""
        return {
            "content": self.content,
            "embeds": self.embeds,
            "components": self.components,
            "attachments": self.attachments,
            "flags": self.flags,
        }

    def payload(self) -> dict[str, JSON]:
        """The message object of the REST API."""
        payload: dict[str, JSON] = {
            "id": str(self.id),
            "channel_id": str(self.channel.id),
            "type": self.type,
            "content": self.content,
            "author": self.author.payload(),
            "embeds": self.embeds,
            "components": self.components,
            "attachments": self.attachments,
            "mentions": [user.payload() for user in self.mentions],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": False,
            "timestamp": timestamp(self.created_at),
            "edited_timestamp": None if self.edited_at is None else timestamp(self.edited_at),
            "flags": self.flags,
        }
        if self.reference is not None:
            payload["message_reference"] = self.reference
        interaction = self.interaction
        if interaction is not None:
            payload["webhook_id"] = str(interaction.application_id)
            payload["application_id"] = str(interaction.application_id)
            payload["interaction_metadata"] = interaction.metadata(self)
        return payload


@dataclass(eq=False)
class FakeInteraction:
    """One interaction a user started, and everything the bot answered to it.

    ``sent_at`` is when INTERACTION_CREATE went out on the gateway and ``responded_at`` when the
    initial response (callback) arrived, both on the fake's clock; ``latency`` is the difference.
    """

    id: int
    application_id: int
    token: str
    type: int
    user: FakeUser
    channel: FakeChannel
    guild: FakeGuild | None
    data: dict[str, JSON]
    message: FakeMessage | None = None
    """For a click, the message clicked; for a modal submit, the message that opened the modal."""
    command: str | None = None
    """For a slash command, its full name (``"crown challenge"``)."""
    payload: dict[str, JSON] = field(default_factory=dict)
    """The INTERACTION_CREATE payload sent to the bot."""
    sent_at: float | None = None
    responded_at: float | None = None
    response_type: int | None = None
    response: JSON = None
    """The body of the initial response (callback)."""
    original: FakeMessage | None = None
    """The message the initial response created or updated (``@original``)."""
    original_edits: int = 0
    """Edits of ``@original`` after the initial response (the answer to a deferral)."""
    followups: list[FakeMessage] = field(default_factory=list)
    modal: dict[str, JSON] | None = None
    """The modal the bot answered with (response type 9)."""
    modal_submitted: bool = False

    @property
    def custom_id(self) -> str | None:
        value = self.data.get("custom_id")
        return value if isinstance(value, str) else None

    @property
    def acknowledged(self) -> bool:
        return self.response_type is not None

    @property
    def deferred(self) -> bool:
        return self.response_type in (5, 6)

    @property
    def answered(self) -> bool:
        """True once the user sees an answer: a message, an update, a modal, or a deferral's end."""
        if self.response_type in (4, 7, 9):
            return True
        return self.deferred and (self.original_edits > 0 or bool(self.followups))

    @property
    def latency(self) -> float | None:
        """Seconds from INTERACTION_CREATE sent to the initial response received."""
        if self.sent_at is None or self.responded_at is None:
            return None
        return self.responded_at - self.sent_at

    @property
    def messages(self) -> list[FakeMessage]:
        """The initial response's message (if the response made one) then the followups."""
        first = (
            [self.original] if self.original is not None and self.response_type in (4, 5) else []
        )
        return [message for message in first + self.followups if not message.deleted]

    @property
    def ephemeral_messages(self) -> list[FakeMessage]:
        """The answers only the interaction's user sees."""
        return [message for message in self.messages if message.ephemeral]

    @property
    def modal_text_inputs(self) -> list[dict[str, JSON]]:
        """The text inputs of the modal the bot answered with (empty if none)."""
        if self.modal is None:
            return []
        return [c for c in walk_components(self.modal.get("components")) if c.get("type") == 4]

    def metadata(self, message: FakeMessage) -> dict[str, JSON]:
        """The ``interaction_metadata`` of a message answering this interaction."""
        guild_owner = "0" if self.guild is None else str(self.guild.id)
        metadata: dict[str, JSON] = {
            "id": str(self.id),
            "type": self.type,
            "user": self.user.payload(),
            "authorizing_integration_owners": {"0": guild_owner},
        }
        if self.original is not None and message is not self.original:
            metadata["original_response_message_id"] = str(self.original.id)
        if self.type == MESSAGE_COMPONENT and self.message is not None:
            metadata["interacted_message_id"] = str(self.message.id)
        return metadata


@dataclass(eq=False)
class RecordedRequest:
    """One HTTP request the fake received."""

    method: str
    path: str
    """Path below the API base, e.g. ``/channels/123/messages``."""
    query: dict[str, str]
    json: JSON
    time: float
    status: int | None = None
    expected: bool = True
    """False for a route the fake does not know (answered 404 or 405)."""

    def __str__(self) -> str:
        return f"{self.method} {self.path} -> {self.status}"


class DiscordState:
    """Every record of the fake, created with fresh snowflakes; changes wake :meth:`wait_until`."""

    def __init__(self, *, token: str, bot_name: str, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.new_id = SnowflakeGenerator()
        self.token = token
        self.bot = FakeUser(self.new_id(), bot_name, bot=True)
        self.owner = FakeUser(self.new_id(), f"{bot_name} owner")
        self.application_id = self.bot.id
        self.users: dict[int, FakeUser] = {self.bot.id: self.bot, self.owner.id: self.owner}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.dm_channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.interactions: dict[int, FakeInteraction] = {}
        self._interactions_by_token: dict[str, FakeInteraction] = {}
        self.requests: list[RecordedRequest] = []
        self.commands = CommandRegistry(self.application_id, self.new_id)
        self._changed = asyncio.Event()

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
        """The channel's guild; ``None`` for a DM, or a guild the bot is no longer in."""
        return None if channel.guild_id is None else self.guilds.get(channel.guild_id)

    def channel_permissions(self, channel: FakeChannel, user_id: int) -> int:
        """What ``user_id`` may do in ``channel`` (no overwrites: guild-wide permissions)."""
        guild = self.guild_of(channel)
        if guild is None:
            return EVERYONE_PERMISSIONS
        return guild.permissions(user_id)

    # -- world building -----------------------------------------------------------------------

    def add_user(self, name: str, *, bot: bool = False, dms_open: bool = True) -> FakeUser:
        user = FakeUser(self.new_id(), name, bot=bot, dms_open=dms_open)
        self.users[user.id] = user
        self.notify()
        return user

    def add_guild(self, name: str, *, owner: FakeUser, bot_permissions: int) -> FakeGuild:
        guild = FakeGuild(self.new_id(), name, owner.id)
        guild.roles[guild.id] = FakeRole(guild.id, guild.id, "@everyone", EVERYONE_PERMISSIONS)
        bot_role = FakeRole(self.new_id(), guild.id, self.bot.name, bot_permissions, 1, self.bot.id)
        guild.roles[bot_role.id] = bot_role
        guild.members[self.bot.id] = FakeMember(self.bot, guild.id, [bot_role])
        guild.members[owner.id] = FakeMember(owner, guild.id)
        self.guilds[guild.id] = guild
        self.notify()
        return guild

    def add_text_channel(self, guild: FakeGuild, name: str) -> FakeChannel:
        channel = FakeChannel(self.new_id(), GUILD_TEXT, name, guild.id, len(guild.channels))
        guild.channels[channel.id] = channel
        self.channels[channel.id] = channel
        self.notify()
        return channel

    def add_role(self, guild: FakeGuild, name: str, permissions: int) -> FakeRole:
        role = FakeRole(self.new_id(), guild.id, name, permissions, len(guild.roles))
        guild.roles[role.id] = role
        self.notify()
        return role

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

    # -- messages -----------------------------------------------------------------------------

    def mentioned_users(self, content: str) -> list[FakeUser]:
        ids = dict.fromkeys(int(match) for match in MENTION.findall(content))
        return [self.users[user_id] for user_id in ids if user_id in self.users]

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
        self.notify()

    def delete_message(self, message: FakeMessage) -> None:
        message.deleted = True
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
    ) -> FakeInteraction:
        interaction = FakeInteraction(
            id=self.new_id(),
            application_id=self.application_id,
            token=f"interaction.{secrets.token_urlsafe(24)}",
            type=kind,
            user=user,
            channel=channel,
            guild=self.guild_of(channel),
            data=data,
            message=message,
            command=command,
        )
        self.interactions[interaction.id] = interaction
        self._interactions_by_token[interaction.token] = interaction
        return interaction

    def interaction_by_token(self, token: str) -> FakeInteraction | None:
        return self._interactions_by_token.get(token)

    def record_request(
        self, method: str, path: str, query: Mapping[str, str], body: Any
    ) -> RecordedRequest:
        request = RecordedRequest(method, path, dict(query), body, self.clock())
        self.requests.append(request)
        self.notify()
        return request
