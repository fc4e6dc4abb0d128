"""Capture the Crown puzzles: the attack that finds the Crown in the fewest attacks, and the
defender's hint that keeps it hidden longest.

Values are the review's (``games.review.crown``), exact: an attack's value is the attacks
still needed on average, this one included, over the cells where the Crown can still be (the
attacker's own misses and hints decide them, nothing else); the best attacks are the
solver's, and any other loses how many more attacks it needs. A hint's value is the attacks
the attacker still needs on average, for the defender's own Crown. A position is a puzzle
when one attack (or hint) alone is best and every other loses at least ``MARGIN``.
"""

from __future__ import annotations

from games.base import AnyGame, Ask, Seat
from games.crown import CELLS, Attack, CrownState, cell_text, consistent_cells, hint_words
from games.players.crown import best_attacks
from games.puzzles.choosing import Position, Scored
from games.review.crown import attack_value, hint_losses, hint_strengths, mask
from games.review.judging import MOVES
from games.review.phrasing import _, call, decimal, n_

MARGIN = 0.5
"""Every other attack needs at least half an attack more on average (every other hint gives
the attacker half an attack less)."""


def position(game: AnyGame, state: CrownState, seat: Seat, ask: Ask) -> Position | None:
    """Every attack (or hint) ``seat`` may make in ``state``, scored from what it knew."""
    if ask is Ask.HINT:
        return _hints(state, seat)
    if ask is not Ask.ACTION:
        return None
    records = state.attacks[seat]
    candidates = mask(consistent_cells(records))
    attacked = mask(record.cell for record in records)
    legal = [i for i in range(len(CELLS)) if not attacked >> i & 1]
    if len(legal) < 2:
        return None
    values = {i: attack_value(candidates, attacked, i) for i in legal}
    best = best_attacks(candidates, attacked)
    top = min(values[i] for i in best)
    return Position(
        question=_("Your move: which cell finds the Crown in the fewest attacks?"),
        unit=MOVES.unit,
        moves=tuple(
            Scored(
                str(Attack(CELLS[i])),
                values[i],
                0.0 if i in best else max(0.0, values[i] - top),
                cell_text(CELLS[i]),
            )
            for i in legal
        ),
        words=_attack_words,
        margin=MARGIN,
        knowledge=candidates,
    )


def _hints(state: CrownState, defender: Seat) -> Position | None:
    strengths = hint_strengths(state, defender)
    if len(strengths) < 2:
        return None
    _best, losses = hint_losses(strengths)
    return Position(
        question=_("Your hint: which one keeps your Crown hidden longest?"),
        unit=MOVES.unit,
        moves=tuple(
            Scored(str(hint), strength[1], losses[hint], (hint, strength[2]))
            for hint, strength in sorted(strengths.items(), key=lambda item: item[0].axis)
        ),
        words=_hint_words,
        margin=MARGIN,
    )


def _attack_words(move: Scored) -> tuple[str, str]:
    average = _("{average} attacks on average", average=decimal(move.value, 2))
    return _("attack {cell}", cell=move.detail), average


def _hint_words(move: Scored) -> tuple[str, str]:
    hint, left = move.detail
    result = n_(
        "{n} cell left, {average} attacks on average",
        "{n} cells left, {average} attacks on average",
        left,
        average=decimal(move.value, 2),
    )
    return _("hint: {hint}", hint=call(hint_words, hint.axis, hint.relation, hint.value)), result
