"""Reviews of finished matches, move by move, in the spirit of the NYT WordleBot.

``review(game, options, seed, actions)`` replays a match from its log and returns a
``Review``: per move what the player knew, the best moves (from the built-in players'
solvers) and a mark; per player a skill and a luck score, 0-99. Each game's judgement lives
in ``games.review.<game>``, a module defining ``judge(replay) -> Judgement``, found by the
game's name: a new game adds one module. The method is in docs/review.md.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence

from games.base import JSON, Outcome
from games.review.judging import Judged, Judgement, Scale, build
from games.review.model import (
    FORMAT_VERSION,
    Knowledge,
    Mark,
    MoveReview,
    PlayerSummary,
    Review,
    Value,
    worded,
)
from games.review.replay import Played, Replay, replay

__all__ = [
    "FORMAT_VERSION",
    "Judged",
    "Judgement",
    "Knowledge",
    "Mark",
    "MoveReview",
    "Played",
    "PlayerSummary",
    "Replay",
    "Review",
    "Scale",
    "Value",
    "judge_for",
    "review",
    "worded",
]

Judge = Callable[[Replay], Judgement]


def judge_for(game: str) -> Judge:
    """The ``judge`` of ``games.review.<game>``. Raises ``KeyError`` for an unknown game."""
    import games  # here, not above: ``games`` imports this package while it finds its games

    games.get(game)  # an unknown game is refused with the valid names
    module = importlib.import_module(f"{__name__}.{game}")
    judge: Judge = module.judge
    return judge


def review(
    game: str,
    options: Mapping[str, JSON],
    seed: int,
    actions: Sequence[Played],
    *,
    outcome: Outcome | None = None,
) -> Review:
    """The review of the match ``actions`` played (``(seat, ask, action_text)`` in order, as
    the match log holds them) from ``new(options, seed)`` of ``game``.

    ``outcome`` is how the match ended when its rules did not end it (resign, timeout).
    Raises ``KeyError`` for an unknown game and ``ValueError`` when the actions do not make
    a finished match (see ``replay``).
    """
    import games

    judge = judge_for(game)
    played = replay(games.get(game), options, seed, actions, outcome)
    return build(played, judge(played))
