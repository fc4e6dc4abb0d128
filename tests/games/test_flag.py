"""Flag Chase: the rule book's game, docs/rules.md's rules, secrecy of traps, bad input."""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import (
    SEATS,
    Ask,
    Event,
    GameOver,
    IllegalAction,
    InvalidInput,
    InvalidOptions,
    NotYourTurn,
    Outcome,
    Reason,
    Seat,
    other,
)
from games.flag import (
    ACTION_LIMIT,
    FLAGS,
    GAME,
    SIZE,
    Cell,
    Move,
    State,
    Trap,
    Triggered,
)
from games.grid import cells
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

CELLS: tuple[Cell, ...] = cells(SIZE)


def _private_texts(events: list[Event], seat: Seat) -> list[str]:
    return [event.text for event in events if event.audience == seat]


def test_book_example_game() -> None:
    """The book's turns are all legal; docs/rules.md fixes its trap count (traps not yet placed)."""
    state = GAME.new({}, seed=9)
    assert GAME.view(state, None).traps_left == (2, 2)
    state, events = play(GAME, state, [(0, "MOVE 2 2")])
    assert public_texts(events) == ["Ann moves to (2,2)."]
    state, events = play(GAME, state, [(1, "TRAP 3 3")])
    assert public_texts(events) == ["Bob placed a trap (1 left)."]
    assert _private_texts(events, 1) == ["Trap placed at (3,3)."]
    assert _private_texts(events, 0) == []
    assert GAME.view(state, 0).traps == ((), None)
    assert GAME.view(state, 1).traps == (None, ((3, 3),))
    state, events = play(GAME, state, [(0, "TRAP 4 4")])
    assert public_texts(events) == ["Ann placed a trap (1 left)."]
    state, events = play(GAME, state, [(1, "MOVE 4 4")])
    assert public_texts(events) == [
        "Bob moves to (4,4).",
        "Trap triggered at (4,4)! Bob's agent returns to their flag at (5,5).",
    ]
    view = GAME.view(state, None)
    assert view.agents == ((2, 2), (5, 5))
    assert view.triggered == (Triggered(0, (4, 4)),)
    assert view.traps_left == (1, 1)  # the book's "2 remaining" is the slip docs/rules.md fixes
    state, events = play(GAME, state, [(0, "MOVE 3 3")])
    assert public_texts(events) == [
        "Ann moves to (3,3).",
        "Trap triggered at (3,3)! Ann's agent returns to their flag at (1,1).",
    ]
    assert GAME.view(state, None).agents == ((1, 1), (5, 5))
    assert GAME.view(state, 0).traps_left[0] == 1
    state, events = play(GAME, state, [(1, "TRAP 2 2")])
    assert public_texts(events) == ["Bob placed a trap (0 left)."]
    view = GAME.view(state, 1)
    assert view.traps == (None, ((2, 2),)) and view.traps_left == (1, 0)
    assert view.actions == 6 and view.to_act == 0
    assert drawn(GAME, state, 1) == [
        "[A1] [  ] [  ] [  ] [  ]",
        "[  ] [T2] [  ] [  ] [  ]",
        "[  ] [  ] [* ] [  ] [  ]",
        "[  ] [  ] [  ] [* ] [  ]",
        "[  ] [  ] [  ] [  ] [A2]",
        "T trap, * trap went off",
        "Player 1: 1 trap left",
        "Player 2: 0 traps left",
        "Your traps: (2,2).",
        "Actions: 6 of 200",
    ]
    assert "T2" not in "\n".join(drawn(GAME, state, 0))
    assert "T2" not in "\n".join(drawn(GAME, state, None))


