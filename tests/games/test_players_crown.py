"""Capture the Crown's player: 4 attacks always suffice, and hints give the least away.

The attacker is checked exhaustively: every Crown cell, against every hint policy (each game
branches on both hints at every miss), through the engine and the player's own view.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

import pytest

from games.base import Ask
from games.crown import (
    CELLS,
    GAME,
    Attack,
    Cell,
    CrownState,
    HintAction,
    PlaceCrown,
    consistent_cells,
)
from games.players import player_for
from games.players.crown import ALL, attacks_needed

HARD = player_for("crown", "hard")
DECOY: Cell = (1, 1)
"""The attacker's own Crown; the defender attacks only other cells, so never wins first."""


def started(crown: Cell) -> CrownState:
    """A game where seat 0 attacks a Crown on ``crown`` and seat 1 cannot hit seat 0's."""
    state = GAME.new({}, 0)
    state, _ = GAME.apply(state, 0, PlaceCrown(DECOY))
    state, _ = GAME.apply(state, 1, PlaceCrown(crown))
    return state


def attacks_until_capture(state: CrownState, seed: int) -> Iterator[int]:
    """How many attacks the hard attacker (seat 0) makes, for every way seat 1 may hint."""
    while GAME.outcome(state) is None:
        (seat,) = GAME.to_act(state)
        ask = GAME.ask(state, seat)
        if ask is Ask.HINT and seat == 1:
            for hint in GAME.legal_actions(state, 1):
                after, _ = GAME.apply(state, 1, hint)
                yield from attacks_until_capture(after, seed)
            return
        if ask is Ask.HINT:
            action = GAME.legal_actions(state, 0)[0]
        elif seat == 0:
            view, legal = GAME.view(state, 0), GAME.legal_actions(state, 0)
            action = HARD.choose(view, ask, legal, random.Random(seed))
        else:
            done = {record.cell for record in state.attacks[1]}
            action = Attack(next(c for c in CELLS if c != DECOY and c not in done))
        state, _ = GAME.apply(state, seat, action)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner == 0
    yield len(state.attacks[0])


def test_four_attacks_find_the_crown_against_any_defender_and_no_fewer_do() -> None:
    """docs/rules.md *computed*: the game value from the start is exactly 4."""
    assert attacks_needed(ALL, 0) == 4


@pytest.mark.parametrize("seed", range(3))
def test_the_hard_attacker_finds_every_crown_within_four_attacks_whatever_the_hints(
    seed: int,
) -> None:
    lengths = {cell: set(attacks_until_capture(started(cell), seed)) for cell in CELLS}
    assert max(max(found) for found in lengths.values()) == 4
    assert all(found <= {1, 2, 3, 4} for found in lengths.values())


def hint_decisions() -> Iterator[tuple[CrownState, CrownState]]:
    """Every position where seat 1 hints against the hard attacker, with each way of getting
    there (both hints at every earlier miss), paired with the state after the hard hint."""

    def explore(state: CrownState) -> Iterator[tuple[CrownState, CrownState]]:
        while GAME.outcome(state) is None:
            (seat,) = GAME.to_act(state)
            ask = GAME.ask(state, seat)
            if ask is Ask.HINT and seat == 1:
                view, legal = GAME.view(state, 1), GAME.legal_actions(state, 1)
                chosen = HARD.choose(view, ask, legal, random.Random(0))
                yield state, GAME.apply(state, 1, chosen)[0]
                for hint in legal:
                    yield from explore(GAME.apply(state, 1, hint)[0])
                return
            if ask is Ask.HINT:
                action = GAME.legal_actions(state, 0)[0]
            elif seat == 0:
                legal = GAME.legal_actions(state, 0)
                action = HARD.choose(GAME.view(state, 0), ask, legal, random.Random(0))
            else:
                done = {record.cell for record in state.attacks[1]}
                action = Attack(next(c for c in CELLS if c != DECOY and c not in done))
            state, _ = GAME.apply(state, seat, action)

    for cell in CELLS:
        yield from explore(started(cell))


def needed_after(state: CrownState, hint: HintAction) -> tuple[int, int]:
    """The attacks a minimax attacker still needs after ``hint``, and the cells left to it."""
    records = state.attacks[0]
    left = consistent_cells((*records[:-1], replace(records[-1], hint=hint)))
    mask = sum(1 << CELLS.index(cell) for cell in left)
    attacked = sum(1 << CELLS.index(record.cell) for record in records)
    return attacks_needed(mask, attacked), len(left)


def test_the_hard_defender_always_leaves_the_attacker_the_most_to_do() -> None:
    """Of the two true hints, the hard defender gives one after which a minimax attacker needs
    at least as many attacks; so after the first miss it still needs 3 more, 4 in all."""
    decisions = 0
    for before, after in hint_decisions():
        decisions += 1
        given = after.attacks[0][-1].hint
        assert given is not None
        hints = [hint for hint in GAME.legal_actions(before, 1) if isinstance(hint, HintAction)]
        options = [needed_after(before, hint)[0] for hint in hints]
        assert needed_after(before, given)[0] == max(options)
        if len(before.attacks[0]) == 1:
            assert needed_after(before, given)[0] == 3
    assert decisions > 9


def attacks_against(crown: Cell, defender: str, seed: int) -> int:
    """Attacks the hard attacker (seat 0) needs against a Crown on ``crown`` whose hints come
    from ``defender``: ``hard``, ``easy`` (at random) or ``auto`` (the engine's automatic hint)."""
    rng = random.Random(seed)
    state = started(crown)
    while GAME.outcome(state) is None:
        (seat,) = GAME.to_act(state)
        ask, legal = GAME.ask(state, seat), GAME.legal_actions(state, seat)
        if seat == 0:
            action = (HARD if ask is Ask.ACTION else player_for("crown", "easy")).choose(
                GAME.view(state, 0), ask, legal, rng
            )
        elif ask is Ask.HINT:
            action = (
                GAME.auto_hint(state)
                if defender == "auto"
                else player_for("crown", defender).choose(GAME.view(state, 1), ask, legal, rng)
            )
        else:
            done = {record.cell for record in state.attacks[1]}
            action = Attack(next(c for c in CELLS if c != DECOY and c not in done))
        state, _ = GAME.apply(state, seat, action)
    return len(state.attacks[0])


def test_the_hard_defender_holds_out_at_least_as_long_as_the_automatic_hint_and_chance() -> None:
    totals = {
        defender: sum(attacks_against(cell, defender, seed) for cell in CELLS for seed in range(20))
        for defender in ("hard", "auto", "easy")
    }
    assert totals["hard"] >= totals["auto"]
    assert totals["hard"] > totals["easy"]
