"""Number Claim reviewed exactly, open or hidden.

Open grid: taking the largest number left is a minimax claim (``games.players.claim``), so
best play from any position is both players doing so, and the final margin it leaves is the
position's value. A claim loses one step for a win turned into a draw (or a draw into a
loss), two for a win into a loss, and a tenth per point of margin given away within the same
result (at most 0.4). Nothing is hidden: no luck.

Hidden numbers: no cell can be told from another, so every claim is as good as any other and
no claim shows skill. The value is the chance to win (a draw counting half), exact: the
numbers not yet revealed fall to the two players as a uniformly random split, counted by
their sums. Luck is where the claimed number stands among those still hidden.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from games.base import Seat, other
from games.claim import State
from games.review.crystal import SLOWER_CAP, value_rank, value_words
from games.review.judging import CHANCE, OUTCOME, Judged, Judgement, luck_among
from games.review.model import Knowledge, Value
from games.review.phrasing import N_, _, n_, percent
from games.review.replay import Replay

MARGIN = 0.1
"""The loss per point of margin given away without changing the result."""
NO_LUCK = N_("the numbers are all in view: every result follows from the moves")


def best_margin(left: Sequence[int]) -> int:
    """The final margin (own total minus the other's) that the player to move adds with best
    play from the numbers ``left``: both take the largest left, in turn."""
    ordered = sorted(left, reverse=True)
    return sum(ordered[0::2]) - sum(ordered[1::2])


def value_of(margin: int) -> Value:
    return Value.WIN if margin > 0 else Value.LOSS if margin < 0 else Value.DRAW


def margin_loss(best: int, played: int) -> float:
    """The loss of a claim leaving final margin ``played`` where the best leaves ``best``."""
    drop = value_rank(value_of(best)) - value_rank(value_of(played))
    return float(drop) if drop else min(SLOWER_CAP, MARGIN * (best - played))


def _totals(state: State) -> tuple[int, int]:
    return (
        sum(state.grid[i] for i in state.claims[0::2]),
        sum(state.grid[i] for i in state.claims[1::2]),
    )


def _left(state: State) -> list[int]:
    taken = set(state.claims)
    return [v for i, v in enumerate(state.grid) if i not in taken]


def _where(state: State, index: int) -> str:
    row, col = divmod(index, state.options.size)
    return f"({row + 1},{col + 1})"


def _claimed(step_state: State, after: State) -> int:
    return after.claims[len(step_state.claims)]


def judge(replay: Replay) -> Judgement:
    first: State = replay.steps[0].before if replay.steps else replay.final
    if first.options.hidden:
        return Judgement(tuple(_judge_hidden(replay)), CHANCE)
    return Judgement(tuple(_judge_open(replay)), OUTCOME, NO_LUCK)


def _judge_open(replay: Replay) -> list[Judged]:
    moves = []
    for step in replay.steps:
        state: State = step.before
        seat = step.seat
        totals = _totals(state)
        now = totals[seat] - totals[other(seat)]
        left = _left(state)
        finals = {v: now + v - best_margin([u for u in left if u != v]) for v in left}
        top = max(finals.values())
        played = state.grid[_claimed(state, step.after)]
        value = value_of(top)
        losses = [margin_loss(top, margin) for margin in finals.values()]
        margin_words = _("by {margin}", margin=abs(top)) if top else _("level")
        moves.append(
            Judged(
                seat=seat,
                ask=step.ask,
                action=step.text,
                move=_("claim {number}", number=played),
                knowledge=Knowledge(
                    text=_(
                        "At {mine} to {theirs}, best play gives {result} ({margin}).",
                        mine=totals[seat],
                        theirs=totals[other(seat)],
                        result=value_words(value),
                        margin=margin_words,
                    ),
                    value=value,
                ),
                best=tuple(
                    _("claim {number}", number=v)
                    for v in sorted(finals, reverse=True)
                    if finals[v] == top
                ),
                loss=margin_loss(top, finals[played]),
                typical_loss=sum(losses) / len(losses),
                before=top,
                after=finals[played],
                exact=True,
            )
        )
    return moves


_BITS = 24
"""Room for one count of subsets: at most C(16, 8) = 12,870 with 16 numbers."""


@cache
def chances(margin: int, hidden: tuple[int, ...]) -> tuple[float, float, float]:
    """The chances (win, draw, loss) of the player to move, ``margin`` ahead, when the
    ``hidden`` numbers (sorted) fall to it and the other player as a random split; the
    player to move gets the larger half when they are odd in number."""
    takes = (len(hidden) + 1) // 2
    total = sum(hidden)
    # ways[k] counts the subsets of k hidden numbers by their sum s, as the digit s (base
    # 2**_BITS) of one integer: adding a number to every subset is a shift.
    ways = [1] + [0] * takes
    for number in hidden:
        for k in range(takes, 0, -1):
            ways[k] += ways[k - 1] << (number * _BITS)
    win = draw = loss = 0
    mask = (1 << _BITS) - 1
    counts = ways[takes]
    for s in range(total + 1):
        count = counts >> (s * _BITS) & mask
        final = margin + 2 * s - total
        if final > 0:
            win += count
        elif final == 0:
            draw += count
        else:
            loss += count
    splits = win + draw + loss
    return (win / splits, draw / splits, loss / splits)


def expected_score(odds: tuple[float, float, float]) -> float:
    """A win counts 1, a draw one half."""
    return odds[0] + odds[1] / 2


def _after_claim(margin: int, hidden: tuple[int, ...], number: int) -> tuple[float, float, float]:
    """The chances of the player to move, ``margin`` ahead, once it has claimed ``number``."""
    rest = list(hidden)
    rest.remove(number)
    # The other player moves next: its chances, seen from this side.
    theirs = chances(-(margin + number), tuple(rest))
    return (theirs[2], theirs[1], theirs[0])


def _judge_hidden(replay: Replay) -> list[Judged]:
    moves = []
    for step in replay.steps:
        state: State = step.before
        seat: Seat = step.seat
        totals = _totals(state)
        margin = totals[seat] - totals[other(seat)]
        hidden = tuple(sorted(_left(state)))
        index = _claimed(state, step.after)
        value = state.grid[index]
        odds = chances(margin, hidden)
        scores = {number: expected_score(_after_claim(margin, hidden, number)) for number in hidden}
        cells = [i for i in range(len(state.grid)) if i not in set(state.claims)]
        moves.append(
            Judged(
                seat=seat,
                ask=step.ask,
                action=step.text,
                move=_("claim {cell} ({number})", cell=_where(state, index), number=value),
                knowledge=Knowledge(
                    text=_odds_words(totals[seat], totals[other(seat)], len(hidden), odds),
                    chances=odds,
                ),
                best=tuple(_("claim {cell}", cell=_where(state, i)) for i in cells),
                loss=0.0,
                typical_loss=0.0,
                before=expected_score(odds),
                after=scores[value],
                exact=True,
                luck=luck_among(list(scores.values()), scores[value], higher_is_better=True),
            )
        )
    return moves


def _odds_words(mine: int, theirs: int, hidden: int, odds: tuple[float, float, float]) -> str:
    """The position before a claim with numbers hidden: the totals and the chance to win."""
    if odds[1]:
        return n_(
            "At {mine} to {theirs} with {n} number hidden, the chance to win was {win} "
            "(draw {draw}).",
            "At {mine} to {theirs} with {n} numbers hidden, the chance to win was {win} "
            "(draw {draw}).",
            hidden,
            mine=mine,
            theirs=theirs,
            win=percent(odds[0]),
            draw=percent(odds[1]),
        )
    return n_(
        "At {mine} to {theirs} with {n} number hidden, the chance to win was {win}.",
        "At {mine} to {theirs} with {n} numbers hidden, the chance to win was {win}.",
        hidden,
        mine=mine,
        theirs=theirs,
        win=percent(odds[0]),
    )
