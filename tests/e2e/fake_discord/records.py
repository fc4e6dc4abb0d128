"""The fake Discord's records: users, roles, members, channels, guilds, messages, interactions.

Records are plain dataclasses a test can read directly. Each renders the JSON Discord would send
for it (``payload()``), in the shapes discord.py 2.7 parses.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

from .errors import (
    JSON,
)
from .limits import BUTTON, EPHEMERAL, LOADING, walk_components
from .permissions import MANAGE_GUILD as MANAGE_GUILD
from .permissions import (
    Overwrite,
    base_permissions,
)
from .shards import Shard, moved_to_shard

DISCORD_EPOCH_MS = 1_420_070_400_000

# Channel types.
GUILD_TEXT = 0
DM = 1
GROUP_DM = 3
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
THREAD_TYPES = (PUBLIC_THREAD, PRIVATE_THREAD)

# Message types.
DEFAULT_MESSAGE = 0
THREAD_CREATED = 18
"""The system message in a channel saying a thread was started there."""
CHAT_INPUT_COMMAND_MESSAGE = 20

# Interaction types.
APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
MODAL_SUBMIT = 5

MENTION = re.compile(r"<@!?(\d+)>")


class SnowflakeGenerator:
    """Discord ids: milliseconds since 2015 in the top bits, so ids sort by creation time."""

    def __init__(self) -> None:
        self._last = 0

    def __call__(self) -> int:
        now = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        self._last = max(now, self._last + 1)
        return self._last

    def on_shard(self, shard: Shard) -> int:
        """A fresh id whose guild's events go to ``shard`` (its timestamp nudged forward)."""
        self._last = moved_to_shard(self(), shard)
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
    locale: str = "en-US"
    """The language their Discord app is set to, which each of their interactions carries."""
    installed_app: bool = False
    """True once they added the application to their account (a user install)."""

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
    """A guild text channel, a thread of one, the DM channel between the bot and one user, or a
    private channel the bot is not in: a DM between two people or a group DM (``recipients``).

    ``overwrites`` are the channel's permission overwrites by role or member id (a thread has
    none: it takes its parent's). A thread has a ``parent_id``, an ``owner_id`` (who started it),
    ``member_ids`` (who joined it) and its ``archived``/``locked`` state.
    """

    id: int
    type: int
    name: str | None = None
    guild_id: int | None = None
    position: int = 0
    recipient: FakeUser | None = None
    """The user of a DM with the bot."""
    recipients: list[FakeUser] = field(default_factory=list)
    """Everyone in a DM between people or a group DM (the bot is never one of them)."""
    last_message_id: int | None = None
    overwrites: dict[int, Overwrite] = field(default_factory=dict)
    parent_id: int | None = None
    owner_id: int | None = None
    member_ids: dict[int, datetime] = field(default_factory=dict)
    """A thread's members: user id to when they joined."""
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    archived_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    """When the thread was created, archived or unarchived last (``archive_timestamp``)."""
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    message_count: int = 0
    total_message_sent: int = 0

    @property
    def is_dm(self) -> bool:
        return self.type == DM

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def is_private(self) -> bool:
        """A DM between people or a group DM: a private channel the bot is not in."""
        return self.guild_id is None and self.recipient is None

    def private_payload(self, viewer: FakeUser | None = None) -> dict[str, JSON]:
        """A private channel as ``viewer`` is shown it: ``recipients`` are the others."""
        last = None if self.last_message_id is None else str(self.last_message_id)
        others = [user.payload() for user in self.recipients if user is not viewer]
        payload: dict[str, JSON] = {
            "id": str(self.id),
            "type": self.type,
            "last_message_id": last,
            "recipients": others,
            "flags": 0,
        }
        if self.type == GROUP_DM:
            payload.update(name=self.name, icon=None, owner_id=str(self.owner_id))
        return payload

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def payload(self, *, member_id: int | None = None) -> dict[str, JSON]:
        """The channel object; for a thread, with ``member`` if ``member_id`` joined it."""
        last = None if self.last_message_id is None else str(self.last_message_id)
        if self.recipient is not None:
            return {
                "id": str(self.id),
                "type": self.type,
                "last_message_id": last,
                "recipients": [self.recipient.payload()],
                "flags": 0,
            }
        if self.is_private:
            return self.private_payload()
        if self.is_thread:
            return self._thread_payload(last, member_id)
        return {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [o.payload() for o in self.overwrites.values()],
            "topic": None,
            "nsfw": False,
            "parent_id": None,
            "rate_limit_per_user": 0,
            "last_message_id": last,
            "flags": 0,
        }

    def _thread_payload(self, last: str | None, member_id: int | None) -> dict[str, JSON]:
        metadata: dict[str, JSON] = {
            "archived": self.archived,
            "auto_archive_duration": self.auto_archive_duration,
            "archive_timestamp": timestamp(self.archived_at),
            "locked": self.locked,
            "create_timestamp": timestamp(self.created_at),
        }
        if self.type == PRIVATE_THREAD:
            metadata["invitable"] = True
        payload: dict[str, JSON] = {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "parent_id": str(self.parent_id),
            "owner_id": str(self.owner_id),
            "last_message_id": last,
            "rate_limit_per_user": 0,
            "message_count": self.message_count,
            "total_message_sent": self.total_message_sent,
            "member_count": min(len(self.member_ids), 50),
            "flags": 0,
            "thread_metadata": metadata,
        }
        joined = None if member_id is None else self.member_ids.get(member_id)
        if joined is not None:
            payload["member"] = {
                "id": str(self.id),
                "user_id": str(member_id),
                "join_timestamp": timestamp(joined),
                "flags": 0,
            }
        return payload


