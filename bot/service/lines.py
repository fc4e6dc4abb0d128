"""What a public post says, as data: the Discord side words each line for its reader.

A line names its members as the service's ``mention`` gave them, holds its numbers as
numbers (times in seconds) and a game's event as the event itself, which the game words.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeAlias, cast

from games.base import Event


class Say(Enum):
    """What a line of the match service says, each worded by the Discord side."""

    CHALLENGE = "challenge"
    OPEN_CHALLENGE = "open_challenge"
    ACCEPTED = "accepted"
    PLAYS_BOT = "plays_bot"
    CHOOSE_SECRETS = "choose_secrets"
    CHOOSE_SECRET = "choose_secret"
    CHOOSE_SECRETS_HERE = "choose_secrets_here"
    """As ``CHOOSE_SECRETS`` for a match reached only through interactions: no DM is sent,
    each player opens their own prompt from the match's message."""
    CHOOSE_SECRET_HERE = "choose_secret_here"
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
    """A game's event, naming the players by seat."""

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


@dataclass(frozen=True)
class Kept:
    """A private event the outbox keeps until its DM is shown, worded when it is sent."""

    guild_id: int
    told: Happened


def kept_text(guild_id: int, event: Event, names: Sequence[str]) -> str:
    """A private event as the outbox keeps it: its data, not its words, so that a DM sent again
    after a restart is worded in its reader's language as the first would have been."""
    fields = {"kind": event.kind, "said": event.said, "data": dict(event.data), "game": event.game}
    return json.dumps(
        {**fields, "audience": event.audience, "names": list(names), "guild": guild_id}
    )


def kept_event(text: str) -> Kept | None:
    """What ``kept_text`` stored, or ``None`` for the words an earlier release kept."""
    try:
        found = json.loads(text)
    except ValueError:
        return None
    if not isinstance(found, dict) or "kind" not in found:
        return None
    event = Event(found["kind"], found["said"], found["audience"], found["data"], found["game"])
    first, second = found["names"]
    return Kept(found["guild"], Happened(event, (first, second)))


def kept_lines(lines: Iterable[PublicLine]) -> str | None:
    """The service's own lines among ``lines`` (each ``Saying``) as the outbox keeps them with
    a board that may not show them now: data, worded when the board shows them; ``None`` when
    there are none (a game's events are in the board's log already)."""
    sayings = [_kept_value(line) for line in lines if isinstance(line, Saying)]
    return json.dumps({"said": sayings}) if sayings else None


def kept_sayings(text: str | None) -> list[Saying]:
    """What ``kept_lines`` stored: nothing for an entry that keeps no lines."""
    if not text:
        return []
    try:
        found = json.loads(text)
    except ValueError:
        return []
    if not isinstance(found, dict):
        return []
    said = [_value_of(kept) for kept in found.get("said") or []]
    return [line for line in said if isinstance(line, Saying)]


def _kept_value(value: Value) -> Any:
    if isinstance(value, Saying):
        return {"say": value.say.value, "values": [[k, _kept_value(v)] for k, v in value.values]}
    if isinstance(value, Members):
        return {"members": list(value.names)}
    if isinstance(value, Titled):
        return {"game": value.game, "options": [list(pair) for pair in value.options]}
    return value


def _value_of(kept: Any) -> Value:
    if not isinstance(kept, dict):
        return cast(Value, kept)  # a number or a name, as it was kept
    if "say" in kept:
        values = tuple((name, _value_of(value)) for name, value in kept["values"])
        return Saying(Say(kept["say"]), values)
    if "members" in kept:
        return Members(tuple(kept["members"]))
    return Titled(kept["game"], tuple((name, value) for name, value in kept["options"]))
