"""Discord's permission bits and how a member's permissions in a channel are computed.

The computation follows Discord's documented order: the guild owner has every permission; the
base is ``@everyone``'s permissions OR the member's roles' (ADMINISTRATOR grants all and skips
overwrites); then the channel's ``@everyone`` overwrite, the member's roles' overwrites (all
denies, then all allows) and the member's own overwrite. Implicit denials follow: no
VIEW_CHANNEL means no channel permission at all, and whoever cannot send messages cannot embed
links, attach files, mention everyone or send TTS. In a thread, sending is SEND_MESSAGES_IN_THREADS
(SEND_MESSAGES is not inherited from the parent).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .errors import JSON

CREATE_INSTANT_INVITE = 1 << 0
ADMINISTRATOR = 1 << 3
MANAGE_CHANNELS = 1 << 4
MANAGE_GUILD = 1 << 5
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
SEND_TTS_MESSAGES = 1 << 12
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
MENTION_EVERYONE = 1 << 17
USE_EXTERNAL_EMOJIS = 1 << 18
CHANGE_NICKNAME = 1 << 26
MANAGE_ROLES = 1 << 28
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
USE_EXTERNAL_APPS = 1 << 50
"""Lets a member's user-installed apps answer publicly in the server (Discord: "When disabled,
users will still be allowed to use their apps but the responses will be ephemeral. This only
applies to apps not also installed to the server")."""
ALL_PERMISSIONS = ((1 << 53) - 1) & ~(1 << 47)
"""Every permission Discord defines (bits 0 to 52; bit 47 is unused)."""

SENDING_NEEDED = SEND_TTS_MESSAGES | MENTION_EVERYONE | EMBED_LINKS | ATTACH_FILES
"""Permissions that mean nothing to whoever cannot send messages in the channel."""

CHANNEL_BITS = (0, 4, 6, 8, 9, *range(10, 19), *range(20, 26), 28, 29, *range(31, 40), 42)
CHANNEL_PERMISSIONS: int = sum(1 << bit for bit in (*CHANNEL_BITS, *range(44, 47), *range(48, 53)))
"""Every permission Discord applies to text, voice or stage channels (what losing VIEW_CHANNEL
takes away)."""

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
    | CREATE_PUBLIC_THREADS
    | CREATE_PRIVATE_THREADS
    | SEND_MESSAGES_IN_THREADS
    | USE_EXTERNAL_APPS
)
"""What ``@everyone`` may do in a new guild (USE_EXTERNAL_APPS is on by default since June 2024)."""

BOT_PERMISSIONS = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | ADD_REACTIONS
    | USE_EXTERNAL_EMOJIS
    | SEND_MESSAGES_IN_THREADS
    | CREATE_PUBLIC_THREADS
    | USE_APPLICATION_COMMANDS
)
"""What a bot typically asks for when invited: read, write, embed, react, threads, commands."""

ROLE_OVERWRITE = 0
MEMBER = 1
"""Overwrite target types: a role, or a member."""


@dataclass
class Overwrite:
    """A channel's permission overwrite for one role (``ROLE_OVERWRITE``) or one ``MEMBER``."""

    id: int
    type: int
    allow: int = 0
    deny: int = 0

    def payload(self) -> dict[str, JSON]:
        return {
            "id": str(self.id),
            "type": self.type,
            "allow": str(self.allow),
            "deny": str(self.deny),
        }


def base_permissions(everyone: int, roles: Iterable[int], *, owner: bool) -> int:
    """Guild-wide permissions from ``@everyone`` and the member's roles' permission bits."""
    if owner:
        return ALL_PERMISSIONS
    allowed = everyone
    for role in roles:
        allowed |= role
    return ALL_PERMISSIONS if allowed & ADMINISTRATOR else allowed


def apply_overwrites(
    base: int,
    overwrites: Mapping[int, Overwrite],
    *,
    guild_id: int,
    role_ids: Iterable[int],
    member_id: int,
) -> int:
    """``base`` after the channel's overwrites, in Discord's order (ADMINISTRATOR skips them)."""
    if base & ADMINISTRATOR:
        return ALL_PERMISSIONS
    allowed = base
    everyone = overwrites.get(guild_id)
    if everyone is not None:
        allowed = (allowed & ~everyone.deny) | everyone.allow
    allow = deny = 0
    for role_id in role_ids:
        overwrite = overwrites.get(role_id)
        if overwrite is not None and overwrite.type == ROLE_OVERWRITE:
            allow |= overwrite.allow
            deny |= overwrite.deny
    allowed = (allowed & ~deny) | allow
    own = overwrites.get(member_id)
    if own is not None and own.type == MEMBER:
        allowed = (allowed & ~own.deny) | own.allow
    return allowed


def with_implicit_denials(permissions: int, *, in_thread: bool) -> int:
    """Drop what the channel's VIEW_CHANNEL and sending permissions make meaningless."""
    if permissions & ADMINISTRATOR:
        return permissions
    if not permissions & VIEW_CHANNEL:
        return permissions & ~CHANNEL_PERMISSIONS
    sends = SEND_MESSAGES_IN_THREADS if in_thread else SEND_MESSAGES
    if not permissions & sends:
        permissions &= ~SENDING_NEEDED
    return permissions


def sending_permission(in_thread: bool) -> int:
    """The bit that lets one post: SEND_MESSAGES_IN_THREADS in a thread, else SEND_MESSAGES."""
    return SEND_MESSAGES_IN_THREADS if in_thread else SEND_MESSAGES