def test_moving_onto_the_opponents_flag_wins_and_reveals_the_traps() -> None:
    moves = ["MOVE 2 2", "MOVE 4 5", "TRAP 3 1", "MOVE 3 5", "MOVE 3 3", "MOVE 2 5", "MOVE 4 4"]
    state, _ = play(GAME, GAME.new({}, seed=1), [(n % 2, text) for n, text in enumerate(moves)])
    state, events = play(GAME, state, [(1, "MOVE 1 4"), (0, "MOVE 5 5")])
    assert GAME.outcome(state) == Outcome(0, Reason.CAPTURE)
    assert public_texts(events)[-3:] == [
        "Ann moves to (5,5).",
        "Ann captures the flag at (5,5) and wins!",
        "Ann's hidden traps: (3,1); Bob's hidden traps: none.",
    ]
    assert events[-1].kind == "reveal" and events[-1].data == {"traps": [[[3, 1]], []]}
    assert GAME.view(state, 1).traps == (((3, 1),), ())
    assert "[T1]" in "\n".join(drawn(GAME, state, None))
    assert isinstance(refused(GAME, state, 1, "MOVE 1 3"), GameOver)


# --- movement ------------------------------------------------------------------------------


@pytest.mark.parametrize("here", CELLS)
def test_an_agent_moves_to_any_adjacent_cell_on_the_grid(here: Cell) -> None:
    state = State(seed=0, agents=(here, (5, 5) if here != (5, 5) else (1, 1)))
    moves = {(a.row, a.col) for a in GAME.legal_actions(state, 0) if isinstance(a, Move)}
    around = {
        (here[0] + dr, here[1] + dc)
        for dr, dc in product((-1, 0, 1), repeat=2)
        if (dr, dc) != (0, 0)
        and 1 <= here[0] + dr <= SIZE
        and 1 <= here[1] + dc <= SIZE
        and (here[0] + dr, here[1] + dc) != state.agents[1]
    }
    assert moves == around


def test_an_agent_may_not_step_on_the_other_agent_but_may_cross_its_own_trap() -> None:
    state, _ = play(GAME, GAME.new({}, seed=1), [(0, "TRAP 1 2"), (1, "MOVE 4 4")])
    state, _ = play(GAME, state, [(0, "MOVE 2 2"), (1, "MOVE 3 3")])
    assert Move(3, 3) not in GAME.legal_actions(state, 0)
    assert Move(1, 2) in GAME.legal_actions(state, 0)
    onto_agent = refused(GAME, state, 0, "MOVE 3 3")
    assert isinstance(onto_agent, IllegalAction) and "other agent" in str(onto_agent)
    far = refused(GAME, state, 0, "MOVE 4 4")
    assert str(far).startswith("(4,4) is not next to your agent at (2,2): it can move to (1,1),")
    assert "(1,2)" in str(far)  # the own trap's cell is listed like any other
    assert isinstance(refused(GAME, state, 0, "MOVE 2 2"), IllegalAction)
    assert isinstance(refused(GAME, state, 0, Move(0, 1)), IllegalAction)
    state, events = play(GAME, state, [(0, "MOVE 1 2")])
    assert public_texts(events) == ["Ann moves to (1,2)."]  # nothing goes off, nothing is told
    assert state.traps[0] == ((1, 2),) and state.agents[0] == (1, 2)


def test_stepping_on_a_hidden_trap_is_legal_and_springs_it() -> None:
    state, _ = play(GAME, GAME.new({}, seed=1), [(0, "TRAP 4 4")])
    assert Move(4, 4) in GAME.legal_actions(state, 1)
    state, events = play(GAME, state, [(1, "MOVE 4 4")])
    assert [e.kind for e in events] == ["move", "trap_triggered"]
    assert events[1].data == {"seat": 1, "owner": 0, "row": 4, "col": 4}
    view = GAME.view(state, 0)
    assert view.agents[1] == (5, 5) and view.traps == ((), None)
    # A triggered trap does not come back: one left to place.
    assert view.traps_left == (1, 2)


# --- traps ---------------------------------------------------------------------------------


