"""Each game's puzzles checked against plain exhaustive searches written independently of the
solvers (as the exact reviews are): the answer really is the only best move by the stated
margin, every choice's value and loss is right, the position rebuilds from the puzzle's log,
and a puzzle relies on nothing but what its player knew then."""

from __future__ import annotations

import dataclasses
import math
from functools import cache
from itertools import product
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games.base import Ask, other
from games.crown import CELLS, AttackRecord, cell_text, true_hints
from games.players.crown import best_attacks
from games.players.safe import best_exact_guesses
from games.puzzles import find, finder_for
from games.puzzles.claim import MARGIN as CLAIM_MARGIN
from games.puzzles.crown import MARGIN as CROWN_MARGIN
from games.puzzles.crystal import MARGIN as CRYSTAL_MARGIN
from games.puzzles.safe import MARGIN as SAFE_MARGIN
from games.review import review
from games.review.codes import every_code
from games.review.crown import mask
from games.safe import code_text, exact_matches
from tests.games.puzzle_helpers import check_shape, rebuilt
from tests.games.review_helpers import finished_match

seeds = st.integers(min_value=0, max_value=2**20)
WIN = 100
"""A win's score before the captures it takes are subtracted (docs/review.md)."""


def result_loss(best: int, played: int, per: float) -> float:
    """docs/review.md: a step per result given away, else ``per`` per unit given away, at most
    0.4."""
    drop = _sign(best) - _sign(played)
    return float(drop) if drop else min(0.4, per * (best - played))


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


# --- Crystal Capture ------------------------------------------------------------------------

CRYSTAL = games.get("crystal")
_crystal_scores: dict[tuple[Any, ...], int] = {}


def crystal_score(state: Any) -> int:
    """The score of ``state`` for the player to move, by plain minimax over the rules' own
    moves: ``WIN`` less the captures a win takes, negative for a loss, 0 for a draw."""
    key = (state.pool, state.points, state.turn)
    if key not in _crystal_scores:
        seat = state.turn
        _crystal_scores[key] = max(
            crystal_capture(state, seat, action) for action in CRYSTAL.legal_actions(state, seat)
        )
    return _crystal_scores[key]


def crystal_capture(state: Any, seat: int, action: Any) -> int:
    after, _ = CRYSTAL.apply(state, seat, action)
    if after.result is not None:
        winner = after.result.winner
        return 0 if winner is None else WIN - 1 if winner == seat else -(WIN - 1)
    value = crystal_score(after)
    mine = value if after.turn == seat else -value
    return mine - 1 if mine > 0 else mine + 1 if mine < 0 else 0


@settings(max_examples=40, deadline=None)
@given(seeds)
def test_crystal_puzzles_agree_with_plain_minimax(seed: int) -> None:
    log, ended = finished_match("crystal", {}, seed)
    done = review("crystal", {}, seed, log, outcome=ended)
    found = {len(p.actions): p for p in find("crystal", {}, seed, log, outcome=ended)}
    state = CRYSTAL.new({}, seed)
    for index, (seat, _, text) in enumerate(log):
        scores = {
            str(a): crystal_capture(state, seat, a) for a in CRYSTAL.legal_actions(state, seat)
        }
        top = max(scores.values())
        losses = {action: result_loss(top, score, 0.1) for action, score in scores.items()}
        ranked = sorted(losses.values())
        # A puzzle exactly where one capture alone keeps the best result.
        clear = len(ranked) > 1 and ranked[0] == 0 and ranked[1] >= CRYSTAL_MARGIN
        assert (index in found) == clear
        if clear:
            puzzle = found[index]
            check_shape(puzzle, log, done, losses)
            assert all(choice.value == scores[choice.action] for choice in puzzle.choices)
        state, _ = CRYSTAL.apply(state, seat, CRYSTAL.parse(state, seat, text))


# --- Number Claim ---------------------------------------------------------------------------


@cache
def claim_margin(left: tuple[int, ...]) -> int:
    """The best final margin the player to move adds from the numbers ``left`` (sorted), by
    plain minimax over every claim."""
    if not left:
        return 0
    return max(
        v - claim_margin(left[:i] + left[i + 1 :]) for i, v in enumerate(left) if left.index(v) == i
    )


