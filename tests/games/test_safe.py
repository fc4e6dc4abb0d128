"""Safe Cracker: the rule book's game, docs/rules.md's rules and computed facts, secrecy."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import (
    Ask,
    GameOver,
    IllegalAction,
    InvalidInput,
    InvalidOptions,
    NotYourTurn,
    Outcome,
    Reason,
)
from games.safe import GAME, Code, CodeActions, Guess, SafeState, SetCode
from tests.games.helpers import (
    NAMES,
    answer,
    assert_alike,
    drawn,
    play,
    public_differences,
    public_texts,
    refused,
    reloaded,
    seeds,
)

CODES: tuple[Code, ...] = tuple(product((1, 2, 3), repeat=3))
"""Every code of the default game, in order."""


def ready(code0: str, code1: str, **options: int | None) -> SafeState:
    """A game in play: both codes set."""
    state, _ = play(GAME, GAME.new(options, seed=5), [(0, code0), (1, code1)])
    return state


def _exact(guess: Code, code: Code) -> int:
    """Exact matches, counted here without the engine's helper."""
    return len([i for i in range(len(code)) if guess[i] == code[i]])


# --- the rule book's example game ----------------------------------------------------------


def test_book_example_game_with_feedback_recomputed_from_the_codes() -> None:
    """docs/rules.md: the book's feedback does not match its codes (2-1-3 and 3-3-1).

    The guesses are replayed as printed and the feedback is recomputed from the codes: it
    differs from the book's for four guesses. The book's "winning" guess 2-1-3 is Player 1's
    own code, 0 exact matches against 3-3-1, so the game goes on: Player 2 guesses 2-1-1
    (2 exact matches) and Player 1 then cracks 3-3-1.
    """
    state, events = play(GAME, GAME.new({}, seed=1), [(0, "2-1-3"), (1, "3-3-1")])
    assert public_texts(events) == [
        "Ann has set their code.",
        "Bob has set their code.",
        "Both codes are set. Ann guesses first.",
    ]
    guesses = ["1-1-1", "1-2-3", "1-3-1", "2-2-3", "2-2-1", "2-3-3", "2-1-3", "2-1-1"]
    state, events = play(GAME, state, [(i % 2, text) for i, text in enumerate(guesses)])
    assert public_texts(events) == [
        "Ann guesses 1-1-1: 1 exact match.",  # book: 1
        "Bob guesses 1-2-3: 1 exact match.",  # book: 2
        "Ann guesses 1-3-1: 2 exact matches.",  # book: 0
        "Bob guesses 2-2-3: 2 exact matches.",  # book: 2
        "Ann guesses 2-2-1: 1 exact match.",  # book: 1
        "Bob guesses 2-3-3: 2 exact matches.",  # book: 1
        "Ann guesses 2-1-3: 0 exact matches.",  # book: 3, and the end of the game
        "Bob guesses 2-1-1: 2 exact matches.",
    ]
    assert GAME.outcome(state) is None and GAME.to_act(state) == {0}
    state, events = play(GAME, state, [(0, "3-3-1")])
    assert public_texts(events) == [
        "Ann guesses 3-3-1: 3 exact matches. The safe is cracked!",
        "Ann wins: Bob's code is cracked.",
        "Ann's code was 2-1-3; Bob's code was 3-3-1.",
    ]
    assert GAME.outcome(state) == Outcome(0, Reason.CAPTURE)
    assert drawn(GAME, state, 1) == [
        "Player 1's guesses:",
        "[1] [1] [1]  1 exact match",
        "[1] [3] [1]  2 exact matches",
        "[2] [2] [1]  1 exact match",
        "[2] [1] [3]  0 exact matches",
        "[3] [3] [1]  3 exact matches",
        "Your guesses:",
        "[1] [2] [3]  1 exact match",
        "[2] [2] [3]  2 exact matches",
        "[2] [3] [3]  2 exact matches",
        "[2] [1] [1]  2 exact matches",
        "Codes: 3 digits, each 1-3",
        "Player 1's code: 2-1-3",
        "Your code: 3-3-1",
    ]


# --- options -------------------------------------------------------------------------------


