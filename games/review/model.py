"""A review as data: per move what the player knew, the best moves and a mark; per player a
skill and a luck score. Frozen values that ``dump`` to plain JSON and ``load`` back, so a review
can be kept in a database column and read by a later version of Parlor.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

from games.base import JSON, Ask, Outcome, Seat
from games.review import phrasing

FORMAT_VERSION = 2
"""The version of ``Review.dump``'s layout; ``Review.load`` refuses any other. Version 2 keeps
each text as a phrase (``games.review.phrasing``), worded in the reader's language when shown."""


class Mark(StrEnum):
    """How a move compares with the best one, from the loss it caused (docs/review.md)."""

    BEST = "best"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


class Value(StrEnum):
    """A position's result under best play, for the player to move."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


@dataclass(frozen=True)
class Knowledge:
    """What the player knew when choosing a move; the fields that do not apply are ``None``.

    ``text`` says it in one plain-English line. ``possible`` counts the secrets still possible
    (Crown cells, Safe codes, Flag trap cells) and ``listed`` names them when there are few.
    """

    text: str
    value: Value | None = None
    """Crystal Capture and open Number Claim: the result under best play."""
    possible: int | None = None
    listed: tuple[str, ...] = ()
    expected: float | None = None
    """Crown and Safe: moves still needed on average, this one included; Flag: the player's
    estimate of its moves to the opponent's flag."""
    worst: int | None = None
    """Crown and Safe (exact): moves still needed at most, with best play."""
    distances: tuple[int, int] | None = None
    """Flag Chase: moves to the opponent's flag on an open grid, the player's then the other's."""
    chances: tuple[float, float, float] | None = None
    """Hidden Number Claim: the chances to win, draw and lose."""

    def dump(self) -> dict[str, JSON]:
        return {
            "text": phrasing.dump(self.text),
            "value": None if self.value is None else self.value.value,
            "possible": self.possible,
            "listed": list(self.listed),
            "expected": self.expected,
            "worst": self.worst,
            "distances": None if self.distances is None else list(self.distances),
            "chances": None if self.chances is None else list(self.chances),
        }

    @classmethod
    def load(cls, data: Mapping[str, JSON]) -> Knowledge:
        distances = data["distances"]
        chances = data["chances"]
        return cls(
            text=phrasing.load(data["text"]),
            value=None if data["value"] is None else Value(data["value"]),
            possible=data["possible"],
            listed=tuple(data["listed"]),
            expected=data["expected"],
            worst=data["worst"],
            distances=None if distances is None else (int(distances[0]), int(distances[1])),
            chances=None
            if chances is None
            else (float(chances[0]), float(chances[1]), float(chances[2])),
        )


@dataclass(frozen=True)
class MoveReview:
    """One move of the match, judged.

    ``before`` is the value of the position with the best move, ``after`` with the move
    played, both in the review's ``unit``; ``loss`` (0 or more) is how much worse the move
    was, and gives the ``mark``. ``luck`` (0 to 1, 0.5 average) is how the hidden information
    fell for this move compared with every secret still possible; ``None`` when nothing
    hidden was at stake.
    """

    number: int
    """1, 2, ...: the place of the move among the match's reviewed moves."""
    seat: Seat
    ask: Ask
    """``action`` for a turn's move, ``hint`` for a Crown defender's hint."""
    action: str
    """The move as the match log stores it (the action's text)."""
    move: str
    """The move in words: ``attack (2,3)``, ``guess 1-2-3``, ``capture 7``."""
    knowledge: Knowledge
    best: tuple[str, ...]
    """The best moves, worded like ``move``; at most ``BEST_LISTED`` of ``best_count``."""
    best_count: int
    mark: Mark
    loss: float
    typical_loss: float
    """The average loss of every move that could have been played here."""
    before: float
    after: float
    exact: bool
    luck: float | None

    def dump(self) -> dict[str, JSON]:
        return {
            "number": self.number,
            "seat": self.seat,
            "ask": self.ask.value,
            "action": self.action,
            "move": phrasing.dump(self.move),
            "knowledge": self.knowledge.dump(),
            "best": [phrasing.dump(best) for best in self.best],
            "best_count": self.best_count,
            "mark": self.mark.value,
            "loss": self.loss,
            "typical_loss": self.typical_loss,
            "before": self.before,
            "after": self.after,
            "exact": self.exact,
            "luck": self.luck,
        }

    @classmethod
    def load(cls, data: Mapping[str, JSON]) -> MoveReview:
        return cls(
            number=data["number"],
            seat=data["seat"],
            ask=Ask(data["ask"]),
            action=data["action"],
            move=phrasing.load(data["move"]),
            knowledge=Knowledge.load(data["knowledge"]),
            best=tuple(phrasing.load(best) for best in data["best"]),
            best_count=data["best_count"],
            mark=Mark(data["mark"]),
            loss=data["loss"],
            typical_loss=data["typical_loss"],
            before=data["before"],
            after=data["after"],
            exact=data["exact"],
            luck=data["luck"],
        )


