"""Capture the Crown reviewed exactly, from the solver in ``games.players.crown``.

An attacker knows the cells its misses and hints leave (``consistent_cells``). A position's
value is the attacks still needed, this one included: at most (``attacks_needed``, the
minimax over Crowns and hints) and on average over the Crowns still possible, the solver
attacking from there and the defender answering each miss with the hint that makes the
search longest (``expected_attacks``). An attack's loss is how many more attacks it needs on
average than the best of the solver's own attacks (``best_attacks``). Its luck is where the
result (hit, or the cells the hint left) stands among the results every possible Crown would
have given.

A defender's hint is judged by what it leaves the attacker: the hint the solver's defender
gives keeps the most attacks needed (at most, then on average for the defender's own Crown).
Nothing hidden decides a hint's worth to the defender, who knows its Crown: no luck there.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache, reduce

from games.base import Ask, Seat, other
from games.crown import (
    CELLS,
    Attack,
    AttackRecord,
    Cell,
    CrownState,
    HintAction,
    cell_text,
    consistent_cells,
    hint_words,
    true_hints,
)
from games.players.crown import attacks_needed, best_attacks, expected_attacks
from games.review.judging import MOVES, Judged, Judgement, luck_among
from games.review.model import Knowledge
from games.review.phrasing import N_, Phrase, _, call, decimal, n_
from games.review.replay import Replay, Step

INDEX = {cell: i for i, cell in enumerate(CELLS)}


def mask(cells: Iterable[Cell]) -> int:
    """Cells as the solver's bits: bit ``i`` is ``CELLS[i]``."""
    return sum(1 << INDEX[cell] for cell in cells)


def cells_of(bits: int) -> list[Cell]:
    return [cell for i, cell in enumerate(CELLS) if bits >> i & 1]


@cache
def hint_masks(crown: int, attacked: int) -> tuple[int, ...]:
    """The cells each true hint leaves when a Crown on ``CELLS[crown]`` is missed at
    ``CELLS[attacked]``."""
    return tuple(
        mask(cell for cell in CELLS if hint.holds_for(cell))
        for hint in true_hints(CELLS[crown], CELLS[attacked])
    )


@cache
def expected(candidates: int, attacked: int) -> float:
    """The attacks the solver needs on average over the Crowns in ``candidates``."""
    crowns = cells_of(candidates)
    return sum(expected_attacks(candidates, attacked, INDEX[c]) for c in crowns) / len(crowns)


@cache
def _left_after(candidates: int, attacked: int, cell: int, crown: int) -> int:
    """The cells left after a miss on ``cell`` with the Crown on ``crown``, the defender
    giving the hint that makes the solver's search longest."""
    missed = candidates & ~(1 << cell)
    after = attacked | 1 << cell
    return max(
        (missed & hint for hint in hint_masks(crown, cell)),
        key=lambda left: expected_attacks(left, after, crown),
    )


@cache
def attack_value(candidates: int, attacked: int, cell: int) -> float:
    """The attacks needed on average, this one included, when the next one is on ``cell``."""
    after = attacked | 1 << cell
    total = 0.0
    for crown in cells_of(candidates):
        index = INDEX[crown]
        if index != cell:
            left = _left_after(candidates, attacked, cell, index)
            total += expected_attacks(left, after, index)
        total += 1
    return total / candidates.bit_count()


def judge(replay: Replay) -> Judgement:
    moves = []
    for index, step in enumerate(replay.steps):
        if step.ask is Ask.ACTION:
            moves.append(_attack(replay, index, step))
        elif step.ask is Ask.HINT:
            moves.append(_hint(step))
    return Judgement(tuple(moves), MOVES)


def _attack(replay: Replay, index: int, step: Step) -> Judged:
    state: CrownState = step.before
    seat = step.seat
    records = state.attacks[seat]
    possible = consistent_cells(records)
    candidates = mask(possible)
    attacked = mask(record.cell for record in records)
    assert isinstance(step.action, Attack)
    cell = INDEX[step.action.cell]
    legal = [i for i in range(len(CELLS)) if not attacked >> i & 1]
    values = {i: attack_value(candidates, attacked, i) for i in legal}
    best = best_attacks(candidates, attacked)
    top = min(values[i] for i in best)
    losses = {i: 0.0 if i in best else max(0.0, values[i] - top) for i in legal}
    worst = attacks_needed(candidates, attacked)
    average = expected(candidates, attacked)
    return Judged(
        seat=seat,
        ask=step.ask,
        action=step.text,
        move=_("attack {cell}", cell=cell_text(CELLS[cell])),
        knowledge=Knowledge(
            text=n_(
                "{cells}; best play finds it within {n} attack, {average} on average.",
                "{cells}; best play finds it within {n} attacks, {average} on average.",
                worst,
                cells=_cells_words(possible),
                average=decimal(average, 2),
            ),
            possible=len(possible),
            listed=tuple(cell_text(c) for c in sorted(possible)),
            expected=average,
            worst=worst,
        ),
        best=tuple(_("attack {cell}", cell=cell_text(CELLS[i])) for i in best),
        loss=losses[cell],
        typical_loss=sum(losses.values()) / len(losses),
        before=top,
        after=values[cell],
        exact=True,
        luck=_attack_luck(replay, index, candidates, attacked, cell),
    )


