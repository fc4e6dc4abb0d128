"""Crystal Capture puzzles: the only capture that keeps the best result.

Values are the review's (``games.review.crystal``): the solver's score of each capture, and
its loss of one step per result given away (win to draw, draw to loss), a tenth per capture
of a slower win. A position is a puzzle when one capture alone keeps the best result: every
other turns a win into a draw or a loss, or a draw into a loss.
"""

from __future__ import annotations

from games.base import AnyGame, Ask, Seat, other
from games.crystal import Capture, State
from games.players.crystal import capture_score
from games.puzzles.choosing import Position, Scored
from games.review.crystal import score_loss, value_of, words
from games.review.judging import OUTCOME
from games.review.model import Value
from games.review.phrasing import _

MARGIN = 1.0
"""Every other capture gives away at least a whole result."""


def position(game: AnyGame, state: State, seat: Seat, ask: Ask) -> Position | None:
    """Every capture ``seat`` may make in ``state``, scored; nothing is hidden."""
    legal = [action for action in game.legal_actions(state, seat) if isinstance(action, Capture)]
    if len(legal) < 2:
        return None
    pool = sum(1 << c for c in state.pool)
    points = state.points
    scores = {
        capture: capture_score(pool, points[seat], points[other(seat)], capture.crystal)
        for capture in legal
    }
    top = max(scores.values())
    question = (
        _("Your move: which crystal wins?")
        if value_of(top) is Value.WIN
        else _("Your move: which crystal saves the draw?")
    )
    return Position(
        question=question,
        unit=OUTCOME.unit,
        moves=tuple(
            Scored(str(capture), float(score), score_loss(top, score), (capture.crystal, score))
            for capture, score in scores.items()
        ),
        words=_words,
        margin=MARGIN,
    )


def _words(move: Scored) -> tuple[str, str]:
    crystal, score = move.detail
    return _("capture {crystal}", crystal=crystal), words(value_of(score), score)