def test_options_are_normalised() -> None:
    assert GAME.options(GAME.new({}, seed=0)) == {"digits": 3, "length": 3, "max_guesses": None}
    options = {"digits": 9, "length": 6, "max_guesses": 50}
    assert GAME.options(GAME.new(options, seed=0)) == options
    options = {"digits": 3, "length": 3, "max_guesses": 1}
    assert GAME.options(GAME.new(options, seed=0)) == options


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"digits": 2}, "digits"),
        ({"digits": 10}, "digits"),
        ({"digits": "4"}, "digits"),
        ({"digits": True}, "digits"),
        ({"length": 2}, "length"),
        ({"length": 7}, "length"),
        ({"length": 3.0}, "length"),
        ({"max_guesses": 0}, "max_guesses"),
        ({"max_guesses": 51}, "max_guesses"),
        ({"colours": 4}, "colours"),
    ],
)
def test_bad_options_are_refused(options: dict[str, object], named: str) -> None:
    with pytest.raises(InvalidOptions, match=named):
        GAME.new(options, seed=0)


# --- setup ---------------------------------------------------------------------------------


def test_both_players_set_a_code_privately() -> None:
    state = GAME.new({}, seed=0)
    assert GAME.to_act(state) == {0, 1}
    assert all(GAME.ask(state, seat) is Ask.SECRET for seat in (0, 1))
    assert list(GAME.legal_actions(state, 0)) == [SetCode(code) for code in CODES]
    state, events = GAME.apply(state, 1, SetCode((3, 1, 2)))
    assert [(e.audience, e.render(NAMES), dict(e.data)) for e in events] == [
        (None, "Bob has set their code.", {"seat": 1}),
        (1, "Your code is 3-1-2.", {"seat": 1, "code": [3, 1, 2]}),
    ]
    assert GAME.to_act(state) == {0} and GAME.legal_actions(state, 1) == ()
    error = refused(GAME, state, 1, "111")
    assert isinstance(error, NotYourTurn) and str(error) == "You have already set your code."
    assert isinstance(refused(GAME, state, 0, Guess((1, 1, 1))), IllegalAction)


@pytest.mark.parametrize(
    "text", ["213", "2 1 3", "2-1-3", "2,1,3", "(2,1,3)", " 2 - 1 - 3 ", "[2, 1, 3]"]
)
def test_codes_are_read_forgivingly(text: str) -> None:
    assert GAME.parse(GAME.new({}, seed=0), 0, text) == SetCode((2, 1, 3))
    assert GAME.parse(ready("111", "111"), 0, text) == Guess((2, 1, 3))


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "Enter a code"),
        ("  ", "Enter a code"),
        ("21", "has 2 digits"),
        ("2134", "has 4 digits"),
        ("214", "has the digit 4"),
        ("021", "has the digit 0"),
        ("abc", "is not a code"),
        ("1 2 x", "is not a code"),
        ("+12", "is not a code"),
        ("\u0663\u0663\u0663", "is not a code"),
        ("9" * 5000, "has 5000 digits"),
    ],
)
def test_bad_codes_are_refused_on_every_code_path(text: str, says: str) -> None:
    in_setup = GAME.new({}, seed=0)
    in_play = ready("123", "321")
    for state in (in_setup, in_play):
        error = refused(GAME, state, 0, text)
        assert isinstance(error, InvalidInput)
        assert says in str(error) and "3 digits, each 1-3, e.g. '213'" in str(error)
    assert GAME.to_act(in_play) == {0}


def test_codes_of_another_shape_are_refused_as_actions() -> None:
    for action in (Guess((1, 2)), Guess((1, 2, 4)), Guess((0, 1, 1))):
        assert isinstance(refused(GAME, ready("123", "321"), 0, action), IllegalAction)


# --- play ----------------------------------------------------------------------------------


def test_guesses_alternate_starting_with_seat_0() -> None:
    state = ready("123", "321")
    for turn in range(6):
        seat = turn % 2
        assert GAME.to_act(state) == {seat} and GAME.ask(state, seat) is Ask.ACTION
        error = refused(GAME, state, 1 - seat, "222")
        assert str(error) == "It is not your turn: the other player is to act."
        state, _ = play(GAME, state, [(seat, "222")])


@pytest.mark.parametrize("code", CODES)
def test_feedback_counts_exact_matches_only(code: Code) -> None:
    state = ready("111", "".join(map(str, code)))
    for guess in CODES:
        after, events = GAME.apply(state, 0, Guess(guess))
        exact = _exact(guess, code)
        words = {0: "0 exact matches", 1: "1 exact match", 2: "2 exact matches"}
        word = words.get(exact, "3 exact matches")
        assert events[0].text.startswith(f"{{p0}} guesses {'-'.join(map(str, guess))}: {word}.")
        assert events[0].data == {"seat": 0, "guess": list(guess), "exact": exact}
        assert (GAME.outcome(after) == Outcome(0, Reason.CAPTURE)) == (guess == code)


