"""Gateway event payloads as one session sees them: its shard's guilds, what its intents allow.

Without GUILD_PRESENCES a GUILD_CREATE lists only the bot's member. Guild messages need
GUILD_MESSAGES and arrive without content unless MESSAGE_CONTENT is on or they come from or
mention the bot; DMs need DIRECT_MESSAGES only. Threads reach the bot only if it can see them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import JSON
from .permissions import VIEW_CHANNEL
from .shards import Shard

if TYPE_CHECKING:
    from .records import FakeChannel, FakeGuild, FakeMessage
    from .state import DiscordState

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

TRACE = ["fake-discord"]


def ready_payload(
    state: DiscordState,
    shard: Shard,
    *,
    session_id: str,
    resume_url: str,
    privileged: bool,
    shard_given: bool,
) -> dict[str, JSON]:
    """READY: the bot, and its shard's guilds as unavailable (each GUILD_CREATE follows)."""
    flags = PRIVILEGED_INTENT_FLAGS if privileged else 0
    guilds = [guild_id for guild_id in state.guilds if shard.covers(guild_id)]
    payload: dict[str, JSON] = {
        "v": 10,
        "user": {**state.bot.payload(), "verified": True, "mfa_enabled": False},
        "guilds": [{"id": str(guild_id), "unavailable": True} for guild_id in guilds],
        "session_id": session_id,
        "session_type": "normal",
        "resume_gateway_url": resume_url,
        "application": {"id": str(state.application_id), "flags": flags},
        "private_channels": [],
        "relationships": [],
        "presences": [],
        "guild_join_requests": [],
        "geo_ordered_rtc_regions": [],
        "user_settings": {},
        "_trace": TRACE,
    }
    if shard_given:
        payload["shard"] = shard.payload()
    return payload


def guild_create_payload(state: DiscordState, intents: int, guild: FakeGuild) -> dict[str, JSON]:
    """GUILD_CREATE: channels with their overwrites, roles, the active threads the bot sees."""
    bot = state.bot
    members = list(guild.members.values())
    if not intents & GUILD_PRESENCES:
        members = [guild.members[bot.id]]
    threads = [
        thread.payload(member_id=bot.id)
        for thread in guild.threads.values()
        if not thread.archived and bot_sees(state, thread)
    ]
    return guild.payload(members=members, threads=threads)


def bot_sees(state: DiscordState, channel: FakeChannel) -> bool:
    """True if the bot can view ``channel`` (always, for its own DMs; never, for a channel it
    is not in)."""
    if not state.bot_reaches(channel):
        return False
    if channel.guild_id is None:
        return True
    return bool(state.channel_permissions(channel, state.bot.id) & VIEW_CHANNEL)


def message_payload(state: DiscordState, intents: int, message: FakeMessage) -> JSON:
    """A message as a session with ``intents`` may see it, or ``None`` if its intents exclude it
    (or the bot is not in its channel)."""
    if message.ephemeral or not state.bot_reaches(message.channel):
        return None
    direct = message.channel.is_dm
    if not intents & (DIRECT_MESSAGES if direct else GUILD_MESSAGES):
        return None
    payload = message.payload()
    if direct:
        return payload
    if not bot_sees(state, message.channel):
        return None
    guild = state.guilds[message.channel.guild_id or 0]
    payload["guild_id"] = str(guild.id)
    member = guild.member(message.author.id)
    if member is not None:
        payload["member"] = member.payload(with_user=False)
    bot = state.bot
    readable = message.author is bot or bot in message.mentions
    if not intents & MESSAGE_CONTENT and not readable:
        payload.update(content="", embeds=[], attachments=[], components=[])
    return payload


def message_delete_payload(intents: int, message: FakeMessage) -> JSON:
    """MESSAGE_DELETE for a session with ``intents``, or ``None`` if its intents exclude it."""
    if message.ephemeral:
        return None
    direct = message.channel.is_dm
    if not intents & (DIRECT_MESSAGES if direct else GUILD_MESSAGES):
        return None
    data: dict[str, JSON] = {"id": str(message.id), "channel_id": str(message.channel.id)}
    if not direct:
        data["guild_id"] = str(message.channel.guild_id)
    return data