@dataclass(frozen=True)
class PlayerSummary:
    """One seat's review: scores 0-99 and its best and worst moves (``MoveReview.number``).

    A score that cannot be given is ``None``, with the reason in ``skill_note`` /
    ``luck_note``. ``marks`` counts the seat's moves per mark.
    """

    seat: Seat
    moves: int
    skill: int | None
    skill_note: str | None
    luck: int | None
    luck_note: str | None
    best_move: int | None
    worst_move: int | None
    marks: tuple[tuple[Mark, int], ...]
    exact: bool

    def count(self, mark: Mark) -> int:
        """How many of the seat's moves got ``mark``."""
        return dict(self.marks).get(mark, 0)

    def dump(self) -> dict[str, JSON]:
        return {
            "seat": self.seat,
            "moves": self.moves,
            "skill": self.skill,
            "skill_note": None if self.skill_note is None else phrasing.dump(self.skill_note),
            "luck": self.luck,
            "luck_note": None if self.luck_note is None else phrasing.dump(self.luck_note),
            "best_move": self.best_move,
            "worst_move": self.worst_move,
            "marks": {mark.value: count for mark, count in self.marks},
            "exact": self.exact,
        }

    @classmethod
    def load(cls, data: Mapping[str, JSON]) -> PlayerSummary:
        return cls(
            seat=data["seat"],
            moves=data["moves"],
            skill=data["skill"],
            skill_note=_note(data["skill_note"]),
            luck=data["luck"],
            luck_note=_note(data["luck_note"]),
            best_move=data["best_move"],
            worst_move=data["worst_move"],
            # In the order of ``Mark``, as judged: a JSON object's keys may come back in any order.
            marks=tuple((mark, int(data["marks"].get(mark.value, 0))) for mark in Mark),
            exact=data["exact"],
        )


@dataclass(frozen=True)
class Review:
    """The review of one finished match.

    ``unit`` names what ``before``, ``after`` and ``loss`` count: ``moves`` (Crown, Safe,
    Flag: moves still needed, or the race lead), ``outcome`` (Crystal, open Claim: steps
    between win, draw and loss, with fractions for a worse margin or a slower win) or
    ``chance`` (hidden Claim: the chance of winning, a draw counting half). ``exact`` is true
    when every move's values are exact rather than the built-in player's estimates.
    """

    game: str
    options: Mapping[str, JSON]
    seed: int
    outcome: Outcome
    unit: str
    exact: bool
    players: tuple[PlayerSummary, PlayerSummary]
    moves: tuple[MoveReview, ...]
    version: int = FORMAT_VERSION

    def dump(self) -> dict[str, JSON]:
        return {
            "version": self.version,
            "game": self.game,
            "options": dict(self.options),
            "seed": self.seed,
            "outcome": self.outcome.dump(),
            "unit": self.unit,
            "exact": self.exact,
            "players": [player.dump() for player in self.players],
            "moves": [move.dump() for move in self.moves],
        }

    @classmethod
    def load(cls, data: Mapping[str, JSON]) -> Review:
        """The review ``dump`` made. Raises ``ValueError`` for another format version."""
        if data.get("version") != FORMAT_VERSION:
            raise ValueError(
                f"review format {data.get('version')!r} is not {FORMAT_VERSION}: review again"
            )
        first, second = (PlayerSummary.load(player) for player in data["players"])
        return cls(
            game=data["game"],
            options=dict(data["options"]),
            seed=data["seed"],
            outcome=Outcome.load(data["outcome"]),
            unit=data["unit"],
            exact=data["exact"],
            players=(first, second),
            moves=tuple(MoveReview.load(move) for move in data["moves"]),
        )


def _note(data: JSON) -> str | None:
    return None if data is None else phrasing.load(data)


def worded(review: Review) -> Review:
    """``review`` with every text written in the current catalog's language (pure, cheap: the
    judging is not done again)."""
    return replace(
        review,
        players=(_worded_player(review.players[0]), _worded_player(review.players[1])),
        moves=tuple(_worded_move(move) for move in review.moves),
    )


def _worded_player(player: PlayerSummary) -> PlayerSummary:
    return replace(
        player,
        skill_note=None if player.skill_note is None else phrasing.word(player.skill_note),
        luck_note=None if player.luck_note is None else phrasing.word(player.luck_note),
    )


def _worded_move(move: MoveReview) -> MoveReview:
    return replace(
        move,
        move=phrasing.word(move.move),
        knowledge=replace(move.knowledge, text=phrasing.word(move.knowledge.text)),
        best=tuple(phrasing.word(best) for best in move.best),
    )
