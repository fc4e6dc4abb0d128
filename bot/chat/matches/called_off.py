"""What the players are told, by DM, of a match called off because its channel is out of the
bot's reach."""

from __future__ import annotations

import games
from bot.i18n import N_, _
from bot.service.notices import MatchSnapshot

WHY = {
    "hidden": N_("I can no longer see that channel"),
    "forbidden": N_("I am no longer allowed to post there"),
    "archived": N_("its thread was archived"),
    "gone": N_("that channel is gone"),
}
"""Why a match's channel is out of reach, as ``bot.chat.boards.delivery`` reads Discord's error."""


def called_off_text(snap: MatchSnapshot, why: str) -> str:
    """The DM telling a player their match was called off, ``why`` saying what happened to its
    channel (a key of ``WHY``)."""
    channel = f"<#{snap.channel_id}>"
    return _(
        "Match #{id} ({game}) in {channel} was called off: {why}. No result, and no rating "
        "changed.",
        id=snap.id,
        game=games.get(snap.game).title,
        channel=channel,
        why=_(WHY.get(why, WHY["gone"])),
    )