@settings(max_examples=40, deadline=None)
@given(seeds, st.sampled_from([{}, {"size": 4}, {"hidden": True}]))
def test_claim_puzzles_agree_with_plain_minimax(seed: int, options: dict[str, Any]) -> None:
    game = games.get("claim")
    log, ended = finished_match("claim", options, seed)
    done = review("claim", options, seed, log, outcome=ended)
    puzzles = find("claim", options, seed, log, outcome=ended)
    if options.get("hidden"):
        assert puzzles == []  # every claim is as good as any other
        return
    found = {len(p.actions): p for p in puzzles}
    state = game.new(options, seed)
    for index, (seat, _, text) in enumerate(log):
        claimed = set(state.claims)
        left = tuple(sorted(v for i, v in enumerate(state.grid) if i not in claimed))
        if len(left) <= 10:  # plain minimax over more numbers takes too long
            now = sum(state.grid[i] for i in state.claims[seat::2]) - sum(
                state.grid[i] for i in state.claims[1 - seat :: 2]
            )
            finals = {}
            for v in set(left):
                rest = list(left)
                rest.remove(v)
                finals[str(v)] = now + v - claim_margin(tuple(rest))
            top = max(finals.values())
            losses = {action: result_loss(top, final, 0.1) for action, final in finals.items()}
            ranked = sorted(losses.values())
            clear = len(ranked) > 1 and ranked[0] == 0 and ranked[1] >= CLAIM_MARGIN
            assert (index in found) == clear
            if clear:
                check_shape(found[index], log, done, losses)
                assert all(c.value == finals[c.action] for c in found[index].choices)
        state, _ = game.apply(state, seat, game.parse(state, seat, text))


# --- Capture the Crown ----------------------------------------------------------------------

CROWN = games.get("crown")


def crowns_possible(records: Any) -> frozenset[tuple[int, int]]:
    """Every Crown that agrees with an attacker's misses and hints, tried one by one."""
    return frozenset(
        crown
        for crown in CELLS
        if all(
            (record.cell == crown) == record.hit
            and (record.hint is None or record.hint.holds_for(crown))
            for record in records
        )
    )


@cache
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


def attack_values(records: Any) -> dict[str, float]:
    """Each attack's attacks needed on average over every Crown still possible, this one
    included, the defender answering a miss with the hint that makes the search longest."""
    possible = crowns_possible(records)
    attacked = frozenset(record.cell for record in records)
    values = {}
    for cell in CELLS:
        if cell in attacked:
            continue
        total = 0.0
        for crown in possible:
            total += 1
            if crown != cell:
                total += max(
                    searched(
                        frozenset(c for c in possible if c != cell and hint.holds_for(c)),
                        attacked | {cell},
                        crown,
                    )
                    for hint in true_hints(crown, cell)
                )
        values[f"{cell[0]} {cell[1]}"] = total / len(possible)
    return values


def hint_values(state: Any, defender: int) -> dict[str, tuple[int, float]]:
    """Each true hint's attacks still needed by the attacker: at most, and on average for the
    defender's own Crown."""
    crown = state.crowns[defender]
    records = state.attacks[other(defender)]
    attacked = frozenset(record.cell for record in records)
    values = {}
    for hint in true_hints(crown, records[-1].cell):
        left = crowns_possible((*records[:-1], AttackRecord(records[-1].cell, False, hint)))
        values[str(hint)] = (attacks_at_most(left, attacked), searched(left, attacked, crown))
    return values


@settings(max_examples=30, deadline=None)
@given(seeds, st.sampled_from(["defender", "auto"]))
def test_crown_puzzles_agree_with_brute_force_over_every_crown(seed: int, hints: str) -> None:
    options = {"hints": hints}
    log, ended = finished_match("crown", options, seed)
    done = review("crown", options, seed, log, outcome=ended)
    for puzzle in find("crown", options, seed, log, outcome=ended):
        state = rebuilt(puzzle)
        if puzzle.ask is Ask.ACTION:
            values = attack_values(state.attacks[puzzle.seat])
            top = values[puzzle.answer]
            # Every other attack needs at least the margin more attacks on average.
            losses = {a: max(0.0, v - top) for a, v in values.items()}
            assert all(
                v - top >= CROWN_MARGIN - 1e-9 for a, v in values.items() if a != puzzle.answer
            )
        else:
            assert puzzle.ask is Ask.HINT and hints == "defender"
            strengths = hint_values(state, puzzle.seat)
            worst, top = strengths[puzzle.answer]
            assert all(s[0] <= worst for s in strengths.values())
            losses = {a: max(0.0, top - s[1]) for a, s in strengths.items()}
            assert all(
                top - s[1] >= CROWN_MARGIN - 1e-9
                for a, s in strengths.items()
                if a != puzzle.answer
            )
        check_shape(puzzle, log, done, losses)
        for choice in puzzle.choices:
            value = (
                values[choice.action] if puzzle.ask is Ask.ACTION else strengths[choice.action][1]
            )
            assert math.isclose(choice.value, value, abs_tol=1e-4)


