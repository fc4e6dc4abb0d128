"""What every part of the Discord side sends with: message arguments, nonces, error codes.

Logs name match and user ids only: never a message's text, which may hold a secret.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

import discord

from bot.chat.components import Post
from bot.chat.matches.buttons import to_view
from bot.service.lines import PublicLine
from bot.service.notices import MatchSnapshot

Interaction = discord.Interaction[Any]

CANNOT_DM = 50007
"""Discord's error code for a DM the recipient does not accept."""
UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008
MISSING_ACCESS = 50001
MISSING_PERMISSIONS = 50013
THREAD_ARCHIVED = 50083
THREAD_LOCKED = 160005
OUT_OF_REACH = frozenset({MISSING_ACCESS, MISSING_PERMISSIONS, THREAD_LOCKED})
"""Error codes that mean the bot may not post in a match's channel for now: a moderator may give
the permission back or unlock the thread (``bot.chat.matches.channel_holds``)."""
UNREACHABLE = frozenset({UNKNOWN_CHANNEL, THREAD_ARCHIVED, *OUT_OF_REACH})
"""Error codes that mean a match's channel is out of the bot's reach: gone for good
(``UNKNOWN_CHANNEL``), an archived thread, or ``OUT_OF_REACH``."""


def message_kwargs(post: Post, *, edit: bool = False, ping: bool = False) -> dict[str, Any]:
    """The keyword arguments that send or edit ``post``.

    Mentions notify only the members in ``post.ping``, and only when ``ping`` (a new message);
    an edit replaces the content, the embed and the buttons (``None`` removes them).
    """
    users = [discord.Object(uid) for uid in post.ping] if ping else []
    allowed = discord.AllowedMentions(everyone=False, roles=False, replied_user=False, users=users)
    kwargs: dict[str, Any] = {"content": post.content, "allowed_mentions": allowed}
    view = to_view(post.layout)
    if edit:
        kwargs["embed"] = post.embed
        kwargs["view"] = view
        return kwargs
    if post.embed is not None:
        kwargs["embed"] = post.embed
    if view is not None:
        kwargs["view"] = view
    return kwargs


def as_shown_now(snap: MatchSnapshot) -> tuple[MatchSnapshot, list[PublicLine]]:
    """A board drawn outside a use case: the newest event as what just happened, the earlier
    ones as its log."""
    return replace(snap, history=snap.history[:-1]), list(snap.history[-1:])


def nonce(match_id: int, version: int, kind: str, user_id: int | None = None) -> str:
    """A message nonce for one delivery (Discord takes at most 25 characters): a retry of the
    same delivery carries the same nonce, so Discord posts it once."""
    key = f"{match_id}:{version}:{kind}:{user_id}".encode()
    return hashlib.blake2b(key, digest_size=10).hexdigest()


def on_private_message(interaction: Interaction) -> bool:
    """Whether the pressed message is private: a DM, or an ephemeral message."""
    message = interaction.message
    return interaction.guild_id is None or bool(message and message.flags.ephemeral)


def channel_of(client: discord.Client, snap: MatchSnapshot) -> discord.PartialMessageable:
    """The match's channel, to post in with the bot token."""
    return client.get_partial_messageable(snap.channel_id, guild_id=snap.guild_id or None)