def test_trap_cells_exclude_flags_agents_and_own_traps() -> None:
    state, _ = play(GAME, GAME.new({}, seed=1), [(0, "MOVE 2 2"), (1, "TRAP 3 3"), (0, "TRAP 3 4")])
    traps = {(a.row, a.col) for a in GAME.legal_actions(state, 1) if isinstance(a, Trap)}
    assert traps == set(CELLS) - {(1, 1), (5, 5), (2, 2), (3, 3)}
    assert (3, 4) in traps  # the opponent's hidden trap is no obstacle
    for text, says in [
        ("TRAP 1 1", "(1,1) holds a flag: traps may not go on a flag."),
        ("TRAP 5 5", "(5,5) holds a flag: traps may not go on a flag."),
        ("TRAP 2 2", "An agent is at (2,2): traps may not go under an agent."),
        ("TRAP 3 3", "You already have a trap at (3,3)."),
    ]:
        error = refused(GAME, state, 1, text)
        assert isinstance(error, IllegalAction) and str(error) == says
    assert isinstance(refused(GAME, state, 1, Trap(6, 6)), IllegalAction)


def test_both_players_traps_may_share_a_cell() -> None:
    state, events = play(GAME, GAME.new({}, seed=1), [(0, "TRAP 3 3"), (1, "TRAP 3 3")])
    assert public_texts(events) == ["Ann placed a trap (1 left).", "Bob placed a trap (1 left)."]
    assert GAME.view(state, 0).traps[0] == ((3, 3),)
    assert GAME.view(state, 1).traps[1] == ((3, 3),)
    ended, _ = GAME.conclude(state, Outcome(1, Reason.RESIGN))
    assert "[TT]" in "\n".join(drawn(GAME, ended, None))


def test_two_traps_per_player_per_match() -> None:
    moves = [(0, "TRAP 2 3"), (1, "TRAP 4 3"), (0, "TRAP 3 2"), (1, "MOVE 4 4")]
    state, _ = play(GAME, GAME.new({}, seed=1), moves)
    assert GAME.view(state, None).traps_left == (0, 1)
    assert not any(isinstance(a, Trap) for a in GAME.legal_actions(state, 0))
    error = refused(GAME, state, 0, "TRAP 4 1")
    assert str(error) == "You have placed both your traps: move your agent instead."


# --- passes and draws ----------------------------------------------------------------------


def test_a_player_walled_in_by_their_own_traps_still_moves_and_nothing_is_told() -> None:
    """A pass would tell where the passing player's traps are: there is never one."""
    moves = ["TRAP 1 2", "MOVE 4 4", "TRAP 2 1", "MOVE 3 3", "MOVE 2 2", "MOVE 3 2", "MOVE 1 1"]
    state, _ = play(GAME, GAME.new({}, seed=1), [(n % 2, text) for n, text in enumerate(moves)])
    # Player 1 sits in the corner behind both their traps; Player 2 now closes the last gap.
    state, events = play(GAME, state, [(1, "MOVE 2 2")])
    assert public_texts(events) == ["Bob moves to (2,2)."]
    assert GAME.to_act(state) == {0}
    assert {str(a) for a in GAME.legal_actions(state, 0)} == {"MOVE 1 2", "MOVE 2 1"}


def test_no_moves_draw_cannot_arise_on_a_5x5_grid() -> None:
    """For every placement of the agents, with each player's traps walling in their own agent
    where two traps can, at least one player still has a legal action."""
    for here, there in product(CELLS, repeat=2):
        if here == there or here == FLAGS[1] or there == FLAGS[0]:
            continue
        agents = (here, there)
        walls = tuple(_walling_traps(agents, seat) for seat in SEATS)
        spent = tuple(
            Triggered(seat, (3, 3)) for seat in SEATS for _ in range(2 - len(walls[seat]))
        )
        state = State(seed=0, agents=agents, traps=(walls[0], walls[1]), triggered=spent)
        assert any(GAME.legal_actions(replace(state, turn=seat), seat) for seat in SEATS)