@settings(max_examples=30, deadline=None)
@given(seeds)
def test_a_crown_puzzle_is_the_same_whatever_the_other_crown_it_could_not_see(seed: int) -> None:
    """Where the other player's Crown is, among the cells its player could not rule out, changes
    nothing of the puzzle: the question, the choices, their values, the answer and why."""
    log, ended = finished_match("crown", {}, seed)
    position = finder_for("crown")
    for puzzle in find("crown", {}, seed, log, outcome=ended):
        state = rebuilt(puzzle)
        seat = puzzle.seat
        hidden = other(seat)
        # An attacker's own attacks are all it knows of the other Crown; a defender knows its
        # own Crown, and of the attacker's no more than its own attacks tell.
        unseen = crowns_possible(state.attacks[seat])
        seen = position(CROWN, state, seat, puzzle.ask)
        for crown in unseen:
            crowns = list(state.crowns)
            crowns[hidden] = crown
            moved = dataclasses.replace(state, crowns=tuple(crowns))
            assert position(CROWN, moved, seat, puzzle.ask) == seen
        # The words name the hidden Crown only when the player knew it was there.
        secret = cell_text(state.crowns[hidden])
        words = str(puzzle.why) + str(puzzle.question)
        assert (
            secret not in words
            or unseen == {state.crowns[hidden]}
            or any(secret in str(choice.move) for choice in puzzle.choices)
        )


# --- Safe Cracker ---------------------------------------------------------------------------

SAFE = games.get("safe")
CODES = list(product(range(1, 4), repeat=3))


@cache
def safe_searched(candidates: frozenset, code: tuple[int, ...]) -> float:  # type: ignore[type-arg]
    """The solver's guesses on average to crack ``code``, each of its choices tried."""
    bits = every_code(3, 3)
    choices = best_exact_guesses(3, 3, sum(1 << bits.codes.index(c) for c in candidates))
    total = 0.0
    for index in choices:
        guess = bits.codes[index]
        total += 1
        if guess != code:
            answer = exact_matches(guess, code)
            total += safe_searched(
                frozenset(c for c in candidates if exact_matches(guess, c) == answer), code
            )
    return total / len(choices)


def guess_values(records: Any) -> dict[str, float]:
    """Each guess's guesses needed on average over every code still possible, tried one by
    one, this guess included."""
    possible = [c for c in CODES if all(exact_matches(r.code, c) == r.exact for r in records)]
    values = {}
    for guess in CODES:
        total = 0.0
        for code in possible:
            total += 1
            if guess != code:
                answer = exact_matches(guess, code)
                left = frozenset(c for c in possible if exact_matches(guess, c) == answer)
                total += safe_searched(left, code)
        values["".join(map(str, guess))] = total / len(possible)
    return values


@settings(max_examples=30, deadline=None)
@given(seeds, st.sampled_from([{}, {"max_guesses": 4}]))
def test_safe_puzzles_agree_with_brute_force_over_every_code(
    seed: int, options: dict[str, Any]
) -> None:
    log, ended = finished_match("safe", options, seed)
    done = review("safe", options, seed, log, outcome=ended)
    for puzzle in find("safe", options, seed, log, outcome=ended):
        state = rebuilt(puzzle)
        values = guess_values(state.guesses[puzzle.seat])
        top = values[puzzle.answer]
        assert all(v - top >= SAFE_MARGIN - 1e-9 for a, v in values.items() if a != puzzle.answer)
        check_shape(puzzle, log, done, {a: v - top for a, v in values.items()})
        for choice in puzzle.choices:
            assert math.isclose(choice.value, values[choice.action], abs_tol=1e-4)
        # Of the guesses that lose alike, those agreeing with more of the answers are offered.
        records = state.guesses[puzzle.seat]
        agree = {
            "".join(map(str, code)): sum(exact_matches(r.code, code) == r.exact for r in records)
            for code in CODES
        }
        offered = {choice.action for choice in puzzle.choices} - {puzzle.answer, puzzle.played}
        left = set(agree) - {choice.action for choice in puzzle.choices}
        for shown in offered:
            same = [agree[a] for a in left if abs(values[a] - values[shown]) < 1e-9]
            assert all(agree[shown] >= other for other in same)


@settings(max_examples=30, deadline=None)
@given(seeds)
def test_a_safe_puzzle_is_the_same_whatever_the_code_its_player_could_not_rule_out(
    seed: int,
) -> None:
    log, ended = finished_match("safe", {}, seed)
    position = finder_for("safe")
    for puzzle in find("safe", {}, seed, log, outcome=ended):
        state = rebuilt(puzzle)
        seat = puzzle.seat
        records = state.guesses[seat]
        unseen = [c for c in CODES if all(exact_matches(r.code, c) == r.exact for r in records)]
        seen = position(SAFE, state, seat, puzzle.ask)
        for code in unseen:
            codes = list(state.codes)
            codes[other(seat)] = code
            moved = dataclasses.replace(state, codes=tuple(codes))
            assert position(SAFE, moved, seat, puzzle.ask) == seen
        secret = code_text(state.codes[other(seat)])
        assert secret not in str(puzzle.why) or unseen == [state.codes[other(seat)]]


def test_large_safes_and_flag_chase_give_no_puzzles() -> None:
    """Their reviews are estimates: no answer there is sure to be the best."""
    for name, options in (("safe", {"digits": 4, "length": 4}), ("flag", {})):
        for seed in range(3):
            log, ended = finished_match(name, options, seed)
            assert find(name, options, seed, log, outcome=ended) == []
