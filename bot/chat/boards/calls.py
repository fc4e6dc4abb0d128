"""Whom a match waits for, as its board's content line mentions them: the one line of a board
that names the members to act (an edit notifies nobody; a new board, a re-post, does)."""

from __future__ import annotations

from bot.i18n import _
from bot.service.notices import MatchSnapshot
from games.base import Ask


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def call_to_act(snap: MatchSnapshot) -> str | None:
    """Whom the match waits for, mentioning them."""
    if snap.over or not snap.to_act:
        return None
    asks = {uid: snap.asks.get(uid) for uid in snap.to_act}
    if snap.by_interaction_only:
        return _call_here(snap, asks)
    if all(ask is Ask.SECRET for ask in asks.values()):
        if len(snap.to_act) == 2:
            return _(
                "Waiting for {first} and {second} to choose a secret (by DM).",
                first=mention(snap.to_act[0]),
                second=mention(snap.to_act[1]),
            )
        return _("Waiting for {member} to choose a secret (by DM).", member=mention(snap.to_act[0]))
    (uid,) = snap.to_act[:1]
    if asks[uid] is Ask.HINT:
        return _("{member}, choose the hint you give (by DM).", member=mention(uid))
    return _("{member}, your move.", member=mention(uid))


def _call_here(snap: MatchSnapshot, asks: dict[int, Ask | None]) -> str:
    """Whom a match reached only through interactions waits for: no DM asks them, so the line
    names the message's own button, which opens their prompt privately."""
    if all(ask is Ask.SECRET for ask in asks.values()):
        if len(snap.to_act) == 2:
            return _(
                "Waiting for {first} and {second} to choose a secret with **Choose my secret**.",
                first=mention(snap.to_act[0]),
                second=mention(snap.to_act[1]),
            )
        return _(
            "Waiting for {member} to choose a secret with **Choose my secret**.",
            member=mention(snap.to_act[0]),
        )
    (uid,) = snap.to_act[:1]
    if asks[uid] is Ask.HINT:
        return _("{member}, choose the hint you give with **Choose my hint**.", member=mention(uid))
    return _("{member}, your move.", member=mention(uid))
