"""From every move a position allowed, scored, to a puzzle: one clearly best move, the choices
shown beside it and why it is best.

Each game's module (``games.puzzles.<game>``) scores every legal move of a position with its
review's own measures (a ``Position``); what makes it a puzzle is the same for every game and
is here.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import reduce
from typing import Any

from games.puzzles.model import MAX_CHOICES, Choice
from games.review.judging import DIGITS
from games.review.phrasing import Phrase, _

TIE = 1e-9
"""Losses closer than this are equal (values are sums of fractions)."""


@dataclass(frozen=True)
class Scored:
    """One legal move of a position: its action text (``str`` of the action), its value and
    loss in the review's unit, and what its words need (``Position.words``)."""

    action: str
    value: float
    loss: float
    detail: Any = None
    tempting: float = 0.0
    """Among moves that lose alike, the more tempting is offered first (Safe Cracker: a code
    that agrees with more of the answers)."""
    """What the words need: the game's own parts of the move (hashable)."""


Words = Callable[[Scored], tuple[str, str]]
"""A move in words and what it leads to in words, numbers included (``capture 7``, ``a win
within 2 captures``): made only for the moves a puzzle shows, as wording is the slow part."""


@dataclass(frozen=True)
class Position:
    """Every legal move of a position, scored, in the game's own order (how the choices are
    listed), with the question to ask and the margin a puzzle needs."""

    question: str
    unit: str
    moves: tuple[Scored, ...]
    words: Words
    margin: float
    """The least loss of every move but the best for the position to be a puzzle."""
    exact: bool = True
    knowledge: Hashable = None
    """What the player knew that decides every value (Safe: the codes still possible), when
    it may stay the same over several moves: a match's later positions of the same seat with
    the same knowledge repeat the first, with the answer only easier to see."""


@dataclass(frozen=True)
class Chosen:
    """A position's puzzle: the choices to show (in the game's order), the answer, the margin
    by which it beats the second best, and why."""

    choices: tuple[Choice, ...]
    answer: str
    margin: float
    why: str


def choose(position: Position, played: str) -> Chosen | None:
    """The puzzle ``position`` makes, or ``None`` unless exactly one move is best and every
    other loses at least ``position.margin``.

    The choices are the best move, the move ``played`` (if another), the second best, then
    the others that lose least (the most tempting), at most ``MAX_CHOICES``; they are shown in
    the game's order, so where the answer stands tells nothing.
    """
    moves = position.moves
    best = [move for move in moves if move.loss < TIE]
    if len(best) != 1 or len(moves) < 2:
        return None
    answer = best[0]
    order = {move.action: place for place, move in enumerate(moves)}
    others = sorted(
        (move for move in moves if move is not answer),
        key=lambda move: (round(move.loss, DIGITS), -move.tempting, order[move.action]),
    )
    margin = others[0].loss
    if margin < position.margin - TIE:
        return None
    picked = [answer]
    picked += [move for move in moves if move.action == played and move is not answer]
    for move in others:
        if len(picked) >= MAX_CHOICES:
            break
        if move not in picked:
            picked.append(move)
    shown = sorted(picked, key=lambda move: order[move.action])
    words = {move.action: position.words(move) for move in picked}
    return Chosen(
        choices=tuple(
            Choice(
                move.action,
                words[move.action][0],
                round(move.value, DIGITS),
                round(move.loss, DIGITS),
            )
            for move in shown
        ),
        answer=answer.action,
        margin=round(margin, DIGITS),
        why=_why([(move, *words[move.action]) for move in picked]),
    )


def _why(picked: Sequence[tuple[Scored, str, str]]) -> Phrase:
    """``capture 7 is best: a win within 2 captures. Instead, capture 4 gives a draw; ...``"""
    (_best, best, result), *others = picked
    ranked = sorted(others, key=lambda other: other[0].loss)
    instead = reduce(
        _then, (_("{move} gives {result}", move=move, result=gives) for _o, move, gives in ranked)
    )
    return _(
        "{best} is best: {result}. Instead, {others}.", best=best, result=result, others=instead
    )


def _then(first: str, second: str) -> Phrase:
    return _("{first}; {second}", first=first, second=second)
