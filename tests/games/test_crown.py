"""Capture the Crown: the rule book's game, docs/rules.md's rules and computed facts, secrecy."""

from __future__ import annotations

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
from games.crown import (
    CELLS,
    GAME,
    Attack,
    Cell,
    CrownState,
    HintAction,
    PlaceCrown,
    Relation,
    consistent_cells,
)
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


def placed(crown0: Cell, crown1: Cell, **options: str) -> CrownState:
    """A game in play: both Crowns placed."""
    state, _ = play(GAME, GAME.new(options, seed=7), [(0, _text(crown0)), (1, _text(crown1))])
    return state


def _text(cell: Cell) -> str:
    return f"{cell[0]} {cell[1]}"


def _relation(value: int, attacked: int) -> Relation:
    return "greater" if value > attacked else "less" if value < attacked else "equal"


# --- the rule book's example game ----------------------------------------------------------


def test_book_example_game() -> None:
    state = GAME.new({}, seed=1)
    state, setup = play(GAME, state, [(0, "3 3"), (1, "2 1")])
    assert GAME.to_act(state) == {0}
    state, events = play(GAME, state, [(0, "2 2")])
    assert public_texts(events) == ["Ann attacks (2,2): Miss."]
    assert GAME.to_act(state) == {1} and GAME.ask(state, 1) is Ask.HINT
    state, events = play(GAME, state, [(1, "column")])
    assert public_texts(events) == ["Bob's hint: the Crown's column is less than 2."]
    state, events = play(GAME, state, [(1, "1 3"), (0, "row")])
    assert public_texts(events) == [
        "Bob attacks (1,3): Miss.",
        "Ann's hint: the Crown's row is greater than 1.",
    ]
    before = state
    state, events = play(GAME, state, [(0, "2 1")])
    assert public_texts(events) == [
        "Ann attacks (2,1): Hit.",
        "Ann wins: Bob's Crown is captured at (2,1).",
        "Ann's Crown was at (3,3); Bob's Crown was at (2,1).",
    ]
    assert GAME.outcome(state) == Outcome(0, Reason.CAPTURE)
    assert GAME.to_act(state) == frozenset()
    assert public_texts(setup) == [
        "Ann has placed their Crown.",
        "Bob has placed their Crown.",
        "Both Crowns are placed. Ann attacks first.",
    ]
    assert drawn(GAME, state, None) == [
        "Player 1's Crown:",
        "[ ] [ ] [x]",
        "[ ] [ ] [ ]",
        "[ ] [ ] [C]",
        "Player 2's Crown:",
        "[ ] [ ] [ ]",
        "[X] [x] [ ]",
        "[ ] [ ] [ ]",
        "x miss, X captured, C Crown",
    ]
    # Before the capture, each grid marks what the hints given rule out.
    assert drawn(GAME, before, 1) == [
        "Your Crown:",
        "[ ] [-] [-]",
        "[C] [x] [-]",
        "[ ] [-] [-]",
        "Player 1's Crown:",
        "[-] [-] [x]",
        "[ ] [ ] [ ]",
        "[ ] [ ] [ ]",
        "x miss, C Crown, - ruled out by hints",
    ]


# --- options -------------------------------------------------------------------------------


def test_options_are_normalised() -> None:
    assert GAME.options(GAME.new({}, seed=0)) == {"hints": "defender"}
    assert GAME.options(GAME.new({"hints": "auto"}, seed=0)) == {"hints": "auto"}


@pytest.mark.parametrize("options", [{"hints": "never"}, {"hints": None}, {"size": 4}])
def test_bad_options_are_refused(options: dict[str, object]) -> None:
    with pytest.raises(InvalidOptions, match="hints"):
        GAME.new(options, seed=0)


# --- setup ---------------------------------------------------------------------------------