@dataclass(eq=False)
class FakeGuild:
    """A guild (server) with its roles, text channels and members; the bot is always a member."""

    id: int
    name: str
    owner_id: int
    roles: dict[int, FakeRole] = field(default_factory=dict)
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    threads: dict[int, FakeChannel] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    preferred_locale: str = "en-US"
    """The server's language (its Community settings), which its interactions carry as
    ``guild_locale``."""

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
        roles = (role.permissions for role in member.roles)
        return base_permissions(self.everyone.permissions, roles, owner=user_id == self.owner_id)

    def payload(
        self, *, members: list[FakeMember], threads: list[dict[str, JSON]]
    ) -> dict[str, JSON]:
        """The GUILD_CREATE payload, carrying ``members`` and ``threads`` (what the bot sees)."""
        return {
            **self.rest_payload(),
            "joined_at": timestamp(datetime.now(UTC)),
            "large": False,
            "unavailable": False,
            "member_count": len(self.members),
            "voice_states": [],
            "members": [member.payload() for member in members],
            "channels": [channel.payload() for channel in self.channels.values()],
            "threads": threads,
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
            "preferred_locale": self.preferred_locale,
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
    revision: int = 0
    """A fresh id (as ``DiscordState.new_id`` gives) at each edit: later than any checkpoint
    taken before the edit."""

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
            parts += [embed.get("title"), unbroken(embed.get("description"))]
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
    created_at: float = 0.0
    """When the user acted, on the fake's clock; the token expires 15 minutes later."""
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
    context: int = 0
    """Where it happened: 0 a server, 1 the DM with the bot, 2 a DM or group DM between people."""
    owners: dict[str, str] = field(default_factory=dict)
    """``authorizing_integration_owners``: "0" (a server install) to the server's id ("0" in
    the DM with the bot), "1" (a user install) to the installing user's id."""
    ephemeral_only: bool = False
    """Its answers are made ephemeral: a user install in a server without the app, where the
    member may not use external apps (or send messages)."""
    followup_posts: int = 0
    """Requests to create a followup that were accepted."""

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
        metadata: dict[str, JSON] = {
            "id": str(self.id),
            "type": self.type,
            "user": self.user.payload(),
            "authorizing_integration_owners": dict(self.owners),
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
    route: str = ""
    """The route template, e.g. ``/channels/{channel_id}/messages``."""
    bot_token: bool = False
    """True if the request carried the bot's token (what Discord's global limit counts)."""
    status: int | None = None
    expected: bool = True
    """False for a route the fake does not know (answered 404 or 405)."""

    @property
    def route_key(self) -> str:
        """Method and route template: ``POST /channels/{channel_id}/messages``."""
        return f"{self.method} {self.route}"

    def __str__(self) -> str:
        return f"{self.method} {self.path} -> {self.status}"


def unbroken(description: object) -> object:
    """An embed description with the line breaks Parlor puts in what just happened (its
    "**Last:**" paragraph, broken at spaces to fit a phone) read as the spaces they stand for."""
    if not isinstance(description, str):
        return description
    return "\n\n".join(
        part.replace("\n", " ") if part.startswith("**Last:**") else part
        for part in description.split("\n\n")
    )