def _walling_traps(agents: tuple[Cell, Cell], seat: Seat) -> tuple[Cell, ...]:
    """The cells around ``seat``'s agent left free by the other agent, if two traps cover them."""
    row, col = agents[seat]
    free = tuple(
        (r, c)
        for r, c in CELLS
        if max(abs(r - row), abs(c - col)) == 1 and (r, c) not in (agents[other(seat)], *FLAGS)
    )
    return free if len(free) <= 2 else ()


def test_200_actions_end_in_a_draw() -> None:
    state = GAME.new({}, seed=1)
    shuttle = {0: ("MOVE 1 2", "MOVE 1 1"), 1: ("MOVE 5 4", "MOVE 5 5")}
    for n in range(ACTION_LIMIT - 1):
        seat = n % 2
        state, _ = play(GAME, state, [(seat, shuttle[seat][(n // 2) % 2])])
    assert GAME.outcome(state) is None and GAME.view(state, None).actions == ACTION_LIMIT - 1
    state, events = play(GAME, state, [(1, "TRAP 3 3")])
    assert GAME.outcome(state) == Outcome(None, Reason.MOVE_LIMIT)
    assert public_texts(events)[1:] == [
        "Draw: 200 actions played without a capture.",
        "Ann's hidden traps: none; Bob's hidden traps: (3,3).",
    ]


# --- text, options, lifecycle --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("MOVE 2 2", Move(2, 2)),
        ("move 2 2", Move(2, 2)),
        (" Move (2,2) ", Move(2, 2)),
        ("move 2,2", Move(2, 2)),
        ("2 2", Move(2, 2)),
        ("(2,2)", Move(2, 2)),
        ("TRAP 3 4", Trap(3, 4)),
        ("trap 3-4", Trap(3, 4)),
        ("Trap(3, 4)", Trap(3, 4)),
    ],
)
def test_parse_reads_the_rule_books_commands_forgivingly(text: str, action: Move | Trap) -> None:
    assert GAME.parse(GAME.new({}, seed=0), 0, text) == action


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("MOVE 6 1", "'MOVE 6 1' is off the grid: rows and columns are 1-5, e.g. 'MOVE 2 2'."),
        ("trap 0 3", "'trap 0 3' is off the grid: rows and columns are 1-5, e.g. 'MOVE 2 2'."),
        ("jump 2 2", "cannot be read: type 'MOVE r c' or 'TRAP r c'"),
        ("MOVE 2", "cannot be read: type 'MOVE r c' or 'TRAP r c'"),
        ("MOVE", "cannot be read: type 'MOVE r c' or 'TRAP r c'"),
        ("", "cannot be read: type 'MOVE r c' or 'TRAP r c'"),
        ("MOVE 2 2 2", "cannot be read: type 'MOVE r c' or 'TRAP r c'"),
    ],
)
def test_unreadable_text_is_invalid_input(text: str, says: str) -> None:
    error = refused(GAME, GAME.new({}, seed=0), 0, text)
    assert isinstance(error, InvalidInput) and says in str(error)


def test_turns_options_and_conclude() -> None:
    state = GAME.new({}, seed=0)
    assert GAME.options(state) == {} and GAME.ask(state, 0) is Ask.ACTION
    assert GAME.to_act(state) == {0} and GAME.legal_actions(state, 1) == ()
    assert isinstance(refused(GAME, state, 1, "MOVE 4 4"), NotYourTurn)
    with pytest.raises(InvalidOptions, match="no options"):
        GAME.new({"size": 6}, seed=0)
    state, _ = play(GAME, state, [(0, "TRAP 2 4")])
    ended, events = GAME.conclude(state, Outcome(0, Reason.TIMEOUT))
    assert public_texts(events) == [
        "Ann wins: Bob ran out of time.",
        "Ann's hidden traps: (2,4); Bob's hidden traps: none.",
    ]
    assert GAME.view(ended, 1).traps == (((2, 4),), ())
    with pytest.raises(GameOver):
        GAME.conclude(ended, Outcome(1, Reason.RESIGN))


# --- secrecy -------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(data=st.data(), secret=st.sampled_from(SEATS))
def test_trap_cells_do_not_leak(data: st.DataObject, secret: Seat) -> None:
    """Two games that differ only in where ``secret`` put its traps look and behave the same to
    the opponent and the public, until one of those traps is triggered."""
    rival = other(secret)
    a = b = GAME.new({}, seed=0)
    for _ in range(data.draw(st.integers(min_value=0, max_value=40), label="steps")):
        _assert_same_to(rival, a, b)
        (seat,) = GAME.to_act(a)
        legal_a, legal_b = GAME.legal_actions(a, seat), GAME.legal_actions(b, seat)
        shared = sorted(set(legal_a) & set(legal_b))
        traps_a = [x for x in legal_a if isinstance(x, Trap)]
        traps_b = [x for x in legal_b if isinstance(x, Trap)]
        action_a: Move | Trap
        action_b: Move | Trap
        if seat == secret and traps_a and data.draw(st.booleans(), label="place a trap"):
            action_a = data.draw(st.sampled_from(traps_a), label="trap in a")
            action_b = data.draw(st.sampled_from(traps_b), label="trap in b")
        elif shared:
            action_a = action_b = data.draw(st.sampled_from(shared), label="action")
        else:
            return
        a, events_a = GAME.apply(a, seat, action_a)
        b, events_b = GAME.apply(b, seat, action_b)
        if any(e.kind == "trap_triggered" for e in (*events_a, *events_b)):
            return
        # The closing reveal names every trap by design; everything said before it must match.
        said_a = [e for e in events_a if e.public and e.kind != "reveal"]
        said_b = [e for e in events_b if e.public and e.kind != "reveal"]
        assert public_texts(said_a) == public_texts(said_b)
        assert [e.data for e in said_a] == [e.data for e in said_b]
        if GAME.outcome(a) is not None:
            assert GAME.outcome(a) == GAME.outcome(b)
            return
    _assert_same_to(rival, a, b)


def _assert_same_to(rival: Seat, a: State, b: State) -> None:
    assert_alike(GAME, a, b, (rival, None), rival)
    if GAME.to_act(a) == {rival}:
        # Whatever the rival tries is accepted or refused alike, with the same words.
        for verb, (row, col) in product(("MOVE", "TRAP"), CELLS):
            text = f"{verb} {row} {col}"
            assert answer(GAME, a, rival, text) == answer(GAME, b, rival, text)


# --- random play ---------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(seed=seeds, rng=st.randoms(use_true_random=False))
def test_random_play_round_trips_and_ends_within_the_action_limit(
    seed: int, rng: random.Random
) -> None:
    state = GAME.new({}, seed)
    for _ in range(ACTION_LIMIT):
        if GAME.outcome(state) is not None:
            break
        assert reloaded(GAME, state) == state
        (seat,) = GAME.to_act(state)
        legal = GAME.legal_actions(state, seat)
        assert all(GAME.parse(state, seat, str(action)) == action for action in legal)
        state, events = GAME.apply(state, seat, rng.choice(legal))
        placed = [e for e in events if e.kind == "trap"]
        assert [e.audience for e in placed] in ([], [None, seat])
        assert all(set(e.data) == {"seat", "left"} for e in placed if e.public)
        assert all(0 <= left <= 2 for left in GAME.view(state, None).traps_left)
    assert GAME.outcome(state) is not None
    assert GAME.view(state, None).actions <= ACTION_LIMIT
    assert reloaded(GAME, state) == state
    assert GAME.view(state, 0).traps == GAME.view(state, 1).traps == state.traps
