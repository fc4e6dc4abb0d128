"""The judging of one finished match, as a review worker process runs it: a pure function of
``games`` over plain values, so it pickles cheaply and imports nothing of the bot or database."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from games import review as reviewing
from games.base import JSON, Outcome
from games.review import Played, Review


@dataclass(frozen=True)
class Judging:
    """What a review is computed from: the match as its log keeps it, and how it ended when
    its rules did not end it (``None`` otherwise, or when unknown)."""

    game: str
    options: Mapping[str, JSON]
    seed: int
    actions: Sequence[Played]
    ending: Outcome | None


@dataclass(frozen=True)
class Judged:
    """A review and the process that computed it."""

    review: Review
    pid: int


def judge(judging: Judging) -> Judged:
    """The review of ``judging``'s match, its words kept as phrases (``games.review.phrasing``),
    so it is worded in any language later. Raises ``ValueError`` for a log that makes no
    finished match."""
    game, options, seed, actions = judging.game, judging.options, judging.seed, judging.actions
    try:
        review = reviewing.review(game, options, seed, actions)
    except ValueError:
        if judging.ending is None:
            raise
        review = reviewing.review(game, options, seed, actions, outcome=judging.ending)
    return Judged(review, os.getpid())
