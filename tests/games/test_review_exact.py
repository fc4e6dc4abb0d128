"""The exact reviews checked against plain exhaustive searches written independently of the
solvers: game values by minimax (Crystal Capture, open Number Claim), Crown cells and
attacks by brute force over every Crown, Safe codes by brute force over every code."""

from __future__ import annotations

import math
from functools import cache
from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games.base import Ask, Outcome, Reason
from games.crown import CELLS, HintAction, consistent_cells, true_hints
from games.players.crown import best_attacks
from games.review import Value, review
from games.review.crown import INDEX, mask
from games.safe import exact_matches
from tests.games.review_helpers import match_log

seeds = st.integers(min_value=0, max_value=2**20)
RESULT = {1: Value.WIN, 0: Value.DRAW, -1: Value.LOSS}
RANK = {Value.WIN: 2, Value.DRAW: 1, Value.LOSS: 0}


# --- Crystal Capture ------------------------------------------------------------------------


@cache
def crystal_result(pool: frozenset[int], points: tuple[int, int], mover: int) -> int:
    """+1, 0 or -1 for ``mover``, by plain minimax over every capture, passes included."""
    moves = [c for c in pool if points[mover] + c <= 15]
    if not moves:
        if any(points[1 - mover] + c <= 15 for c in pool):
            return -crystal_result(pool, points, 1 - mover)
        return 0
    best = -1
    for crystal in moves:
        after = list(points)
        after[mover] += crystal
        if after[mover] == 15:
            return 1
        best = max(best, -crystal_result(pool - {crystal}, (after[0], after[1]), 1 - mover))
    return best


@settings(max_examples=40, deadline=None)
@given(seeds)
def test_crystal_values_and_marks_agree_with_plain_minimax(seed: int) -> None:
    log = match_log("crystal", {}, seed)
    done = review("crystal", {}, seed, log)
    game = games.get("crystal")
    state = game.new({}, seed)
    for move, (seat, _, text) in zip(done.moves, log, strict=True):
        points = state.points
        before = crystal_result(frozenset(state.pool), points, seat)
        assert move.knowledge.value is RESULT[before]
        state, _ = game.apply(state, seat, game.parse(state, seat, text))
        if state.result is not None:
            after = 1 if state.result.winner == seat else 0 if state.result.winner is None else -1
        else:
            turn = crystal_result(frozenset(state.pool), state.points, state.turn)
            after = turn if state.turn == seat else -turn
        assert math.floor(move.loss) == RANK[RESULT[before]] - RANK[RESULT[after]]


# --- Number Claim, open ---------------------------------------------------------------------


@cache
def claim_margin(left: frozenset[int]) -> int:
    """The best final margin the player to move adds, by plain minimax over every claim."""
    if not left:
        return 0
    return max(v - claim_margin(left - {v}) for v in left)


@settings(max_examples=40, deadline=None)
@given(seeds, st.sampled_from([3, 4]))
def test_open_claim_values_agree_with_plain_minimax(seed: int, size: int) -> None:
    options = {"size": size}
    log = match_log("claim", options, seed)
    done = review("claim", options, seed, log)
    game = games.get("claim")
    state = game.new(options, seed)
    for move, (seat, _, text) in zip(done.moves, log, strict=True):
        claimed = set(state.claims)
        left = frozenset(v for i, v in enumerate(state.grid) if i not in claimed)
        mine = sum(state.grid[i] for i in state.claims[seat::2])
        theirs = sum(state.grid[i] for i in state.claims[1 - seat :: 2])
        if len(left) <= 10:  # plain minimax over 16 numbers takes too long
            best = mine - theirs + claim_margin(left)
            assert move.before == best
            assert move.knowledge.value is RESULT[(best > 0) - (best < 0)]
            value = int(move.move.split()[-1])
            assert move.after == mine - theirs + value - claim_margin(left - {value})
        state, _ = game.apply(state, seat, game.parse(state, seat, text))


# --- Capture the Crown ----------------------------------------------------------------------


def crowns_possible(records: tuple) -> list[tuple[int, int]]:  # type: ignore[type-arg]
    """Every Crown that agrees with an attacker's misses and hints, tried one by one."""
    return [
        crown
        for crown in CELLS
        if all(
            (record.cell == crown) == record.hit
            and (record.hint is None or record.hint.holds_for(crown))
            for record in records
        )
    ]


@cache
def attacks_at_most(candidates: frozenset, attacked: frozenset) -> int:  # type: ignore[type-arg]
    """Attacks that surely find the Crown, by minimax over every attack, Crown and hint."""
    if len(candidates) <= 1:
        return len(candidates)
    best = 99
    for cell in CELLS:
        if cell in attacked:
            continue
        worst = 0
        for crown in candidates:
            if crown == cell:
                worst = max(worst, 1)
                continue
            for hint in true_hints(crown, cell):
                left = frozenset(c for c in candidates if c != cell and hint.holds_for(c))
                worst = max(worst, 1 + attacks_at_most(left, attacked | {cell}))
        best = min(best, worst)
    return best


