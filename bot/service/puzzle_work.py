"""The search of one finished match for puzzles, as a review worker process runs it: a pure
function of ``games`` over plain values, like ``review_work.judge``."""

from __future__ import annotations

from bot.service.review_work import Judging
from games import puzzles as finding
from games.puzzles import Puzzle


def search(judging: Judging) -> list[Puzzle]:
    """The puzzles of ``judging``'s match, best sources first. Raises ``ValueError`` for a log
    that makes no finished match."""
    game, options, seed, actions = judging.game, judging.options, judging.seed, judging.actions
    try:
        return finding.find(game, options, seed, actions)
    except ValueError:
        if judging.ending is None:
            raise
        return finding.find(game, options, seed, actions, outcome=judging.ending)