def test_both_players_place_a_crown_privately() -> None:
    state = GAME.new({}, seed=0)
    assert GAME.to_act(state) == {0, 1}
    assert all(GAME.ask(state, seat) is Ask.SECRET for seat in (0, 1))
    assert list(GAME.legal_actions(state, 1)) == [PlaceCrown(cell) for cell in CELLS]
    state, events = GAME.apply(state, 1, PlaceCrown((2, 3)))
    assert [(e.audience, e.render(NAMES)) for e in events] == [
        (None, "Bob has placed their Crown."),
        (1, "Your Crown is at (2,3)."),
    ]
    assert events[0].data == {"seat": 1}
    assert GAME.to_act(state) == {0}
    assert GAME.legal_actions(state, 1) == ()
    error = refused(GAME, state, 1, "1 1")
    assert isinstance(error, NotYourTurn) and str(error) == "You have already placed your Crown."


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        ("2 3", (2, 3)),
        ("2,3", (2, 3)),
        ("(2,3)", (2, 3)),
        (" 2-3 ", (2, 3)),
        ("23", (2, 3)),
        ("[1, 1]", (1, 1)),
        ("place 3 1", (3, 1)),
        ("ATTACK 1 2", (1, 2)),
        ("(3 , 3)", (3, 3)),
    ],
)
def test_cells_are_read_forgivingly(text: str, cell: Cell) -> None:
    state = GAME.new({}, seed=0)
    assert GAME.parse(state, 0, text) == PlaceCrown(cell)
    assert GAME.parse(placed((1, 1), (1, 1)), 0, text) == Attack(cell)


BAD_CELLS = ["", "   ", "4 1", "0 2", "1 4", "2", "2 3 1", "a b", "row", "-1 2", "123", "9" * 40]


@pytest.mark.parametrize("text", BAD_CELLS)
def test_unreadable_or_off_grid_cells_are_refused_on_every_cell_path(text: str) -> None:
    for state in (GAME.new({}, seed=0), placed((1, 1), (3, 3))):
        error = refused(GAME, state, 0, text)
        assert isinstance(error, InvalidInput)
        assert "1-3" in str(error) and "e.g. '2 3'" in str(error)


def test_off_grid_actions_are_refused() -> None:
    assert isinstance(refused(GAME, GAME.new({}, seed=0), 0, PlaceCrown((0, 1))), IllegalAction)
    assert isinstance(refused(GAME, placed((1, 1), (3, 3)), 0, Attack((4, 4))), IllegalAction)


def test_actions_of_the_wrong_phase_are_refused() -> None:
    assert isinstance(refused(GAME, GAME.new({}, seed=0), 0, Attack((1, 1))), IllegalAction)
    state = placed((1, 1), (3, 3))
    assert isinstance(refused(GAME, state, 0, PlaceCrown((2, 2))), IllegalAction)
    assert isinstance(refused(GAME, state, 0, HintAction("row", "less", 2)), IllegalAction)
    state, _ = play(GAME, state, [(0, "2 2")])
    assert isinstance(refused(GAME, state, 1, Attack((2, 2))), IllegalAction)


# --- play ----------------------------------------------------------------------------------


def test_only_the_player_to_act_may_act() -> None:
    state = placed((1, 1), (3, 3))
    assert GAME.to_act(state) == {0} and GAME.ask(state, 0) is Ask.ACTION
    error = refused(GAME, state, 1, "2 2")
    assert str(error) == "It is not your turn: the other player is to act."
    assert GAME.legal_actions(state, 1) == ()
    state, _ = play(GAME, state, [(0, "2 2")])
    error = refused(GAME, state, 0, "1 2")
    assert isinstance(error, NotYourTurn)
    assert str(error) == "It is not your turn: the other player is choosing a hint."
    assert GAME.legal_actions(state, 0) == ()
    state, _ = play(GAME, state, [(1, "row")])
    assert GAME.to_act(state) == {1} and GAME.ask(state, 1) is Ask.ACTION


def test_attacks_offered_are_the_cells_not_yet_attacked() -> None:
    state = placed((1, 1), (3, 3))
    assert list(GAME.legal_actions(state, 0)) == [Attack(cell) for cell in CELLS]
    state, _ = play(GAME, state, [(0, "2 2"), (1, "row"), (1, "3 3"), (0, "row")])
    assert list(GAME.legal_actions(state, 0)) == [Attack(c) for c in CELLS if c != (2, 2)]


def test_reattacking_a_cell_repeats_its_result_and_costs_no_turn() -> None:
    state, _ = play(GAME, placed((1, 1), (3, 3)), [(0, "2 2"), (1, "row"), (1, "3 3"), (0, "c")])
    error = refused(GAME, state, 0, "2 2")
    assert isinstance(error, IllegalAction)
    assert str(error) == (
        "You already attacked (2,2): Miss; the hint was: row is greater than 2. "
        "Choose a cell you have not attacked."
    )
    assert GAME.to_act(state) == {0}


