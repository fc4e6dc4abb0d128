"""Flag Chase: the cells a review says may hide the other player's traps are exactly those
some placement of those traps, agreeing with everything public, puts a trap on."""

from __future__ import annotations

from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games.base import Event, GameError, other
from games.flag import FLAGS, SIZE, State
from games.grid import cell_text, cells
from games.review import review
from tests.games.review_helpers import match_log

GAME = games.get("flag")


def public(events: list[Event]) -> list[tuple[str, dict]]:  # type: ignore[type-arg]
    return [(event.kind, dict(event.data)) for event in events if event.public]


def hidden_cells(log: list, upto: int, seat: int) -> set[tuple[int, int]]:  # type: ignore[type-arg]
    """Every cell holding a trap of ``seat``'s opponent before action ``upto``, over every way
    of placing those traps that makes the same public record, tried one by one."""
    owner = other(seat)
    placed = [i for i, (s, _, text) in enumerate(log[:upto]) if s == owner and "TRAP" in text]
    state = GAME.new({}, 0)
    record = []
    for s, _, text in log[:upto]:
        state, events = GAME.apply(state, s, GAME.parse(state, s, text))
        record.append(public(events))
    found: set[tuple[int, int]] = set()
    for choice in product(cells(SIZE), repeat=len(placed)):
        moves = list(log[:upto])
        for index, cell in zip(placed, choice, strict=True):
            moves[index] = (owner, "action", f"TRAP {cell[0]} {cell[1]}")
        trial: State = GAME.new({}, 0)
        try:
            for number, (s, _, text) in enumerate(moves):
                trial, events = GAME.apply(trial, s, GAME.parse(trial, s, text))
                if public(events) != record[number]:
                    break
            else:
                found.update(trial.traps[owner])
        except GameError:
            continue
    return found


@settings(max_examples=12, deadline=None)
@given(st.integers(min_value=0, max_value=2**20))
def test_flag_trap_cells_agree_with_brute_force_over_every_placement(seed: int) -> None:
    log = match_log("flag", {}, seed, stop=24)
    state = GAME.new({}, seed)
    for s, _, text in log:
        state, _ = GAME.apply(state, s, GAME.parse(state, s, text))
    ended = None
    if state.result is None:
        from games.base import Outcome, Reason

        ended = Outcome(0, Reason.RESIGN)
    done = review("flag", {}, seed, log, outcome=ended)
    for upto, move in enumerate(done.moves):
        expected = hidden_cells(log, upto, move.seat)
        assert move.knowledge.possible == len(expected), (upto, sorted(expected))
        if len(expected) <= 10:
            assert set(move.knowledge.listed) == {cell_text(c) for c in expected}
        assert not expected & set(FLAGS)