def test_a_crack_ends_the_game_at_once() -> None:
    state, events = play(GAME, ready("123", "321"), [(0, "111"), (1, "123")])
    assert GAME.outcome(state) == Outcome(1, Reason.CAPTURE)
    assert [e.kind for e in events] == ["guess", "guess", "end", "reveal"]
    assert events[-1].data == {"codes": [[1, 2, 3], [3, 2, 1]]}
    assert GAME.to_act(state) == frozenset()
    assert GAME.legal_actions(state, 0) == () == GAME.legal_actions(state, 1)
    for seat in (0, 1):
        assert isinstance(refused(GAME, state, seat, "321"), GameOver)
    with pytest.raises(GameOver):
        GAME.conclude(state, Outcome(0, Reason.RESIGN))


def test_the_best_single_guess_wins_when_guesses_run_out() -> None:
    state = ready("123", "321", max_guesses=2)
    state, events = play(GAME, state, [(0, "311"), (1, "111"), (0, "221")])
    assert GAME.outcome(state) is None
    state, events = play(GAME, state, [(1, "132")])
    assert GAME.outcome(state) == Outcome(0, Reason.SCORE)
    assert public_texts(events)[1:] == [
        "Ann wins on score: best guess 2 exact matches against 1 exact match.",
        "Ann's code was 1-2-3; Bob's code was 3-2-1.",
    ]


def test_equal_best_guesses_are_a_draw() -> None:
    state, events = play(GAME, ready("123", "321", max_guesses=1), [(0, "311"), (1, "133")])
    assert GAME.outcome(state) == Outcome(None, Reason.SCORE)
    assert public_texts(events)[2] == "Draw: both players' best guess had 2 exact matches."


def test_a_crack_on_the_last_guess_still_captures() -> None:
    state, _ = play(GAME, ready("123", "321", max_guesses=1), [(0, "311"), (1, "123")])
    assert GAME.outcome(state) == Outcome(1, Reason.CAPTURE)


# --- legal actions of the large variants ---------------------------------------------------


def test_legal_actions_of_the_largest_variant_are_lazy_sorted_and_readable() -> None:
    state = GAME.new({"digits": 9, "length": 6}, seed=0)
    actions = GAME.legal_actions(state, 0)
    assert isinstance(actions, CodeActions)
    assert len(actions) == 9**6
    assert actions[0] == SetCode((1,) * 6) and actions[-1] == SetCode((9,) * 6)
    assert list(actions[9:12]) == [SetCode((1, 1, 1, 1, 2, d)) for d in (1, 2, 3)]
    for index in range(0, 9**6 - 1, 9973):
        assert actions[index] < actions[index + 1]
        assert actions.index(actions[index]) == index
        assert GAME.parse(state, 0, str(actions[index])) == actions[index]
    assert SetCode((9, 8, 7, 6, 5, 4)) in actions
    assert SetCode((9, 8, 7, 6, 5, 0)) not in actions
    assert Guess((9, 8, 7, 6, 5, 4)) not in actions
    with pytest.raises(IndexError):
        actions[9**6]


def test_legal_actions_are_every_code_in_order() -> None:
    state = ready("1111", "2222", digits=4, length=4)
    assert list(GAME.legal_actions(state, 0)) == [
        Guess(code) for code in product(range(1, 5), repeat=4)
    ]


# --- computed facts ------------------------------------------------------------------------


def minimax_guess(candidates: Sequence[Code]) -> Code:
    """The guess leaving the fewest codes in the worst case (docs/rules.md's guesser).

    Any code may be guessed; ties prefer a code that could still be the answer, then the
    smallest.
    """

    def worst_case(guess: Code) -> int:
        answers: dict[int, int] = {}
        for code in candidates:
            exact = _exact(guess, code)
            answers[exact] = answers.get(exact, 0) + 1
        return max(answers.values())

    return min(CODES, key=lambda guess: (worst_case(guess), guess not in candidates, guess))


def guesses_to_crack(code: Code) -> int:
    """Guesses the minimax guesser (seat 0) makes, through the engine, to crack ``code``."""
    state = ready("111", "".join(map(str, code)))
    while GAME.outcome(state) is None:
        candidates = [
            c
            for c in CODES
            if all(_exact(r.code, c) == r.exact for r in GAME.view(state, 0).guesses[0])
        ]
        state, _ = GAME.apply(state, 0, Guess(minimax_guess(candidates)))
        if GAME.outcome(state) is None:
            state, _ = GAME.apply(state, 1, Guess((2, 2, 2)))  # never cracks 1-1-1
    assert GAME.outcome(state) == Outcome(0, Reason.CAPTURE)
    return len(state.guesses[0])


def test_the_minimax_guesser_cracks_every_code_within_five_and_may_need_five() -> None:
    counts = [guesses_to_crack(code) for code in CODES]
    assert max(counts) == 5


