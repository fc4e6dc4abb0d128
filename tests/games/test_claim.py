"""Number Claim: the rule book's game, docs/rules.md's rulings and computed fact, variants."""

from __future__ import annotations

import random

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
    Seat,
)
from games.claim import GAME, ClaimCell, ClaimNumber, State, new_with_grid
from tests.games.helpers import (
    answer,
    assert_alike,
    drawn,
    play,
    public_texts,
    refused,
    reloaded,
    seeds,
)

BOOK_GRID = ((2, 7, 6), (9, 5, 1), (4, 3, 8))


def _book_game() -> State:
    return new_with_grid(BOOK_GRID)


def _grid_lines(state: State, viewer: Seat | None = None) -> list[str]:
    size = GAME.view(state, viewer).size
    return drawn(GAME, state, viewer)[:size]


def test_book_example_game() -> None:
    state = _book_game()
    assert _grid_lines(state) == ["[2] [7] [6]", "[9] [5] [1]", "[4] [3] [8]"]
    state, events = play(GAME, state, [(0, "9")])
    assert public_texts(events) == ["Ann claims 9 at (2,1). Total 9."]
    assert _grid_lines(state) == [
        "[ 2  ] [ 7  ] [ 6  ]",
        "[9 P1] [ 5  ] [ 1  ]",
        "[ 4  ] [ 3  ] [ 8  ]",
    ]
    state, events = play(GAME, state, [(1, "8")])
    assert public_texts(events) == ["Bob claims 8 at (3,3). Total 8."]
    assert _grid_lines(state) == [
        "[ 2  ] [ 7  ] [ 6  ]",
        "[9 P1] [ 5  ] [ 1  ]",
        "[ 4  ] [ 3  ] [8 P2]",
    ]
    state, _ = play(GAME, state, [(0, "7")])
    assert GAME.view(state, None).totals == (16, 8)
    state, _ = play(GAME, state, [(1, "6")])
    assert GAME.view(state, None).totals == (16, 14)
    # The book skips turns 5-9; claiming the largest number left each turn gives its 25 to 20.
    state, events = play(GAME, state, [(i % 2, str(v)) for i, v in enumerate((5, 4, 3, 2, 1))])
    assert public_texts(events)[-2:] == ["Ann claims 1 at (2,3). Total 25.", "Ann wins: 25 to 20."]
    assert GAME.outcome(state) == Outcome(0, Reason.SCORE)
    assert drawn(GAME, state, 1)[3:] == ["Player 1: 25 · Player 2: 20"]


# --- computed fact (docs/rules.md) --------------------------------------------------------------


def test_claiming_the_largest_number_left_wins_against_every_reply() -> None:
    """Player 1 plays greedily; search every Player 2 strategy (memo: who holds which cell)."""
    memo: dict[tuple[int, ...], int] = {}

    def worst_margin(state: State) -> int:
        """Player 1's total minus Player 2's at the end, against Player 2's best replies."""
        view = GAME.view(state, None)
        if GAME.outcome(state) is not None:
            return view.totals[0] - view.totals[1]
        key = tuple(-1 if owner is None else owner for owner in view.owners)
        if key not in memo:
            (seat,) = GAME.to_act(state)
            legal = GAME.legal_actions(state, seat)
            choices = [max(legal)] if seat == 0 else legal
            memo[key] = min(worst_margin(GAME.apply(state, seat, a)[0]) for a in choices)
        return memo[key]

    assert worst_margin(GAME.new({}, seed=11)) > 0
    assert len(memo) <= 2**9


def test_size_4_equal_totals_are_a_draw() -> None:
    state = GAME.new({"size": 4}, seed=2)
    first = (16, 13, 12, 9, 8, 5, 4, 1)
    second = (15, 14, 11, 10, 7, 6, 3, 2)
    moves = [
        (seat, str(v)) for pair in zip(first, second, strict=True) for seat, v in enumerate(pair)
    ]
    state, events = play(GAME, state, moves)
    assert GAME.outcome(state) == Outcome(None, Reason.SCORE)
    assert public_texts(events)[-1] == "Draw: 68 to 68."
    assert drawn(GAME, state, None)[-1] == "Player 1: 68 · Player 2: 68"


# --- setup and options ---------------------------------------------------------------------


def test_new_shuffles_1_to_9_from_the_seed() -> None:
    grids = {GAME.new({}, seed).grid for seed in range(20)}
    assert all(sorted(grid) == list(range(1, 10)) for grid in grids)
    assert len(grids) > 1
    assert GAME.new({}, seed=4) == GAME.new({}, seed=4)
    assert sorted(GAME.new({"size": 4}, seed=4).grid) == list(range(1, 17))


