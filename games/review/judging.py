"""Turning each game's judgement of its moves into marks, skill and luck scores.

A game's review module says, per move, what the player knew, the best moves, and the loss:
how much worse the move was than the best, in the game's unit. Everything from there is the
same for every game, and is here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from games.base import SEATS, Ask, Seat
from games.review.model import Knowledge, Mark, MoveReview, PlayerSummary, Review
from games.review.phrasing import _
from games.review.replay import Replay

BEST_LISTED = 8
"""Best moves kept per move; ``MoveReview.best_count`` has how many there were."""
DIGITS = 4
"""Decimal places kept of every value, so that a stored review stays small and stable."""
SCORE_TOP = 99


@dataclass(frozen=True)
class Scale:
    """What a game's losses count, and what loss earns each mark.

    A move whose loss is below ``inaccuracy`` is marked best. Its accuracy, from which skill
    is made, is ``half / (half + loss)``: 1 for a best move, one half for a loss of ``half``.
    """

    unit: str
    inaccuracy: float
    mistake: float
    blunder: float
    half: float = 1.0

    def mark(self, loss: float) -> Mark:
        if loss >= self.blunder:
            return Mark.BLUNDER
        if loss >= self.mistake:
            return Mark.MISTAKE
        if loss >= self.inaccuracy:
            return Mark.INACCURACY
        return Mark.BEST

    def accuracy(self, loss: float) -> float:
        return self.half / (self.half + loss) if loss >= self.inaccuracy else 1.0


MOVES = Scale("moves", inaccuracy=0.05, mistake=0.4, blunder=1.0)
"""Crown, Safe and Flag: losses in moves (expected moves still needed, or race lead)."""
OUTCOME = Scale("outcome", inaccuracy=0.01, mistake=0.5, blunder=1.5)
"""Crystal and open Claim: 1 per step from win to draw to loss, fractions for a worse
margin or a slower win."""
CHANCE = Scale("chance", inaccuracy=0.02, mistake=0.1, blunder=0.25)
"""Hidden Claim: the chance of winning, a draw counting half."""


@dataclass(frozen=True)
class Judged:
    """One move as a game's review module judged it: a ``MoveReview`` without its number
    and mark, and with its best moves in full."""

    seat: Seat
    ask: Ask
    action: str
    move: str
    knowledge: Knowledge
    best: tuple[str, ...]
    loss: float
    typical_loss: float
    before: float
    after: float
    exact: bool
    luck: float | None = None


@dataclass(frozen=True)
class Judgement:
    """A game's review module's answer: its judged moves (in match order), the scale of their
    losses, and why the game has no luck score, if it has none."""

    moves: tuple[Judged, ...]
    scale: Scale
    no_luck: str | None = None


def luck_among(
    outcomes: Sequence[float],
    actual: float,
    *,
    higher_is_better: bool,
    weights: Sequence[float] | None = None,
) -> float | None:
    """Where ``actual`` stands among the ``outcomes`` the secrets still possible would give
    (equally likely, or as likely as ``weights``): the share of them worse than it, with ties
    counted half. 0.5 is average luck, 1 the best any secret could give; ``None`` when every
    outcome is alike (nothing was left to chance).
    """
    if max(outcomes) - min(outcomes) < 1e-9:
        return None
    worse = equal = 0.0
    for outcome, weight in zip(outcomes, weights or [1.0] * len(outcomes), strict=True):
        if abs(outcome - actual) < 1e-9:
            equal += weight
        elif (outcome < actual) == higher_is_better:
            worse += weight
    return (worse + equal / 2) / (sum(weights) if weights else len(outcomes))


def build(replay: Replay, judgement: Judgement) -> Review:
    """The review of ``replay`` from the game's ``judgement`` of its moves."""
    judged, scale, no_luck = judgement.moves, judgement.scale, judgement.no_luck
    moves = tuple(
        MoveReview(
            number=number,
            seat=move.seat,
            ask=move.ask,
            action=move.action,
            move=move.move,
            knowledge=move.knowledge,
            best=move.best[:BEST_LISTED],
            best_count=len(move.best),
            mark=scale.mark(round(move.loss, DIGITS)),
            loss=round(move.loss, DIGITS),
            typical_loss=round(move.typical_loss, DIGITS),
            before=round(move.before, DIGITS),
            after=round(move.after, DIGITS),
            exact=move.exact,
            luck=None if move.luck is None else round(move.luck, DIGITS),
        )
        for number, move in enumerate(judged, 1)
    )
    first, second = (_summary(seat, moves, scale, no_luck) for seat in SEATS)
    return Review(
        game=replay.game.name,
        options=dict(replay.options),
        seed=replay.seed,
        outcome=replay.outcome,
        unit=scale.unit,
        exact=all(move.exact for move in moves),
        players=(first, second),
        moves=moves,
    )


def _summary(
    seat: Seat, moves: Sequence[MoveReview], scale: Scale, no_luck: str | None
) -> PlayerSummary:
    own = [move for move in moves if move.seat == seat]
    # A move where nothing could be lost shows no skill: it is left out of the score.
    chosen = [move for move in own if move.typical_loss >= scale.inaccuracy]
    skill = skill_note = None
    if chosen:
        accuracy = sum(scale.accuracy(move.loss) for move in chosen) / len(chosen)
        skill = round(SCORE_TOP * accuracy)
    else:
        skill_note = _("no move where the choice mattered")
    lucky = [move.luck for move in own if move.luck is not None]
    luck = luck_note = None
    if no_luck is not None:
        luck_note = _(no_luck)
    elif lucky:
        luck = round(SCORE_TOP * sum(lucky) / len(lucky))
    else:
        luck_note = _("nothing hidden was at stake in this player's moves")
    best = max(chosen, key=lambda move: move.typical_loss - move.loss, default=None)
    worst = max(own, key=lambda move: move.loss, default=None)
    return PlayerSummary(
        seat=seat,
        moves=len(own),
        skill=skill,
        skill_note=skill_note,
        luck=luck,
        luck_note=luck_note,
        best_move=None if best is None else best.number,
        worst_move=None if worst is None or worst.mark is Mark.BEST else worst.number,
        marks=tuple((mark, sum(1 for move in own if move.mark is mark)) for mark in Mark),
        exact=all(move.exact for move in own),
    )
