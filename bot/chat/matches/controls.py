"""A game's controls (``games.controls``) as Discord buttons.

A control plays its action when pressed; a disabled one only shows why not; one that opens asks
for the rest privately (a trap's cell); a move typed whole (a code) is a button that opens a form.
Every rule is the game's: nothing here decides what may be pressed. A button's label starts with
a capital (``Row is greater than 2``).
"""

from __future__ import annotations

import discord

import games
from bot.chat.components import Button, Layout, Verb, press
from bot.i18n import _
from bot.service.notices import MatchSnapshot
from games.base import AnyGame, Ask
from games.controls import Control, Controls

LABEL_MAX = 80
"""The most characters Discord shows on a button."""


def layout(
    snap: MatchSnapshot, controls: Controls, *, play: str = Verb.PLAY, typed: str = Verb.GUESS
) -> Layout:
    """``controls`` as rows of buttons on ``snap``'s match: a press of an enabled one sends
    ``play`` with its action, the typed move's button sends ``typed`` (a form)."""
    engine = games.get(snap.game)
    rows = [tuple(_button(snap, engine, control, play) for control in row) for row in controls.rows]
    if controls.typed is not None:
        label = controls.typed.label[:LABEL_MAX]
        rows.append((Button(label, press(snap, typed), discord.ButtonStyle.primary),))
    return tuple(rows)


def _button(snap: MatchSnapshot, engine: AnyGame, control: Control, play: str) -> Button:
    label = (control.label[:1].upper() + control.label[1:])[:LABEL_MAX]
    secret = engine.is_secret(control.action)
    style = discord.ButtonStyle.danger if secret else discord.ButtonStyle.primary
    if not control.enabled:
        # Greyed out by Discord, in the style of the others: a colour never tells one cell apart.
        return Button(label, press(snap, Verb.NOOP, control.action), style, disabled=True)
    if control.opens:
        return Button(label, press(snap, Verb.TRAP), style)
    return Button(label, press(snap, play, control.action), style)


def opening(snap: MatchSnapshot) -> Layout:
    """On the message of a match reached only through interactions (no DM reaches its
    players): a button that opens the presser's own prompt privately, while a player is to
    choose a secret or a hint."""
    if not snap.by_interaction_only or snap.status not in ("setup", "active"):
        return ()
    asked = set(snap.asks.values())
    if Ask.SECRET in asked:
        label = _("Choose my secret")
    elif Ask.HINT in asked:
        label = _("Choose my hint")
    else:
        return ()
    return ((Button(label, press(snap, Verb.ASK), discord.ButtonStyle.primary),),)