def test_options_are_normalised() -> None:
    assert GAME.options(GAME.new({}, seed=1)) == {"size": 3, "hidden": False}
    assert GAME.options(GAME.new({"hidden": True, "size": 4}, seed=1)) == {
        "size": 4,
        "hidden": True,
    }


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"colour": "red"}, "'size' (3 or 4)"),
        ({"size": 5}, "3 or 4"),
        ({"size": 2}, "3 or 4"),
        ({"size": "4"}, "3 or 4"),
        ({"size": True}, "3 or 4"),
        ({"size": 3.0}, "3 or 4"),
        ({"hidden": "yes"}, "true or false"),
        ({"hidden": 1}, "true or false"),
    ],
)
def test_bad_options_are_refused(options: dict[str, object], says: str) -> None:
    with pytest.raises(InvalidOptions) as raised:
        GAME.new(options, seed=1)
    assert says in str(raised.value)


@pytest.mark.parametrize(
    ("grid", "options"),
    [
        (((1, 2, 3), (4, 5, 6)), {}),
        (((1, 2, 3), (4, 5, 6), (7, 8, 8)), {}),
        (((1, 2, 3), (4, 5, 6), (7, 8, 10)), {}),
        (BOOK_GRID, {"size": 4}),
    ],
)
def test_new_with_grid_refuses_a_bad_grid(
    grid: tuple[tuple[int, ...], ...], options: dict[str, object]
) -> None:
    with pytest.raises(InvalidOptions):
        new_with_grid(grid, options)


# --- claiming and bad input ----------------------------------------------------------------


@pytest.mark.parametrize("text", ["9", " 9 ", "claim 9", "CLAIM 9", "2 1", "2,1", "(2,1)", "2-1"])
def test_a_number_or_its_cell_claims_it(text: str) -> None:
    assert GAME.parse(_book_game(), 0, text) == ClaimNumber(9)


def test_legal_actions_are_the_unclaimed_numbers_in_order() -> None:
    state, _ = play(GAME, _book_game(), [(0, "5"), (1, "3 3")])
    assert GAME.legal_actions(state, 0) == tuple(ClaimNumber(v) for v in (1, 2, 3, 4, 6, 7, 9))
    assert GAME.legal_actions(state, 1) == ()
    assert GAME.ask(state, 0) is Ask.ACTION
    assert GAME.apply(state, 0, ClaimCell(1, 1))[0] == GAME.apply(state, 0, ClaimNumber(2))[0]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("4 1", "'4 1' is off the grid: rows and columns are 1-3, e.g. '2 3'."),
        ("0 2", "'0 2' is off the grid: rows and columns are 1-3, e.g. '2 3'."),
        ("10", "'10' is not on the grid: the numbers are 1-9."),
        ("0", "'0' is not on the grid: the numbers are 1-9."),
        ("abc", "cannot be read: claim a number 1-9"),
        ("", "cannot be read: claim a number 1-9"),
        ("1 2 3", "cannot be read: claim a number 1-9"),
        ("claim", "cannot be read: claim a number 1-9"),
    ],
)
def test_unreadable_text_is_invalid_input(text: str, says: str) -> None:
    error = refused(GAME, _book_game(), 0, text)
    assert isinstance(error, InvalidInput)
    assert says in str(error)


def test_refusals_leave_the_state_unchanged() -> None:
    state, _ = play(GAME, _book_game(), [(0, "9")])
    assert isinstance(refused(GAME, state, 0, "8"), NotYourTurn)
    taken = refused(GAME, state, 1, "9")
    assert isinstance(taken, IllegalAction)
    assert str(taken) == "9 is already claimed; unclaimed numbers: 1, 2, 3, 4, 5, 6, 7, 8."
    assert isinstance(refused(GAME, state, 1, "2 1"), IllegalAction)
    assert isinstance(refused(GAME, state, 1, ClaimNumber(10)), IllegalAction)
    assert isinstance(refused(GAME, state, 1, ClaimCell(4, 4)), IllegalAction)
    ended, _ = GAME.conclude(state, Outcome(0, Reason.TIMEOUT))
    assert isinstance(refused(GAME, ended, 1, "8"), GameOver)


def test_conclude_ends_the_game_once() -> None:
    state, _ = play(GAME, _book_game(), [(0, "9")])
    ended, events = GAME.conclude(state, Outcome(1, Reason.RESIGN))
    assert public_texts(events) == ["Bob wins: Ann resigned."]
    assert drawn(GAME, ended, 0)[-1] == "Player 1: 9 · Player 2: 0"
    with pytest.raises(GameOver):
        GAME.conclude(ended, Outcome(0, Reason.TIMEOUT))


# --- hidden numbers ------------------------------------------------------------------------