@pytest.mark.parametrize(("crown", "attacked"), [(c, a) for c in CELLS for a in CELLS if c != a])
def test_defender_is_offered_exactly_the_two_true_hints(crown: Cell, attacked: Cell) -> None:
    state, _ = play(GAME, placed((1, 1), crown), [(0, _text(attacked))])
    row = HintAction("row", _relation(crown[0], attacked[0]), attacked[0])
    column = HintAction("column", _relation(crown[1], attacked[1]), attacked[1])
    assert list(GAME.legal_actions(state, 1)) == [column, row]
    for text in ("row", "r", " ROW ", "Row"):
        assert GAME.parse(state, 1, text) == row
    for text in ("column", "col", "c", "COLUMN"):
        assert GAME.parse(state, 1, text) == column
    assert str(row) == "row" and str(column) == "column"


def test_the_pending_hint_choice_is_only_in_the_defenders_view() -> None:
    state, _ = play(GAME, placed((1, 1), (3, 1)), [(0, "2 2")])
    choices = (HintAction("column", "less", 2), HintAction("row", "greater", 2))
    assert GAME.view(state, 1).hint_choices == choices
    assert GAME.view(state, 0).hint_choices == () == GAME.view(state, None).hint_choices
    assert GAME.view(state, 0).crowns == ((1, 1), None)
    assert GAME.view(state, None).crowns == (None, None)
    assert [GAME.word(hint) for hint in choices] == [
        "column is less than 2",
        "row is greater than 2",
    ]
    # The board shows the miss; what the pending hint will rule out is nobody's yet.
    for viewer in (None, 0, 1):
        assert "-" not in "\n".join(drawn(GAME, state, viewer))


def test_hint_words_and_false_hints_are_refused() -> None:
    state, _ = play(GAME, placed((1, 1), (3, 1)), [(0, "2 2")])
    for text in ("", "both", "2 2", "rows and columns"):
        error = refused(GAME, state, 1, text)
        assert isinstance(error, InvalidInput) and "'row' or 'column'" in str(error)
    error = refused(GAME, state, 1, HintAction("row", "less", 2))
    assert isinstance(error, IllegalAction)


def test_a_hit_ends_the_game_and_reveals_both_crowns() -> None:
    state, events = play(GAME, placed((1, 2), (3, 3)), [(0, "3 3")])
    assert GAME.outcome(state) == Outcome(0, Reason.CAPTURE)
    assert [e.kind for e in events] == ["attack", "end", "reveal"]
    assert all(e.public for e in events)
    assert events[2].data == {"crowns": [[1, 2], [3, 3]]}
    assert GAME.to_act(state) == frozenset()
    assert GAME.legal_actions(state, 0) == () == GAME.legal_actions(state, 1)
    for seat in (0, 1):
        assert isinstance(refused(GAME, state, seat, "1 1"), GameOver)
    with pytest.raises(GameOver):
        GAME.conclude(state, Outcome(1, Reason.RESIGN))
    assert GAME.view(state, None).crowns == ((1, 2), (3, 3))


def test_turns_alternate_after_each_miss_and_hint() -> None:
    moves = [(0, "1 1"), (1, "row"), (1, "1 1"), (0, "row"), (0, "1 2"), (1, "column")]
    state = placed((3, 3), (2, 2))
    seen = []
    for seat, text in moves:
        seen.append((sorted(GAME.to_act(state)), GAME.ask(state, seat)))
        state, _ = play(GAME, state, [(seat, text)])
    assert seen == [
        ([0], Ask.ACTION),
        ([1], Ask.HINT),
        ([1], Ask.ACTION),
        ([0], Ask.HINT),
        ([0], Ask.ACTION),
        ([1], Ask.HINT),
    ]
    assert GAME.to_act(state) == {1}


# --- the automatic hint --------------------------------------------------------------------


def _cells_left(history: list[tuple[Cell, HintAction]]) -> int:
    """Cells agreeing with every miss and hint: counted here without the engine's helper."""
    count = 0
    for cell in CELLS:
        agrees = all(
            cell != attacked
            and _relation(cell[0] if hint.axis == "row" else cell[1], hint.value) == hint.relation
            for attacked, hint in history
        )
        count += agrees
    return count


def _offered_hints(state: CrownState) -> tuple[HintAction, HintAction]:
    column, row = GAME.legal_actions(state, 1)
    assert isinstance(column, HintAction) and isinstance(row, HintAction)
    return column, row


