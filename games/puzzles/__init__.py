"""Puzzles from real matches: positions where the player to move had one clearly best move.

``find(game, options, seed, actions)`` replays a finished match from its log and returns its
puzzles: each position where one move beat every other by a clear margin, by the review's
own exact measures. Each game's scoring lives in ``games.puzzles.<game>``, a module defining
``position(game, state, seat, ask) -> Position | None``, found by the game's name. The
puzzles are data (``games.puzzles.model``). The method and the thresholds are in
docs/puzzles.md.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from games.base import JSON, AnyGame, Ask, Outcome, Seat
from games.puzzles.choosing import Position, choose
from games.puzzles.model import FORMAT_VERSION, MAX_CHOICES, Choice, Puzzle, position_key, worded
from games.review import Mark, Review, judge_for
from games.review.judging import build
from games.review.replay import Played, Replay, replay

__all__ = [
    "FORMAT_VERSION",
    "MAX_CHOICES",
    "Choice",
    "Puzzle",
    "find",
    "finder_for",
    "position_key",
    "worded",
]

Finder = Callable[[AnyGame, Any, Seat, Ask], Position | None]

SEVERITY = {Mark.BLUNDER: 3, Mark.MISTAKE: 2, Mark.INACCURACY: 1, Mark.BEST: 0}


def finder_for(game: str) -> Finder:
    """The ``position`` of ``games.puzzles.<game>``. Raises ``KeyError`` for an unknown game."""
    import games  # here, not above: ``games`` imports this package while it finds its games

    games.get(game)  # an unknown game is refused with the valid names
    module = importlib.import_module(f"{__name__}.{game}")
    finder: Finder = module.position
    return finder


def find(
    game: str,
    options: Mapping[str, JSON],
    seed: int,
    actions: Sequence[Played],
    *,
    outcome: Outcome | None = None,
    review: Review | None = None,
) -> list[Puzzle]:
    """The puzzles of the match ``actions`` played (as ``games.review.review`` takes them),
    the best sources first: moves the review marked blunders, then mistakes, ..., then by
    margin, then in match order.

    ``review`` is the match's review when it is already made (it gives each move's mark).
    Raises ``KeyError`` for an unknown game and ``ValueError`` when the actions do not make a
    finished match.
    """
    import games

    rules = games.get(game)
    finder = finder_for(game)
    played = replay(rules, options, seed, actions, outcome)
    marks = _Marks(played, review)
    found: list[Puzzle] = []
    known: set[tuple[Seat, Ask, Hashable]] = set()
    number = 0
    for index, step in enumerate(played.steps):
        if step.ask is Ask.SECRET:
            continue
        number += 1
        position = finder(rules, step.before, step.seat, step.ask)
        if position is None:
            continue
        knew = (step.seat, step.ask, position.knowledge)
        if position.knowledge is not None and knew in known:
            continue
        chosen = choose(position, str(step.action))
        if chosen is None:
            continue
        known.add(knew)
        found.append(
            Puzzle(
                game=game,
                options=dict(played.options),
                seed=seed,
                actions=tuple((seat, Ask(ask), text) for seat, ask, text in actions[:index]),
                seat=step.seat,
                ask=step.ask,
                question=position.question,
                choices=chosen.choices,
                answer=chosen.answer,
                why=chosen.why,
                unit=position.unit,
                margin=chosen.margin,
                played=str(step.action),
                mark=marks.of(number),
                move_number=number,
                exact=position.exact,
            )
        )
    return sorted(found, key=lambda p: (-SEVERITY[p.mark], -p.margin, p.move_number))


class _Marks:
    """The review's marks, the review made only once a puzzle needs one."""

    def __init__(self, played: Replay, review: Review | None) -> None:
        self._played = played
        self._review = review

    def of(self, number: int) -> Mark:
        if self._review is None:
            self._review = build(self._played, judge_for(self._played.game.name)(self._played))
        return self._review.moves[number - 1].mark