def searched(candidates: frozenset, attacked: frozenset, crown: tuple[int, int]) -> float:  # type: ignore[type-arg]
    """The solver's attacks on average to find ``crown``, each of its choices tried, the
    defender choosing the hint that makes it longest."""
    choices = best_attacks(mask(candidates), mask(attacked))
    total = 0.0
    for index in choices:
        cell = CELLS[index]
        total += 1
        if cell != crown:
            total += max(
                searched(
                    frozenset(c for c in candidates if c != cell and hint.holds_for(c)),
                    attacked | {cell},
                    crown,
                )
                for hint in true_hints(crown, cell)
            )
    return total / len(choices)


@settings(max_examples=25, deadline=None)
@given(seeds, st.sampled_from(["defender", "auto"]))
def test_crown_cells_and_attacks_agree_with_brute_force_over_every_crown(
    seed: int, hints: str
) -> None:
    options = {"hints": hints}
    log = match_log("crown", options, seed)
    done = review("crown", options, seed, log)
    game = games.get("crown")
    state = game.new(options, seed)
    moves = iter(done.moves)
    for seat, ask, text in log:
        if Ask(ask) is Ask.ACTION:
            move = next(moves)
            records = state.attacks[seat]
            possible = crowns_possible(records)
            assert sorted(consistent_cells(records)) == possible
            assert move.knowledge.possible == len(possible)
            assert move.knowledge.listed == tuple(f"({r},{c})" for r, c in possible)
            attacked = frozenset(record.cell for record in records)
            assert move.knowledge.worst == attacks_at_most(frozenset(possible), attacked)
            average = sum(searched(frozenset(possible), attacked, c) for c in possible)
            assert math.isclose(move.knowledge.expected or 0, average / len(possible))
        elif Ask(ask) is Ask.HINT:
            move = next(moves)
            assert isinstance(game.parse(state, seat, text), HintAction)
        state, _ = game.apply(state, seat, game.parse(state, seat, text))
    assert next(moves, None) is None
    assert INDEX[CELLS[0]] == 0


# --- Safe Cracker ---------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seeds, st.sampled_from([(3, 3), (4, 4), (5, 5), (7, 5)]))
def test_safe_codes_still_possible_agree_with_brute_force(
    seed: int, shape: tuple[int, int]
) -> None:
    digits, length = shape
    options = {"digits": digits, "length": length}
    log = match_log("safe", options, seed, stop=14)
    game = games.get("safe")
    state = game.new(options, seed)
    for seat, _, text in log:
        state, _ = game.apply(state, seat, game.parse(state, seat, text))
    if state.outcome is None:
        log = log[:-1] if len(log) % 2 else log
    done = review("safe", options, seed, log, outcome=None if state.outcome else _resign())
    state = game.new(options, seed)
    moves = iter(done.moves)
    every = list(product(range(1, digits + 1), repeat=length))
    for seat, ask, text in log:
        if Ask(ask) is Ask.ACTION:
            move = next(moves)
            records = state.guesses[seat]
            possible = [
                code
                for code in every
                if all(exact_matches(r.code, code) == r.exact for r in records)
            ]
            assert move.knowledge.possible == len(possible)
            if len(possible) <= 10:
                assert move.knowledge.listed == tuple("-".join(map(str, c)) for c in possible)
            assert move.exact == (digits**length <= 32)
        state, _ = game.apply(state, seat, game.parse(state, seat, text))


def _resign() -> Outcome:
    return Outcome(0, Reason.RESIGN)


@cache
def guesses_at_most(candidates: frozenset) -> int:  # type: ignore[type-arg]
    """Guesses that surely crack a code among ``candidates``, by minimax over every guess."""
    if len(candidates) <= 1:
        return len(candidates)
    best = 99
    for guess in product(range(1, 4), repeat=3):
        answers: dict[int, set] = {}  # type: ignore[type-arg]
        for code in candidates:
            answers.setdefault(exact_matches(guess, code), set()).add(code)
        if len(answers) == 1 and guess not in candidates:
            continue
        worst = max(
            1 if exact == 3 else 1 + guesses_at_most(frozenset(codes))
            for exact, codes in answers.items()
        )
        best = min(best, worst)
    return best


@settings(max_examples=25, deadline=None)
@given(seeds)
def test_safe_worst_case_guesses_agree_with_brute_force_late_in_a_match(seed: int) -> None:
    log = match_log("safe", {}, seed)
    done = review("safe", {}, seed, log)
    for move in done.moves:
        possible = move.knowledge.possible or 0
        if possible <= 9:
            codes = frozenset(
                tuple(int(d) for d in code.split("-")) for code in move.knowledge.listed
            )
            assert move.knowledge.worst == guesses_at_most(codes)