@pytest.mark.parametrize("crown", CELLS)
def test_auto_hint_leaves_more_cells_with_ties_to_row(crown: Cell) -> None:
    for first, second in product(CELLS, repeat=2):
        if crown in (first, second) or first == second:
            continue
        state, _ = play(GAME, placed((1, 1), crown), [(0, _text(first))])
        hint = GAME.auto_hint(state)
        column, row = _offered_hints(state)
        expected = column if _cells_left([(first, column)]) > _cells_left([(first, row)]) else row
        assert hint == expected
        state, _ = play(GAME, state, [(1, str(hint)), (1, "3 3"), (0, "row"), (0, _text(second))])
        later = GAME.auto_hint(state)
        column, row = _offered_hints(state)
        left = {h: _cells_left([(first, hint), (second, h)]) for h in (column, row)}
        assert later == (column if left[column] > left[row] else row)


def test_auto_hint_with_no_hint_awaited_is_refused() -> None:
    with pytest.raises(IllegalAction, match="No hint is awaited"):
        GAME.auto_hint(placed((1, 1), (2, 2)))


def test_auto_mode_gives_the_hint_at_once_and_passes_the_turn() -> None:
    state = placed((3, 3), (1, 1), hints="auto")
    expected = GAME.auto_hint(play(GAME, placed((3, 3), (1, 1)), [(0, "2 2")])[0])
    state, events = play(GAME, state, [(0, "2 2")])
    assert [e.kind for e in events] == ["attack", "hint"]
    assert events[1].render(NAMES) == f"Bob's hint (automatic): the Crown's {expected.sentence}."
    assert events[1].data["automatic"] is True
    assert state.attacks[0][-1].hint == expected
    assert GAME.to_act(state) == {1} and GAME.ask(state, 1) is Ask.ACTION


# --- computed facts ------------------------------------------------------------------------


@cache
def attacks_needed(cells: frozenset[Cell]) -> int:
    """Attacks that find a Crown somewhere in ``cells`` against any hints (exhaustive minimax).

    A defender may switch its Crown to any cell agreeing with what it said, which is the
    same as facing every Crown and every hint policy at once.
    """
    if len(cells) == 1:
        return 1
    best = len(CELLS) + 1
    for attacked in CELLS:
        answers: dict[tuple[int, str], set[Cell]] = {}
        for cell in cells - {attacked}:
            for axis in (0, 1):
                answers.setdefault((axis, _relation(cell[axis], attacked[axis])), set()).add(cell)
        if any(len(left) == len(cells) for left in answers.values()):
            continue  # an answer that teaches nothing never shortens the search
        worst = max((1 + attacks_needed(frozenset(left)) for left in answers.values()), default=1)
        best = min(best, worst)
    return best


def minimax_attack(cells: frozenset[Cell]) -> Cell:
    """The first cell (in grid order) achieving ``attacks_needed(cells)``."""
    goal = attacks_needed(cells)
    for attacked in sorted(cells):
        rest = cells - {attacked}
        answers = [
            frozenset(c for c in rest if _relation(c[a], attacked[a]) == relation)
            for a in (0, 1)
            for relation in {_relation(x[a], attacked[a]) for x in rest}
        ]
        if all(1 + attacks_needed(left) <= goal for left in answers):
            return attacked
    raise AssertionError("no attack reaches the minimax value")


def test_four_attacks_are_needed_against_the_best_defender() -> None:
    assert attacks_needed(frozenset(CELLS)) == 4


def minimax_attacks_to_capture(crown: Cell, policy: tuple[str, ...]) -> int:
    """Attacks the minimax attacker (seat 0) makes, through the engine, to capture ``crown``.

    Seat 1 answers each miss with the next hint of ``policy``; in between it attacks cells
    away from seat 0's Crown, and seat 0 always answers with the row hint.
    """
    state = placed((1, 1), crown)
    hints = iter(policy)
    bob_attacks = iter(_text(cell) for cell in reversed(CELLS) if cell != (1, 1))
    while GAME.outcome(state) is None:
        attack = minimax_attack(consistent_cells(state.attacks[0]))
        state, _ = play(GAME, state, [(0, _text(attack))])
        if GAME.outcome(state) is None:
            state, _ = play(GAME, state, [(1, next(hints)), (1, next(bob_attacks)), (0, "row")])
    assert GAME.outcome(state) == Outcome(0, Reason.CAPTURE)
    return len(state.attacks[0])


def test_minimax_attacker_finds_every_crown_in_four_whatever_the_hints() -> None:
    """Every Crown, against every choice of hint after each of the first three misses."""
    counts = [
        minimax_attacks_to_capture(crown, (*policy, "row", "row", "row"))
        for crown in CELLS
        for policy in product(("row", "column"), repeat=3)
    ]
    assert max(counts) == 4


# --- dump, load, conclude ------------------------------------------------------------------


