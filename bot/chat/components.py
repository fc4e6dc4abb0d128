"""Buttons as plain data: what a press means (its ``custom_id``) and rows of buttons.

Every button's ``custom_id`` is a ``Press``: ``game:match:version:verb[:arg]``, which is all a
click needs to be handled, even after a restart. ``bot.chat.matches.buttons`` turns a
``Layout`` into a ``discord.ui.View``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import discord

from bot.chat.refusals import NOT_YOUR_MATCH as NOT_YOUR_MATCH
from bot.service.notices import MatchSnapshot


class Verb:
    """What a button does when pressed (the fourth part of its custom_id)."""

    ACCEPT = "accept"
    DECLINE = "decline"
    WITHDRAW = "withdraw"
    REMATCH = "rematch"
    PLAY = "play"
    """Submit the action in ``arg``, refused when the match has moved past ``version``."""
    SECRET = "secret"
    """Submit the setup secret in ``arg`` (both players answer at once: no version check)."""
    TRAP = "trap"
    """Open a picker the game's module shows privately (a trap cell)."""
    GUESS = "guess"
    """Open a form for a move typed on the board (a guess): version-checked."""
    CODE = "code"
    """Open a form for one's setup secret (a code)."""
    ASK = "ask"
    """Show what the member is asked for privately, in the channel (their DMs are closed)."""
    NOOP = "noop"
    """A disabled button that only shows something (a claimed cell, an attacked cell)."""
    REVIEW = "review"
    """Show the finished match's review privately (``bot.chat.after_game.commands`` answers it)."""


_ID = r"(?P<game>[a-z]{1,16}):(?P<match>[0-9]{1,20}):(?P<version>[0-9]{1,9})"
CHALLENGE_TEMPLATE = _ID + r":(?P<verb>accept|decline|withdraw|rematch)"
ACTION_TEMPLATE = _ID + r":(?P<verb>play|secret):(?P<arg>[A-Za-z0-9 ]{1,40})"
OPEN_TEMPLATE = _ID + r":(?P<verb>trap|guess|code|ask)"
REVIEW_TEMPLATE = _ID + r":(?P<verb>review)"
NOOP_TEMPLATE = _ID + r":(?P<verb>noop)(?::(?P<arg>[A-Za-z0-9 ]{1,40}))?"
_ANY = re.compile(_ID + r":(?P<verb>[a-z]+)(?::(?P<arg>.*))?")


@dataclass(frozen=True)
class Press:
    """A button's meaning, as carried in its ``custom_id``."""

    game: str
    match_id: int
    version: int
    verb: str
    arg: str = ""

    @property
    def custom_id(self) -> str:
        base = f"{self.game}:{self.match_id}:{self.version}:{self.verb}"
        return f"{base}:{self.arg}" if self.arg else base

    @classmethod
    def parse(cls, custom_id: str) -> Press | None:
        """The press a ``custom_id`` carries, or ``None`` when it is not one of Parlor's."""
        found = _ANY.fullmatch(custom_id)
        if found is None:
            return None
        return cls.from_match(found)

    @classmethod
    def from_match(cls, found: re.Match[str]) -> Press:
        """The press from a template match (``DynamicItem.from_custom_id`` gets one)."""
        groups = found.groupdict()
        return cls(
            game=groups["game"],
            match_id=int(groups["match"]),
            version=int(groups["version"]),
            verb=groups["verb"],
            arg=groups.get("arg") or "",
        )


def press(snap: MatchSnapshot, verb: str, arg: str = "") -> Press:
    return Press(snap.game, snap.id, snap.version, verb, arg)


# ---------------------------------------------------------------------- layouts


@dataclass(frozen=True)
class Button:
    label: str
    press: Press
    style: discord.ButtonStyle = discord.ButtonStyle.secondary
    disabled: bool = False


Layout = tuple[tuple[Button, ...], ...]
"""Rows of buttons: at most 5 rows of 5."""


@dataclass(frozen=True)
class Post:
    """A message to send or an edit to make."""

    content: str
    embed: discord.Embed | None = None
    layout: Layout = ()
    ping: tuple[int, ...] = ()
    """Users the message may notify; every other mention in it stays silent."""