@cache
def crackable_within(codes: frozenset[Code], guesses: int) -> bool:
    """Whether some strategy cracks every code in ``codes`` within ``guesses`` (exhaustive)."""
    if guesses == 0:
        return False
    if len(codes) == 1:
        return True
    for guess in CODES:
        answers: dict[int, set[Code]] = {}
        for code in codes:
            answers.setdefault(_exact(guess, code), set()).add(code)
        if len(answers) == 1 and guess not in codes:
            continue
        if all(
            crackable_within(frozenset(left), guesses - 1)
            for exact, left in answers.items()
            if exact < 3
        ):
            return True
    return False


def test_no_strategy_cracks_every_code_within_four() -> None:
    assert not crackable_within(frozenset(CODES), 4)
    assert crackable_within(frozenset(CODES), 5)


# --- dump, load, conclude ------------------------------------------------------------------


@pytest.mark.parametrize("options", [{}, {"digits": 9, "length": 6, "max_guesses": 3}])
def test_dump_and_load_round_trip_at_every_step(options: dict[str, int]) -> None:
    length = options.get("length", 3)
    state = GAME.new(options, seed=42)
    steps = [(0, "1" * length), (1, "2" * length), (0, "3" * length), (1, "1" * length)]
    for seat, text in steps:
        assert reloaded(GAME, state) == state
        state, _ = play(GAME, state, [(seat, text)])
    assert reloaded(GAME, state) == state


def test_conclude_ends_a_running_game_with_a_reveal() -> None:
    state, _ = play(GAME, ready("123", "321"), [(0, "111")])
    ended, events = GAME.conclude(state, Outcome(1, Reason.TIMEOUT))
    assert GAME.outcome(ended) == Outcome(1, Reason.TIMEOUT)
    assert public_texts(events) == [
        "Bob wins: Ann ran out of time.",
        "Ann's code was 1-2-3; Bob's code was 3-2-1.",
    ]
    assert GAME.view(ended, None).codes == ((1, 2, 3), (3, 2, 1))


def test_conclude_during_setup_reveals_what_was_set() -> None:
    state, _ = play(GAME, GAME.new({}, seed=0), [(0, "321")])
    _, events = GAME.conclude(state, Outcome(0, Reason.RESIGN))
    assert public_texts(events) == [
        "Ann wins: Bob resigned.",
        "Ann's code was 3-2-1; Bob had not set a code.",
    ]


# --- secrecy -------------------------------------------------------------------------------

JUNK = ["111", "12", "1234", "124", "x", ""]


def _assert_same_to_seat0_and_public(a: SafeState, b: SafeState) -> None:
    assert_alike(GAME, a, b, (None, 0), 0)
    for text in JUNK:
        assert answer(GAME, a, 0, text) == answer(GAME, b, 0, text)


codes = st.tuples(*[st.integers(1, 3)] * 3)


@settings(max_examples=150, deadline=None)
@given(
    code0=codes,
    codes1=st.lists(codes, min_size=2, max_size=2, unique=True),
    guesses=st.lists(codes, max_size=12),
    seed=seeds,
)
def test_player_1s_code_never_reaches_player_0_or_the_public(
    code0: Code, codes1: list[Code], guesses: list[Code], seed: int
) -> None:
    """Two games differing only in seat 1's code look the same to seat 0 and the public.

    They are played in lockstep while their public histories agree; from the first feedback
    that differs (or the end, which reveals everything) the codes may rightly be told apart.
    """
    worlds = [GAME.new({}, seed) for _ in codes1]
    worlds = [GAME.apply(w, 0, SetCode(code0))[0] for w in worlds]
    _assert_same_to_seat0_and_public(worlds[0], worlds[1])
    steps = [GAME.apply(w, 1, SetCode(c)) for w, c in zip(worlds, codes1, strict=True)]
    for guess in guesses:
        (world_a, events_a), (world_b, events_b) = steps
        differing = public_differences(events_a, events_b)
        if differing:
            # Seat 0's feedback, or the reveal at the end, rightly tells the codes apart.
            first = differing[0]
            assert (first.kind, first.data.get("seat")) == ("guess", 0) or first.kind == "reveal"
            return
        assert public_texts(events_a) == public_texts(events_b)
        assert [e for e in events_a if e.audience == 0] == [e for e in events_b if e.audience == 0]
        _assert_same_to_seat0_and_public(world_a, world_b)
        (seat,) = GAME.to_act(world_a)
        steps = [GAME.apply(w, seat, Guess(guess)) for w in (world_a, world_b)]
