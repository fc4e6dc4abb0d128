"""A member's limits on challenges and matches, and a channel's on open challenges (the
README's "Fair use")."""

from __future__ import annotations

from datetime import timedelta

from bot.service.errors import Limit, LimitReached
from db.member_load import MemberLoad

MAX_OPEN_CHALLENGES = 3
"""Challenges a member may have waiting for an answer at once, open or to a member."""
MAX_PLAYING = 10
"""Matches a member may play at once, against members and the bot alike."""
MAX_PAIR_CHALLENGES = 3
"""Challenges one member may send another within ``PAIR_WINDOW`` that do not become a match;
as many open challenges that nobody took."""
PAIR_WINDOW = timedelta(minutes=10)
CHANNEL_OPEN_CHALLENGES = 3
"""Open challenges a channel takes within ``CHANNEL_WINDOW``, from all its members together."""
CHANNEL_WINDOW = timedelta(minutes=1)


def check_challenge(load: MemberLoad, *, vs_bot: bool, open_challenge: bool) -> None:
    """Refuse a challenge past the challenger's limits."""
    check_playing(load)
    if vs_bot:
        return
    if load.open_challenges >= MAX_OPEN_CHALLENGES:
        raise LimitReached(Limit.OPEN_CHALLENGES, MAX_OPEN_CHALLENGES)
    if load.sent_to_opponent >= MAX_PAIR_CHALLENGES:
        minutes = int(PAIR_WINDOW.total_seconds() // 60)
        limit = Limit.UNTAKEN_OPEN if open_challenge else Limit.SAME_OPPONENT
        raise LimitReached(limit, MAX_PAIR_CHALLENGES, minutes)


def check_playing(load: MemberLoad, *, accepting: bool = False) -> None:
    """Refuse a member already playing ``MAX_PLAYING`` matches (``accepting``: a challenge
    they would accept)."""
    if load.playing < MAX_PLAYING:
        return
    raise LimitReached(Limit.PLAYING_TO_ACCEPT if accepting else Limit.PLAYING, MAX_PLAYING)


def check_channel(posted: int) -> None:
    """Refuse an open challenge in a channel that took its share this minute."""
    if posted >= CHANNEL_OPEN_CHALLENGES:
        raise LimitReached(Limit.CHANNEL_OPEN, CHANNEL_OPEN_CHALLENGES)
