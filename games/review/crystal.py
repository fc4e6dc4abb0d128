"""Crystal Capture reviewed exactly: every capture against the solver's minimax value.

Nothing is hidden, so there is no luck. A position's value is the solver's ``score``: a win
or a loss and how many captures it takes, or a draw. A move loses one step for a win turned
into a draw (or a draw into a loss), two for a win into a loss, and a tenth per capture of a
slower win or a quicker loss (at most 0.4), which marks it an inaccuracy.
"""

from __future__ import annotations

from games.base import other
from games.crystal import Capture, State
from games.players.crystal import WIN, capture_score
from games.review.judging import OUTCOME, Judged, Judgement
from games.review.model import Knowledge, Value
from games.review.phrasing import N_, _, n_
from games.review.replay import Replay

SLOWER = 0.1
"""The loss per capture of a slower win or a quicker loss."""
SLOWER_CAP = 0.4
NO_LUCK = N_("Crystal Capture hides nothing: every result follows from the moves")


def value_of(score: int) -> Value:
    """The result a solver score promises the player to move."""
    return Value.WIN if score > 0 else Value.LOSS if score < 0 else Value.DRAW


def value_rank(value: Value) -> int:
    return {Value.WIN: 2, Value.DRAW: 1, Value.LOSS: 0}[value]


def score_loss(best: int, played: int) -> float:
    """The loss of a move scoring ``played`` where the best scores ``best`` (see module)."""
    drop = value_rank(value_of(best)) - value_rank(value_of(played))
    if drop:
        return float(drop)
    return min(SLOWER_CAP, SLOWER * (best - played))


def words(value: Value, score: int) -> str:
    """A value in words: ``a win within 3 captures``, ``a draw``."""
    if value is Value.DRAW:
        return _("a draw")
    captures = WIN - abs(score)
    if value is Value.WIN:
        return n_("a win within {n} capture", "a win within {n} captures", captures)
    return n_("a loss within {n} capture", "a loss within {n} captures", captures)


def value_words(value: Value) -> str:
    """A value in words, after ``best play gives``: ``a win``, ``a draw``, ``a loss``."""
    if value is Value.WIN:
        return _("a win")
    return _("a draw") if value is Value.DRAW else _("a loss")


def judge(replay: Replay) -> Judgement:
    moves = []
    for step in replay.steps:
        state: State = step.before
        seat = step.seat
        points = state.points
        pool = sum(1 << c for c in state.pool)
        scores = {
            capture.crystal: capture_score(pool, points[seat], points[other(seat)], capture.crystal)
            for capture in replay.game.legal_actions(state, seat)
        }
        assert isinstance(step.action, Capture)
        top = max(scores.values())
        played = scores[step.action.crystal]
        value = value_of(top)
        losses = [score_loss(top, score) for score in scores.values()]
        moves.append(
            Judged(
                seat=seat,
                ask=step.ask,
                action=step.text,
                move=_("capture {crystal}", crystal=step.action.crystal),
                knowledge=Knowledge(
                    text=_(
                        "At {mine} points to {theirs}, best play gives {result}.",
                        mine=points[seat],
                        theirs=points[other(seat)],
                        result=words(value, top),
                    ),
                    value=value,
                ),
                best=tuple(
                    _("capture {crystal}", crystal=c)
                    for c, score in sorted(scores.items())
                    if score == top
                ),
                loss=score_loss(top, played),
                typical_loss=sum(losses) / len(losses),
                before=top,
                after=played,
                exact=True,
            )
        )
    return Judgement(tuple(moves), OUTCOME, NO_LUCK)