def test_dump_and_load_round_trip_at_every_step_of_the_book_game() -> None:
    state = GAME.new({"hints": "defender"}, seed=99)
    steps = [(0, "3 3"), (1, "2 1"), (0, "2 2"), (1, "column"), (1, "1 3"), (0, "row"), (0, "2 1")]
    for seat, text in steps:
        assert reloaded(GAME, state) == state
        state, _ = play(GAME, state, [(seat, text)])
    assert reloaded(GAME, state) == state


@pytest.mark.parametrize("reason", [Reason.RESIGN, Reason.TIMEOUT])
def test_conclude_ends_a_running_game_with_a_reveal(reason: Reason) -> None:
    state, _ = play(GAME, placed((1, 2), (2, 3)), [(0, "2 2")])
    ended, events = GAME.conclude(state, Outcome(0, reason))
    assert GAME.outcome(ended) == Outcome(0, reason)
    assert GAME.to_act(ended) == frozenset()
    assert [(e.kind, e.public) for e in events] == [("end", True), ("reveal", True)]
    assert events[1].data == {"crowns": [[1, 2], [2, 3]]}
    assert GAME.view(ended, 0).crowns == ((1, 2), (2, 3))
    assert GAME.view(ended, 0).hint_choices == ()


def test_conclude_during_setup_reveals_what_was_placed() -> None:
    state, _ = play(GAME, GAME.new({}, seed=0), [(1, "2 2")])
    _, events = GAME.conclude(state, Outcome(None, Reason.TIMEOUT))
    assert public_texts(events)[-1] == "Ann had not placed a Crown; Bob's Crown was at (2,2)."


# --- secrecy -------------------------------------------------------------------------------

JUNK = ["1 1", "2 2", "3 3", "row", "column", "4 4", "zz", ""]


def _assert_same_to_seat0_and_public(a: CrownState, b: CrownState) -> None:
    assert_alike(GAME, a, b, (None, 0), 0)
    for text in JUNK:
        assert answer(GAME, a, 0, text) == answer(GAME, b, 0, text)


@settings(max_examples=150, deadline=None)
@given(
    crown0=st.sampled_from(CELLS),
    crowns1=st.lists(st.sampled_from(CELLS), min_size=2, max_size=2, unique=True),
    choices=st.lists(st.tuples(st.integers(0, 8), st.sampled_from(["row", "column"])), max_size=12),
    auto=st.booleans(),
    seed=seeds,
)
def test_player_1s_crown_never_reaches_player_0_or_the_public(
    crown0: Cell,
    crowns1: list[Cell],
    choices: list[tuple[int, str]],
    auto: bool,
    seed: int,
) -> None:
    """Two games differing only in seat 1's Crown look the same to seat 0 and the public.

    They are played in lockstep while their public histories agree (the same hit or miss, the
    same hint); from the first public difference on, the Crowns may rightly be told apart.
    """
    options = {"hints": "auto" if auto else "defender"}
    worlds = [GAME.new(options, seed) for _ in crowns1]
    worlds = [play(GAME, w, [(0, _text(crown0))])[0] for w in worlds]
    _assert_same_to_seat0_and_public(worlds[0], worlds[1])
    worlds = [play(GAME, w, [(1, _text(c))])[0] for w, c in zip(worlds, crowns1, strict=True)]
    for pick, axis in choices:
        _assert_same_to_seat0_and_public(worlds[0], worlds[1])
        (seat,) = GAME.to_act(worlds[0])
        moves = []
        for world in worlds:
            if GAME.ask(world, seat) is Ask.HINT:
                action = GAME.parse(world, seat, axis)
            else:
                legal = GAME.legal_actions(world, seat)
                action = legal[pick % len(legal)]
            moves.append(GAME.apply(world, seat, action))
        (_, events_a), (_, events_b) = moves
        differing = [event.kind for event in public_differences(events_a, events_b)]
        ended = GAME.outcome(moves[0][0]) is not None or GAME.outcome(moves[1][0]) is not None
        if differing or ended:
            # A hit, a hint in other words, or the reveal at the end rightly tells the two
            # Crowns apart: nothing is secret from here on.
            first = differing[0] if differing else "reveal"
            assert first in ("attack", "hint") or (first == "reveal" and ended)
            return
        assert public_texts(events_a) == public_texts(events_b)
        assert [e for e in events_a if e.audience == 0] == [e for e in events_b if e.audience == 0]
        worlds = [world for world, _ in moves]
    _assert_same_to_seat0_and_public(worlds[0], worlds[1])
