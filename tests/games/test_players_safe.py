"""Safe Cracker's player: every 1-3 code cracked within 5 guesses; larger codes by sampling."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import Ask, Seat
from games.players import player_for
from games.players.safe import ConsistentCodes, guesses_needed
from games.safe import (
    GAME,
    Code,
    Guess,
    GuessRecord,
    Options,
    SafeState,
    SetCode,
    exact_matches,
)

HARD = player_for("safe", "hard")


def guesses_to_crack(
    code: Code, options: dict[str, int | None], seed: int, limit: int = 30
) -> tuple[int, SafeState]:
    """How many guesses the hard player (seat 0) takes to crack ``code``, and the final state.

    Seat 1 keeps guessing a code that is not seat 0's, so the game ends only by the crack
    (or the guess limit).
    """
    rng = random.Random(seed)
    state = GAME.new(options, seed)
    own = tuple(1 for _ in code)
    state, _ = GAME.apply(state, 0, SetCode(own))
    state, _ = GAME.apply(state, 1, SetCode(code))
    miss = Guess(tuple(2 for _ in code))
    for guesses in range(1, limit + 1):
        view, legal = GAME.view(state, 0), GAME.legal_actions(state, 0)
        state, _ = GAME.apply(state, 0, HARD.choose(view, Ask.ACTION, legal, rng))
        if GAME.outcome(state) is not None:
            return guesses, state
        state, _ = GAME.apply(state, 1, miss)
    raise AssertionError(f"{code} not cracked in {limit} guesses")


def test_five_guesses_always_suffice_for_three_digits_1_to_3_and_no_fewer_do() -> None:
    """docs/rules.md *computed*: the game value over all 27 codes is exactly 5."""
    assert guesses_needed(3, 3, (1 << 27) - 1) == 5


@pytest.mark.parametrize("seed", range(3))
def test_the_hard_guesser_cracks_every_code_within_five_guesses(seed: int) -> None:
    counts = {
        code: guesses_to_crack(code, {}, seed)[0] for code in itertools.product((1, 2, 3), repeat=3)
    }
    assert max(counts.values()) == 5
    assert 3.5 < sum(counts.values()) / len(counts) < 4


def test_larger_codes_are_cracked_too() -> None:
    """No exact bound is claimed past 27 codes; these are the figures the guesser reaches."""
    worst = max(
        guesses_to_crack(code, {"digits": 4, "length": 3}, 1)[0]
        for code in itertools.product(range(1, 5), repeat=3)
    )
    assert worst <= 7
    rng = random.Random(5)
    for seed in range(2):
        code = tuple(rng.randint(1, 9) for _ in range(6))
        assert guesses_to_crack(code, {"digits": 9, "length": 6}, seed)[0] <= 16


def test_with_a_guess_limit_every_guess_may_be_the_code() -> None:
    """When the best single guess may decide, the guesser only guesses consistent codes."""
    options: dict[str, int | None] = {"digits": 5, "length": 4, "max_guesses": 12}
    rng = random.Random(2)
    for _ in range(3):
        code = tuple(rng.randint(1, 5) for _ in range(4))
        _, state = guesses_to_crack(code, options, 0, limit=12)
        records = state.guesses[0]
        for i, record in enumerate(records):
            assert all(exact_matches(r.code, record.code) == r.exact for r in records[:i])


records = st.integers(3, 6).flatmap(
    lambda digits: st.integers(3, 5).flatmap(
        lambda length: st.tuples(
            st.just(Options(digits=digits, length=length)),
            st.lists(
                st.tuples(
                    st.lists(st.integers(1, digits), min_size=length, max_size=length),
                    st.integers(0, length - 1),
                ),
                max_size=4,
            ),
        )
    )
)


@settings(max_examples=60, deadline=None)
@given(case=records, seed=st.integers(0, 1000))
def test_consistent_codes_are_exactly_those_agreeing_with_every_feedback(
    case: tuple[Options, list[tuple[list[int], int]]], seed: int
) -> None:
    options, raw = case
    history = [GuessRecord(tuple(code), exact) for code, exact in raw]
    expected = {
        code
        for code in itertools.product(range(1, options.digits + 1), repeat=options.length)
        if all(exact_matches(r.code, code) == r.exact for r in history)
    }
    consistent = ConsistentCodes(options, history)
    assert len(consistent) == len(expected)
    assert sorted(consistent) == sorted(expected)
    if expected:
        rng = random.Random(seed)
        assert {consistent.draw(rng) for _ in range(20)} <= expected
    else:
        with pytest.raises(ValueError):
            consistent.draw(random.Random(seed))


def test_consistent_codes_are_drawn_uniformly() -> None:
    """After ``1111`` with 1 exact match (4 x 3**3 = 108 codes of 1-4), each is as likely."""
    options = Options(digits=4, length=4)
    consistent = ConsistentCodes(options, [GuessRecord((1, 1, 1, 1), 1)])
    assert len(consistent) == 108
    rng = random.Random(0)
    draws = [consistent.draw(rng) for _ in range(10800)]
    counts = {code: draws.count(code) for code in set(draws)}
    assert len(counts) == 108
    assert set(counts.values()) <= set(range(50, 151))  # 100 expected, sd 10


@pytest.mark.parametrize("seat", [0, 1])
def test_the_hard_guess_never_repeats_a_guess(seat: Seat) -> None:
    rng = random.Random(seat)
    state = GAME.new({}, 9)
    state, _ = GAME.apply(state, 0, SetCode((3, 1, 2)))
    state, _ = GAME.apply(state, 1, SetCode((2, 3, 3)))
    while GAME.outcome(state) is None:
        (turn,) = GAME.to_act(state)
        player = HARD if turn == seat else player_for("safe", "easy")
        view, legal = GAME.view(state, turn), GAME.legal_actions(state, turn)
        state, _ = GAME.apply(state, turn, player.choose(view, Ask.ACTION, legal, rng))
    guesses = [record.code for record in state.guesses[seat]]
    assert len(guesses) == len(set(guesses))
