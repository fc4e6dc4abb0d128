"""What a public post says, as data: the Discord side words each line for its reader.

A line names its members as the service's ``mention`` gave them, holds its numbers as
numbers (times in seconds) and a game's event as the event itself, which the game words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeAlias

from games.base import Event


class Say(Enum):
    """What a line of the match service says, each worded by the Discord side."""

    CHALLENGE = "challenge"
    OPEN_CHALLENGE = "open_challenge"
    ACCEPTED = "accepted"
    PLAYS_BOT = "plays_bot"
    CHOOSE_SECRETS = "choose_secrets"
    CHOOSE_SECRET = "choose_secret"
    DECLINED = "declined"
    WITHDREW = "withdrew"
    EXPIRED = "expired"
    OPEN_EXPIRED = "open_expired"
    SETUP_TIMED_OUT = "setup_timed_out"
    CHOSE_FOR = "chose_for"
    CHALLENGE_STANDS = "challenge_stands"
    OPEN_CHALLENGE_STANDS = "open_challenge_stands"
    CLOCK_RESET = "clock_reset"
    """``deadline`` (its kind), ``away`` (1: the bot was down; 0: it could not post),
    ``minutes`` it was gone and ``time`` left, in seconds, and the ``members`` to act."""
    CALLED_OFF_EARLY = "called_off_early"
    MOVES_FIRST = "moves_first"
    QUEUE_PAIRED = "queue_paired"
    ROUND = "round"
    ROUND_GAME = "round_game"
    YOUR_MATCH = "your_match"
    TOURNAMENT_CANCELLED = "tournament_cancelled"


@dataclass(frozen=True)
class Members:
    """Players named together (``@a and @b``)."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class Titled:
    """A game by its title, with the options chosen that differ from its defaults."""

    game: str
    options: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, game: str, options: Mapping[str, Any]) -> Titled:
        return cls(game, tuple(options.items()))


@dataclass(frozen=True)
class Happened:
    """A game's public event, naming the players by seat."""

    event: Event
    names: tuple[str, str]


Value: TypeAlias = "str | int | Members | Titled | Saying"


@dataclass(frozen=True)
class Saying:
    """One thing the service says in its own words: ``say`` and the values it names."""

    say: Say
    values: tuple[tuple[str, Value], ...] = ()

    @classmethod
    def of(cls, say: Say, **values: Value) -> Saying:
        return cls(say, tuple(values.items()))

    def value(self, name: str) -> Value:
        return dict(self.values)[name]


PublicLine = Saying | Happened | str
"""A line of a public post. A ``str`` is an earlier release's text, kept as it was said."""


def happened(events: Sequence[Event], names: Sequence[str]) -> list[Happened]:
    """The public ``events`` as lines, naming the players ``names`` by seat."""
    public = [event for event in events if event.public]
    return [Happened(event, (names[0], names[1])) for event in public] if public else []
