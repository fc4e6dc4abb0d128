"""What the bot may do in a channel: the permission checks Discord makes on its REST routes.

No VIEW_CHANNEL is 403 "Missing Access" (50001) on every channel route. Posting needs
SEND_MESSAGES (SEND_MESSAGES_IN_THREADS in a thread), files need ATTACH_FILES and a reply needs
READ_MESSAGE_HISTORY; reading one message needs READ_MESSAGE_HISTORY, while listing a channel's
messages without it answers an empty list. A channel the bot is not in (a DM or group DM between
people, a server without the application) is Missing Access to every route, whatever was posted
there through an interaction's token. Without EMBED_LINKS Discord does not refuse embeds: it
drops them (and a message left empty is refused as empty). DM channels have no permissions.
"""

from __future__ import annotations

from collections.abc import Mapping

from .errors import JSON, REPLY_WITHOUT_HISTORY, APIError, missing_access, missing_permissions
from .permissions import (
    ALL_PERMISSIONS,
    ATTACH_FILES,
    READ_MESSAGE_HISTORY,
    VIEW_CHANNEL,
    sending_permission,
)
from .records import FakeChannel
from .state import DiscordState


def visible(state: DiscordState, channel: FakeChannel) -> int:
    """The bot's permissions in ``channel``; 403 Missing Access if it cannot see the channel, or
    is not in it (a DM or group DM between people, a server without the application)."""
    if not state.bot_reaches(channel):
        raise missing_access()
    if channel.guild_id is None:
        return ALL_PERMISSIONS
    permissions = state.channel_permissions(channel, state.bot.id)
    if not permissions & VIEW_CHANNEL:
        raise missing_access()
    return permissions


def require(permissions: int, needed: int) -> None:
    """403 Missing Permissions unless every bit of ``needed`` is in ``permissions``."""
    if permissions & needed != needed:
        raise missing_permissions()


def check_new_message(channel: FakeChannel, permissions: int, fields: Mapping[str, JSON]) -> None:
    """Refuse a new message the bot may not post (sending, files, replies)."""
    require(permissions, sending_permission(channel.is_thread))
    if fields.get("attachments"):
        require(permissions, ATTACH_FILES)
    if fields.get("message_reference") and not permissions & READ_MESSAGE_HISTORY:
        message = "Cannot reply without permission to read message history"
        raise APIError(403, REPLY_WITHOUT_HISTORY, message)
