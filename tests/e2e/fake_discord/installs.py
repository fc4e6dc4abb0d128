"""Where a command may run: installation contexts, interaction contexts, and what follows.

An application is installed to a server (``GUILD_INSTALL``, 0: the bot joins it) or to a user's
account (``USER_INSTALL``, 1). A command says which installs reach it (``integration_types``,
``[0]`` when not given) and where it may run (``contexts``: ``GUILD`` 0, ``BOT_DM`` 1,
``PRIVATE_CHANNEL`` 2, a DM or group DM between people; ``null`` is the server and the DM with the
bot, as ``dm_permission`` allows). An interaction carries ``authorizing_integration_owners``: the
installs that authorised it, "0" to the server's id ("0" in the DM with the bot) and "1" to the
installing user's id.

Sources: Discord's documentation (``receiving-and-responding``: the owners object, the followup
cap, ``app_permissions`` in DMs; ``application-commands``: contexts; ``topics/permissions``:
USE_EXTERNAL_APPS; the change log of 27 June 2024), and its issues #6744, #7108 and PR #7583 on
what a command without ``contexts`` reaches.
"""

from __future__ import annotations

from collections.abc import Mapping

from .errors import JSON, FormErrors
from .permissions import (
    ATTACH_FILES,
    EMBED_LINKS,
    MENTION_EVERYONE,
    USE_EXTERNAL_APPS,
    sending_permission,
)
from .records import FakeChannel, FakeGuild, FakeUser

# Installation contexts (application integration types).
GUILD_INSTALL = 0
USER_INSTALL = 1
INTEGRATION_TYPES = (GUILD_INSTALL, USER_INSTALL)

# Interaction context types.
GUILD = 0
BOT_DM = 1
PRIVATE_CHANNEL = 2
CONTEXTS = (GUILD, BOT_DM, PRIVATE_CHANNEL)

DEFAULT_INTEGRATION_TYPES = [GUILD_INSTALL]
"""What Discord stores for a command registered without ``integration_types`` (or with
``null``, as discord.py sends when ``allowed_installs`` is not set): a server install only."""

FOLLOWUP_CAP = 5
"""Followups one interaction may create when only a user install authorised it."""

PRIVATE_CHANNEL_APP_PERMISSIONS = ATTACH_FILES | EMBED_LINKS | MENTION_EVERYONE
"""``app_permissions`` in a DM or group DM between people, the bits Discord's docs name."""


def interaction_context(channel: FakeChannel) -> int:
    """The context an interaction in ``channel`` is sent with."""
    if channel.guild_id is not None:
        return GUILD
    return BOT_DM if channel.recipient is not None else PRIVATE_CHANNEL


def check_install_fields(
    command: Mapping[str, JSON], errors: FormErrors, path: tuple[str | int, ...]
) -> None:
    """``integration_types`` and ``contexts``: ``null`` or lists of known values."""
    for key, allowed in (("integration_types", INTEGRATION_TYPES), ("contexts", CONTEXTS)):
        value = command.get(key)
        if value is None:
            continue
        if not isinstance(value, list):
            errors.add((*path, key), "BASE_TYPE_LIST", "Must be an array.")
            continue
        for index, item in enumerate(value):
            if isinstance(item, bool) or item not in allowed:
                message = f"Value must be one of {allowed}."
                errors.add((*path, key, index), "BASE_TYPE_CHOICES", message)


def command_contexts(command: Mapping[str, JSON]) -> list[int]:
    """Where ``command`` may run; without ``contexts``, a server and (unless ``dm_permission``
    is false) the DM with the bot, never a private channel."""
    contexts = command.get("contexts")
    if contexts is not None:
        return list(contexts)
    return [GUILD] if command.get("dm_permission") is False else [GUILD, BOT_DM]


def authorizing_owners(
    command: Mapping[str, JSON],
    *,
    user: FakeUser,
    channel: FakeChannel,
    server: FakeGuild | None,
    app_in_server: bool,
) -> dict[str, str]:
    """The installs that let ``user`` run ``command`` in ``channel``; empty if none does."""
    context = interaction_context(channel)
    if context not in command_contexts(command):
        return {}
    types = command.get("integration_types") or DEFAULT_INTEGRATION_TYPES
    owners: dict[str, str] = {}
    if GUILD_INSTALL in types:
        if context == GUILD and app_in_server and server is not None:
            owners[str(GUILD_INSTALL)] = str(server.id)
        elif context == BOT_DM:
            owners[str(GUILD_INSTALL)] = "0"
    if USER_INSTALL in types and user.installed_app and "guild_id" not in command:
        owners[str(USER_INSTALL)] = str(user.id)
    return owners


def user_install_permissions(member_permissions: int, *, in_thread: bool) -> int:
    """``app_permissions`` of a user install in a server without the application: the member's
    own, without sending when the member may not use external apps there."""
    if member_permissions & USE_EXTERNAL_APPS:
        return member_permissions
    return member_permissions & ~sending_permission(in_thread)


def only_ephemeral(app_permissions: int, *, in_thread: bool) -> bool:
    """A user install's answers in a server without the application are ephemeral when
    ``app_permissions`` cannot send there."""
    return not app_permissions & sending_permission(in_thread)


def user_install_only(owners: Mapping[str, str]) -> bool:
    """Only a user install authorised the interaction (the followup cap applies)."""
    return set(owners) == {str(USER_INSTALL)}