def _attack_luck(
    replay: Replay, index: int, candidates: int, attacked: int, cell: int
) -> float | None:
    """Where the attack's result stands among those every possible Crown would give, each
    result counted as the attacks still needed after it on average."""
    step = replay.steps[index]
    record = step.after.attacks[step.seat][-1]
    after = attacked | 1 << cell
    if record.hit:
        actual = 0.0
    else:
        hint = _hint_given(replay, index, record)
        left = candidates & ~(1 << cell)
        if hint is not None:
            left &= mask(c for c in CELLS if hint.holds_for(c))
        actual = expected(left, after)
    outcomes = [
        0.0
        if INDEX[crown] == cell
        else expected(_left_after(candidates, attacked, cell, INDEX[crown]), after)
        for crown in cells_of(candidates)
    ]
    return luck_among(outcomes, actual, higher_is_better=False)


def _hint_given(replay: Replay, index: int, record: AttackRecord) -> HintAction | None:
    """The hint that answered the miss ``record``: given at once (automatic hints), or by the
    defender's next action; ``None`` if the match ended first."""
    if record.hint is not None:
        return record.hint
    answer = replay.steps[index + 1] if index + 1 < len(replay.steps) else None
    if answer is None or answer.ask is not Ask.HINT:
        return None
    assert isinstance(answer.action, HintAction)
    return answer.action


def _hint(step: Step) -> Judged:
    state: CrownState = step.before
    defender = step.seat
    attacker = other(defender)
    crown = state.crowns[defender]
    assert crown is not None and isinstance(step.action, HintAction)
    records = state.attacks[attacker]
    before_hint = consistent_cells(records)
    strengths = hint_strengths(state, defender)
    best, losses = hint_losses(strengths)
    strongest = max(strengths.values())
    top = strongest[1]
    played = strengths[step.action]
    return Judged(
        seat=defender,
        ask=step.ask,
        action=step.text,
        move=_("hint: {hint}", hint=_hint_words(step.action)),
        knowledge=Knowledge(
            text=_(
                "The attacker had {cells}; {hints}.",
                cells=_cells_words(before_hint, left=True),
                hints=reduce(
                    _either,
                    (
                        _(AXIS_HINTS[hint.axis], count=strength[2])
                        for hint, strength in sorted(
                            strengths.items(), key=lambda item: item[0].axis
                        )
                    ),
                ),
            ),
            possible=len(before_hint),
            listed=tuple(cell_text(c) for c in sorted(before_hint)),
            expected=top,
            worst=strongest[0],
        ),
        best=tuple(_("hint: {hint}", hint=_hint_words(hint)) for hint in best),
        loss=losses[step.action],
        typical_loss=sum(losses.values()) / len(losses),
        before=top,
        after=played[1],
        exact=True,
    )


def hint_strengths(state: CrownState, defender: Seat) -> dict[HintAction, tuple[int, float, int]]:
    """Each true hint the defender may give for the attacker's last miss, with what it leaves
    the attacker: attacks needed at most, on average for the defender's Crown, and cells."""
    crown = state.crowns[defender]
    assert crown is not None
    records = state.attacks[other(defender)]
    attacked = mask(record.cell for record in records)
    strengths: dict[HintAction, tuple[int, float, int]] = {}
    for hint in true_hints(crown, records[-1].cell):
        left = consistent_cells((*records[:-1], AttackRecord(records[-1].cell, False, hint)))
        bits = mask(left)
        strengths[hint] = (
            attacks_needed(bits, attacked),
            expected_attacks(bits, attacked, INDEX[crown]),
            len(left),
        )
    return strengths


def hint_losses(
    strengths: dict[HintAction, tuple[int, float, int]],
) -> tuple[list[HintAction], dict[HintAction, float]]:
    """The best hints (most attacks needed at most, then on average) and each hint's loss:
    the attacks on average it gives away against the best."""
    strongest = max(strengths.values())
    best = [hint for hint, strength in strengths.items() if strength[:2] == strongest[:2]]
    top = strongest[1]
    losses = {h: 0.0 if h in best else max(0.0, top - s[1]) for h, s in strengths.items()}
    return best, losses


AXIS_HINTS = {
    "row": N_("the row hint leaves {count}"),
    "column": N_("the column hint leaves {count}"),
}
"""What each hint would leave to the attacker, by the hint's axis."""


def _either(first: str, second: str) -> Phrase:
    return _("{first} or {second}", first=first, second=second)


def _cells_words(cells: Iterable[Cell], *, left: bool = False) -> str:
    listed = sorted(cells)
    shown = ", ".join(cell_text(c) for c in listed)
    if left:
        return n_("{n} cell left: {cells}", "{n} cells left: {cells}", len(listed), cells=shown)
    return n_(
        "{n} cell possible for the Crown: {cells}",
        "{n} cells possible for the Crown: {cells}",
        len(listed),
        cells=shown,
    )


def _hint_words(hint: HintAction) -> Phrase:
    """The hint in words (``row is greater than 2``), kept for wording in any language."""
    return call(hint_words, hint.axis, hint.relation, hint.value)
