"""Number Claim puzzles, on an open grid: the only claim that keeps the best result.

Values are the review's (``games.review.claim``): the final margin each claim leaves with
best play after it, and its loss of one step per result given away, a tenth per point of
margin within the same result. A position is a puzzle when one number alone keeps the best
result. With the numbers hidden every claim is as good as any other, so there is none.
"""

from __future__ import annotations

from games.base import AnyGame, Ask, Seat, other
from games.claim import ClaimNumber, State
from games.puzzles.choosing import Position, Scored
from games.review.claim import best_margin, margin_loss, value_of
from games.review.crystal import value_words
from games.review.judging import OUTCOME
from games.review.model import Value
from games.review.phrasing import _

MARGIN = 1.0
"""Every other claim gives away at least a whole result."""


def position(game: AnyGame, state: State, seat: Seat, ask: Ask) -> Position | None:
    """Every number ``seat`` may claim in ``state``, scored; ``None`` with hidden numbers."""
    if state.options.hidden:
        return None
    legal = [
        action for action in game.legal_actions(state, seat) if isinstance(action, ClaimNumber)
    ]
    if len(legal) < 2:
        return None
    taken = set(state.claims)
    left = [number for index, number in enumerate(state.grid) if index not in taken]
    totals = (
        sum(state.grid[i] for i in state.claims[0::2]),
        sum(state.grid[i] for i in state.claims[1::2]),
    )
    now = totals[seat] - totals[other(seat)]
    finals = {}
    for claim in legal:
        rest = list(left)
        rest.remove(claim.value)
        finals[claim] = now + claim.value - best_margin(rest)
    top = max(finals.values())
    question = (
        _("Your move: which number wins?")
        if value_of(top) is Value.WIN
        else _("Your move: which number saves the draw?")
    )
    return Position(
        question=question,
        unit=OUTCOME.unit,
        moves=tuple(
            Scored(str(claim), float(final), margin_loss(top, final), (claim.value, final))
            for claim, final in finals.items()
        ),
        words=_words,
        margin=MARGIN,
    )


def _words(move: Scored) -> tuple[str, str]:
    """``claim 9`` and ``a win (by 3)``: the claim, the result and the final margin."""
    number, final = move.detail
    by = _("by {margin}", margin=abs(final)) if final else _("level")
    result = _("{result} ({margin})", result=value_words(value_of(final)), margin=by)
    return _("claim {number}", number=number), result
