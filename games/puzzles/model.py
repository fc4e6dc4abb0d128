"""A puzzle as data: a position from a real match where the player to move had one clearly best
move, the choices to pick from and why the best one is best. Frozen values that ``dump`` to plain
JSON and ``load`` back, so a puzzle can be kept in a database column and read by a later version
of Parlor. Texts are phrases (``games.review.phrasing``), worded in the reader's language.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from games.base import JSON, Ask, Seat
from games.review import phrasing
from games.review.model import Mark
from games.review.replay import Played

FORMAT_VERSION = 1
"""The version of ``Puzzle.dump``'s layout; ``Puzzle.load`` refuses any other."""

MAX_CHOICES = 5
"""Choices offered per puzzle: one button each."""


@dataclass(frozen=True)
class Choice:
    """One move the solver may pick.

    ``action`` is the action's text, as the game's ``parse`` takes it; ``move`` the move in
    words; ``value`` the position's value after it, in the puzzle's ``unit`` (higher is better
    for the solver); ``loss`` how much worse it is than the best (0 for the best).
    """

    action: str
    move: str
    value: float
    loss: float

    def dump(self) -> dict[str, JSON]:
        return {
            "action": self.action,
            "move": phrasing.dump(self.move),
            "value": self.value,
            "loss": self.loss,
        }

    @classmethod
    def load(cls, data: Mapping[str, JSON]) -> Choice:
        return cls(
            action=data["action"],
            move=phrasing.load(data["move"]),
            value=float(data["value"]),
            loss=float(data["loss"]),
        )


@dataclass(frozen=True)
class Puzzle:
    """A position to solve, and its answer.

    ``actions`` is the match log before the puzzle's move: ``games.review.replay.played`` from
    ``game.new(options, seed)`` rebuilds the position, shown to ``seat`` as that player saw it.
    ``ask`` is what ``seat`` is asked (``action``, or ``hint`` for a Crown defender).
    ``answer`` is the best choice's action; ``margin`` how much the best beats the second best
    by, in ``unit``; ``played`` the action played in the match and ``mark`` its review mark;
    ``move_number`` the ``MoveReview.number`` of that move. ``exact`` is true when every value
    is exact rather than an estimate.
    """

    game: str
    options: Mapping[str, JSON]
    seed: int
    actions: tuple[Played, ...]
    seat: Seat
    ask: Ask
    question: str
    choices: tuple[Choice, ...]
    answer: str
    why: str
    unit: str
    margin: float
    played: str
    mark: Mark
    move_number: int
    exact: bool
    version: int = field(default=FORMAT_VERSION, compare=False)

    @property
    def key(self) -> str:
        """A stable digest of the position (game, options, seed, actions): the same position
        found twice has the same key, so it is stored once."""
        return position_key(self.game, self.options, self.seed, self.actions)

    @property
    def best(self) -> Choice:
        """The choice that answers the puzzle."""
        return next(choice for choice in self.choices if choice.action == self.answer)

    def dump(self) -> dict[str, JSON]:
        return {
            "version": self.version,
            "game": self.game,
            "options": dict(self.options),
            "seed": self.seed,
            "actions": [[seat, str(ask), text] for seat, ask, text in self.actions],
            "seat": self.seat,
            "ask": self.ask.value,
            "question": phrasing.dump(self.question),
            "choices": [choice.dump() for choice in self.choices],
            "answer": self.answer,
            "why": phrasing.dump(self.why),
            "unit": self.unit,
            "margin": self.margin,
            "played": self.played,
            "mark": self.mark.value,
            "move_number": self.move_number,
            "exact": self.exact,
        }

    @classmethod
    def load(cls, data: Mapping[str, JSON]) -> Puzzle:
        """The puzzle ``dump`` made. Raises ``ValueError`` for another format version."""
        if data.get("version") != FORMAT_VERSION:
            raise ValueError(f"puzzle format {data.get('version')!r} is not {FORMAT_VERSION}")
        return cls(
            game=data["game"],
            options=dict(data["options"]),
            seed=data["seed"],
            actions=tuple((int(seat), Ask(ask), str(text)) for seat, ask, text in data["actions"]),
            seat=data["seat"],
            ask=Ask(data["ask"]),
            question=phrasing.load(data["question"]),
            choices=tuple(Choice.load(choice) for choice in data["choices"]),
            answer=data["answer"],
            why=phrasing.load(data["why"]),
            unit=data["unit"],
            margin=float(data["margin"]),
            played=data["played"],
            mark=Mark(data["mark"]),
            move_number=data["move_number"],
            exact=data["exact"],
        )


def position_key(
    game: str, options: Mapping[str, JSON], seed: int, actions: Sequence[Played]
) -> str:
    """The digest ``Puzzle.key`` is: hex SHA-256 of the position as canonical JSON."""
    position = [
        game,
        dict(options),
        seed,
        [[seat, str(Ask(ask)), text] for seat, ask, text in actions],
    ]
    text = json.dumps(position, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def worded(puzzle: Puzzle) -> Puzzle:
    """``puzzle`` with every text written in the current catalog's language."""
    return replace(
        puzzle,
        question=phrasing.word(puzzle.question),
        why=phrasing.word(puzzle.why),
        choices=tuple(
            replace(choice, move=phrasing.word(choice.move)) for choice in puzzle.choices
        ),
    )