def test_hidden_numbers_are_claimed_by_cell_and_revealed_when_claimed() -> None:
    state = new_with_grid(BOOK_GRID, {"hidden": True})
    for viewer in (0, 1, None):
        assert _grid_lines(state, viewer) == ["[?] [?] [?]"] * 3
        assert GAME.view(state, viewer).grid == (None,) * 9
    assert GAME.legal_actions(state, 0)[:2] == (ClaimCell(1, 1), ClaimCell(1, 2))
    assert GAME.parse(state, 0, "(2,1)") == ClaimCell(2, 1)
    hidden = refused(GAME, state, 0, "9")
    assert isinstance(hidden, InvalidInput) and "claim a cell" in str(hidden)
    assert isinstance(refused(GAME, state, 0, ClaimNumber(9)), IllegalAction)
    state, events = play(GAME, state, [(0, "2 1"), (1, "1 2")])
    assert public_texts(events) == [
        "Ann claims (2,1): 9. Total 9.",
        "Bob claims (1,2): 7. Total 7.",
    ]
    assert _grid_lines(state) == [
        "[ ?  ] [7 P2] [ ?  ]",
        "[9 P1] [ ?  ] [ ?  ]",
        "[ ?  ] [ ?  ] [ ?  ]",
    ]
    assert GAME.view(state, 1).grid == (None, 7, None, 9, None, None, None, None, None)
    taken = refused(GAME, state, 0, "2 1")
    assert isinstance(taken, IllegalAction)
    assert str(taken).startswith("(2,1) is already claimed; unclaimed cells: (1,1), (1,3), (2,2)")
    ended, events = GAME.conclude(state, Outcome(0, Reason.TIMEOUT))
    assert [e.kind for e in events] == ["end", "reveal"]
    assert public_texts(events)[1] == "The grid was 2 7 6 / 9 5 1 / 4 3 8."
    assert events[1].data == {"grid": [list(row) for row in BOOK_GRID]}
    assert GAME.view(ended, None).grid == tuple(v for row in BOOK_GRID for v in row)


@settings(max_examples=100, deadline=None)
@given(
    seed=seeds,
    size=st.sampled_from((3, 4)),
    rng=st.randoms(use_true_random=False),
    claims=st.integers(min_value=0, max_value=15),
)
def test_hidden_numbers_do_not_leak(seed: int, size: int, rng: random.Random, claims: int) -> None:
    """Two grids that differ only in unclaimed cells look and behave the same to everyone."""
    a = GAME.new({"size": size, "hidden": True}, seed)
    order = list(range(size * size))
    rng.shuffle(order)
    for n in range(min(claims, size * size - 2)):
        row, col = divmod(order[n], size)
        a, _ = GAME.apply(a, n % 2, ClaimCell(row + 1, col + 1))
    claimed = set(a.claims)
    unclaimed = [i for i in range(size * size) if i not in claimed]
    values = [a.grid[i] for i in unclaimed]
    values.append(values.pop(0))  # every unclaimed number moves to another cell
    grid = list(a.grid)
    for i, v in zip(unclaimed, values, strict=True):
        grid[i] = v
    b = State(seed=a.seed, options=a.options, grid=tuple(grid), claims=a.claims)
    assert a.grid != b.grid
    (seat,) = GAME.to_act(a)
    assert_alike(GAME, a, b, (0, 1, None), seat)
    for text in ("9", "0 0", "x", "1 1", "2 2", "3 3", f"{size} {size}"):
        for who in (0, 1):
            assert answer(GAME, a, who, text) == answer(GAME, b, who, text)


# --- random play ---------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(
    seed=seeds,
    options=st.fixed_dictionaries({"size": st.sampled_from((3, 4)), "hidden": st.booleans()}),
    rng=st.randoms(use_true_random=False),
)
def test_random_play_round_trips_and_ends(
    seed: int, options: dict[str, object], rng: random.Random
) -> None:
    state = GAME.new(options, seed)
    cells = len(state.grid)
    for _ in range(cells):
        assert reloaded(GAME, state) == state
        (seat,) = GAME.to_act(state)
        legal = GAME.legal_actions(state, seat)
        assert list(legal) == sorted(legal)
        assert all(GAME.parse(state, seat, str(action)) == action for action in legal)
        state, events = GAME.apply(state, seat, rng.choice(legal))
        assert all(event.public for event in events)
    result = GAME.outcome(state)
    assert result is not None and result.reason is Reason.SCORE
    assert reloaded(GAME, state) == state
    totals = GAME.view(state, None).totals
    assert sum(totals) == cells * (cells + 1) // 2
    assert result.winner == (None if totals[0] == totals[1] else totals.index(max(totals)))
    if cells == 9:
        assert result.winner is not None  # 1-9 sum to 45: no tie
