"""The interface every built-in player implements, and the levels they play at.

A player decides from what its seat may know and nothing more: the seat's own view
(``game.view(state, seat)``), what the seat is asked for, and the seat's legal actions. It
never sees the state, so it cannot read the opponent's secret. Players keep no memory
between calls (a match may be resumed by another process), and draw every random choice
from the ``random.Random`` they are given, so a seeded match replays exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, TypeVar

from games.base import Ask

Level = Literal["easy", "normal", "hard"]
LEVELS: tuple[Level, ...] = ("easy", "normal", "hard")
DEFAULT_LEVEL: Level = "normal"

NORMAL_SLIP = 0.25
"""How often a ``normal`` player takes a random legal action instead of the ``hard`` one."""

V = TypeVar("V")
V_contra = TypeVar("V_contra", contravariant=True)
A = TypeVar("A")

Strategy = Callable[[V, Ask, Sequence[A], random.Random], A]
"""A game's best choice: ``(view, ask, legal, rng) -> action``, ``action`` one of ``legal``."""


class Player(Protocol[V_contra, A]):
    """Something that plays one game's seat: a built-in player, or a baseline in a test."""

    def choose(self, view: V_contra, ask: Ask, legal: Sequence[A], rng: random.Random) -> A:
        """One of ``legal``: what the seat whose ``view`` this is does when asked ``ask``.

        Raises ``ValueError`` when ``legal`` is empty (the seat may not act).
        """
        ...


AnyPlayer = Player[Any, Any]


def random_action(legal: Sequence[A], rng: random.Random) -> A:
    """A uniformly random one of ``legal``, without building a list of a lazy sequence."""
    if not legal:
        raise ValueError("the seat has no legal action: it may not act now")
    return legal[rng.randrange(len(legal))]


@dataclass(frozen=True)
class LevelledPlayer(Generic[V, A]):
    """The built-in player of ``game`` at ``level``, following the game's ``strategy``.

    ``easy`` takes a random legal action; ``hard`` always follows the strategy; ``normal``
    follows it except for a random legal action ``NORMAL_SLIP`` of the time.
    """

    game: str
    level: Level
    strategy: Strategy[V, A]

    def choose(self, view: V, ask: Ask, legal: Sequence[A], rng: random.Random) -> A:
        if not legal:
            raise ValueError("the seat has no legal action: it may not act now")
        if self.level == "easy" or (self.level == "normal" and rng.random() < NORMAL_SLIP):
            return random_action(legal, rng)
        return self.strategy(view, ask, legal, rng)
