"""Flag Chase's player: it wins races, sets traps where the opponent walks, and blocks.

The win rates are measured over 1,000 seeded matches each, seats alternating, against the
random ``easy`` player and against a greedy walker that heads straight for the flag.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bench.players import GreedyWalker
from games.base import Seat
from games.flag import FLAGS, GAME, Cell, Move, State, Trap
from games.players import AnyPlayer, decide, player_for

HARD = player_for("flag", "hard")
MATCHES = 1000


def won(opponent: AnyPlayer, matches: int) -> int:
    """Matches the hard player wins against ``opponent``, as seat 0 in every other one."""
    wins = 0
    for seed in range(matches):
        hard_seat: Seat = seed % 2
        players = (HARD, opponent) if hard_seat == 0 else (opponent, HARD)
        rng = random.Random(seed)
        state = GAME.new({}, seed)
        while (outcome := GAME.outcome(state)) is None:
            (seat,) = GAME.to_act(state)
            state, _ = GAME.apply(state, seat, decide(GAME, state, seat, players[seat], rng))
        wins += outcome.winner == hard_seat
    return wins


@pytest.mark.slow
def test_hard_beats_easy_in_at_least_95_percent_of_matches() -> None:
    assert won(player_for("flag", "easy"), MATCHES) >= 0.95 * MATCHES


@pytest.mark.slow
def test_hard_beats_a_greedy_walker_in_at_least_70_percent_of_matches() -> None:
    assert won(GreedyWalker(), MATCHES) >= 0.70 * MATCHES


def at(
    agents: tuple[Cell, Cell],
    turn: Seat,
    traps: tuple[tuple[Cell, ...], tuple[Cell, ...]] = ((), ()),
) -> State:
    """A position with the agents on ``agents``, ``traps`` set and ``turn`` to act."""
    return replace(GAME.new({}, 0), agents=agents, turn=turn, traps=traps)


def choices(state: State, seat: Seat) -> set[object]:
    return {decide(GAME, state, seat, HARD, random.Random(s)) for s in range(10)}


def test_it_captures_the_flag_when_it_can() -> None:
    assert choices(at(((4, 4), (2, 2)), 0), 0) == {Move(5, 5)}
    assert choices(at(((4, 4), (2, 1)), 1), 1) == {Move(1, 1)}


def test_behind_in_the_race_it_sets_a_trap_on_the_opponents_only_path() -> None:
    """Seat 0 has stepped to (2,2): three moves from (5,5) and moving first, it wins a plain
    race, and its only shortest path is the diagonal. Seat 1 traps the diagonal ahead of it."""
    state, _ = GAME.apply(GAME.new({}, 0), 0, Move(2, 2))
    assert choices(state, 1) <= {Trap(3, 3), Trap(4, 4)}


def test_with_the_opponent_next_to_its_flag_it_stands_on_the_flag() -> None:
    """The opponent on (2,2) would capture next: the only defence is to block (1,1)."""
    assert choices(at(((2, 1), (2, 2)), 0), 0) == {Move(1, 1)}


def test_ahead_in_the_race_with_no_trap_to_fear_it_walks_straight() -> None:
    """The opponent has set no trap and is far away: the player heads for the flag."""
    state = at(((3, 3), (5, 1)), 0)
    assert choices(state, 0) == {Move(4, 4)}


def test_it_steps_around_its_own_trap() -> None:
    """Its own trap on (5,4) closes one of its two shortest paths; it takes the other."""
    state = at(((4, 3), (5, 1)), 0, traps=(((5, 4),), ()))
    assert choices(state, 0) == {Move(4, 4)}


def test_its_traps_are_never_placed_where_the_rules_forbid() -> None:
    """Traps from the player are always legal ones (no flag, no agent, not twice)."""
    state = GAME.new({}, 3)
    rng = random.Random(3)
    while GAME.outcome(state) is None:
        (seat,) = GAME.to_act(state)
        action = decide(GAME, state, seat, HARD, rng)
        if isinstance(action, Trap):
            cell = (action.row, action.col)
            assert cell not in FLAGS and cell not in state.agents
            assert cell not in state.traps[seat]
        state, _ = GAME.apply(state, seat, action)
