"""Capture the Crown, played by search: attacks by minimax, hints that give least away.

Everything the attacker knows is the set of cells still consistent with its misses and
hints. ``attacks_needed`` is the exact game value over those sets: the fewest attacks that
find the Crown whatever cell it is on and whatever true hints the defender picks. From the
start it is 4 (docs/rules.md *computed*), and the attacker always plays a move that keeps it.

The defender keeps that value as high as it can, then, knowing where its Crown is, makes a
minimax attacker's expected search as long as it can, then leaves the most cells open, then
prefers the row hint (the automatic hint's tie rule). Crowns are placed uniformly at random:
a favourite cell would be a pattern for an opponent to learn.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import cache
from typing import Final

from games.base import Ask, other
from games.crown import CELLS, Attack, CrownAction, CrownView, HintAction, consistent_cells
from games.players.base import random_action

Mask = int
"""A set of cells as bits: bit ``i`` is ``CELLS[i]``."""

ALL: Final = (1 << len(CELLS)) - 1
_INDEX: Final = {cell: i for i, cell in enumerate(CELLS)}


def _mask(cells: frozenset[tuple[int, int]] | set[tuple[int, int]]) -> Mask:
    return sum(1 << _INDEX[cell] for cell in cells)


def _bits(mask: Mask) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _hint_masks(attacked: int) -> tuple[Mask, ...]:
    """The cells each of the six hints after a miss on ``CELLS[attacked]`` leaves."""
    at = CELLS[attacked]
    return tuple(
        _mask({cell for cell in CELLS if (cell[axis] > at[axis]) - (cell[axis] < at[axis]) == side})
        for axis in (0, 1)
        for side in (-1, 0, 1)
    )


_HINTS: Final = tuple(_hint_masks(i) for i in range(len(CELLS)))


def _true_hint_masks(crown: int, attacked: int) -> list[Mask]:
    """The cells each of the two hints a Crown on ``crown`` allows after ``attacked`` leaves."""
    return [hint for hint in _HINTS[attacked] if hint >> crown & 1]


@cache
def attacks_needed(candidates: Mask, attacked: Mask) -> int:
    """The fewest attacks that surely find a Crown known to be in ``candidates``.

    ``attacked`` are the cells already attacked (they may not be attacked again). The
    defender is assumed to choose the Crown and every hint adversarially.
    """
    if candidates & (candidates - 1) == 0:
        return 1 if candidates else 0
    best = len(CELLS) + 1
    for cell in _bits(ALL & ~attacked):
        best = min(best, _attack_cost(candidates, attacked, cell, best))
        if best == 2:  # two candidates or more can never take fewer
            break
    return best


def _attack_cost(candidates: Mask, attacked: Mask, cell: int, bound: int) -> int:
    """The worst-case attacks needed when the next one is on ``cell``.

    Stops counting once the cost reaches ``bound``: the caller only needs to know it is
    not below it.
    """
    missed = candidates & ~(1 << cell)
    cost = 1 if missed != candidates else 0
    after = attacked | 1 << cell
    for hint in _HINTS[cell]:
        left = missed & hint
        if left:
            cost = max(cost, 1 + attacks_needed(left, after))
            if cost >= bound:
                break
    return cost


@cache
def best_attacks(candidates: Mask, attacked: Mask) -> tuple[int, ...]:
    """The attacks a minimax attacker picks among: optimal, and a possible hit if any is."""
    least = attacks_needed(candidates, attacked)
    optimal = [
        cell
        for cell in _bits(ALL & ~attacked)
        if _attack_cost(candidates, attacked, cell, least + 1) == least
    ]
    hits = [cell for cell in optimal if candidates >> cell & 1]
    return tuple(hits or optimal)


@cache
def expected_attacks(candidates: Mask, attacked: Mask, crown: int) -> float:
    """The attacks a minimax attacker (uniform among ``best_attacks``) expects to need.

    The defender knows its Crown is on ``crown`` and answers every miss with the hint that
    makes the search longest.
    """
    choices = best_attacks(candidates, attacked)
    total = 0.0
    for cell in choices:
        if cell == crown:
            total += 1
            continue
        after = attacked | 1 << cell
        total += 1 + max(
            expected_attacks(candidates & ~(1 << cell) & hint, after, crown)
            for hint in _true_hint_masks(crown, cell)
        )
    return total / len(choices)


def _attack(view: CrownView, legal: Sequence[CrownAction], rng: random.Random) -> CrownAction:
    assert view.seat is not None
    records = view.attacks[view.seat]
    candidates = _mask(consistent_cells(records))
    attacked = _mask({record.cell for record in records})
    picks = {CELLS[cell] for cell in best_attacks(candidates, attacked)}
    options = [a for a in legal if isinstance(a, Attack) and a.cell in picks]
    return rng.choice(options) if options else random_action(legal, rng)


def _hint(view: CrownView, legal: Sequence[CrownAction], rng: random.Random) -> CrownAction:
    assert view.seat is not None
    crown = view.crowns[view.seat]
    records = view.attacks[other(view.seat)]
    hints = [a for a in legal if isinstance(a, HintAction)]
    if crown is None or not records or not hints:
        return random_action(legal, rng)
    attacked = _mask({record.cell for record in records})

    def strength(hint: HintAction) -> tuple[int, float, int, bool]:
        left = consistent_cells((*records[:-1], replace(records[-1], hint=hint)))
        candidates = _mask(left)
        return (
            attacks_needed(candidates, attacked),
            expected_attacks(candidates, attacked, _INDEX[crown]),
            len(left),
            hint.axis == "row",
        )

    return max(hints, key=strength)


def strategy(
    view: CrownView, ask: Ask, legal: Sequence[CrownAction], rng: random.Random
) -> CrownAction:
    """The best action for the seat whose ``view`` this is (see the module docstring)."""
    if ask is Ask.SECRET:
        return random_action(legal, rng)
    if ask is Ask.HINT:
        return _hint(view, legal, rng)
    return _attack(view, legal, rng)
