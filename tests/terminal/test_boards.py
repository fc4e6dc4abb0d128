"""Text boards: numbered rows and columns in line with the cells, and only what the view holds."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

from bot.terminal.boards import board, grid_lines
from bot.terminal.names import Names
from games import GAMES, claim
from games.base import AnyGame

NAMED = Names(("Alice", "Bob"))


def play_out(game: AnyGame, state: Any, answers: list[tuple[int, str]]) -> Any:
    for seat, text in answers:
        state, _ = game.apply(state, seat, game.parse(state, seat, text))
    return state


def cell_spans(rule: str) -> list[tuple[int, int]]:
    """Where each column's cells are, from the grid's ``+---+---+`` rule: (first, last + 1)."""
    corners = [index for index, char in enumerate(rule) if char == "+"]
    return [(a + 1, b) for a, b in itertools.pairwise(corners)]


@pytest.mark.parametrize("size", [3, 4, 5, 10])
@pytest.mark.parametrize("widest", ["", "C", "16 X", "*A*B"])
def test_column_numbers_stand_over_their_cells(size: int, widest: str) -> None:
    marks = [
        [widest if (row, col) == (1, size) else "" for col in range(1, size + 1)]
        for row in range(1, size + 1)
    ]

    header, rule, *rows, bottom = grid_lines(marks)

    assert rule == bottom
    assert {len(row) for row in rows} == {len(rule)}
    for col, (first, end) in enumerate(cell_spans(rule), start=1):
        assert header[first:end].strip() == str(col)
    for number, row in enumerate(rows, start=1):
        assert re.match(rf" *{number} \|", row)
        assert row.index("|") == rule.index("+")


def test_claimed_numbers_keep_their_value_beside_the_owners_mark() -> None:
    game = GAMES["claim"]
    state = claim.new_with_grid([[8, 1, 6], [3, 5, 7], [4, 9, 2]])
    state = play_out(game, state, [(0, "9"), (1, "8")])

    text = board(game, game.view(state, None), NAMED)

    assert "1 | 8 B |  1  |  6  |" in text
    assert "3 |  4  | 9 A |  2  |" in text
    assert "A Alice   B Bob\nAlice: 9 · Bob: 8" in text


def test_hidden_numbers_show_once_claimed() -> None:
    game = GAMES["claim"]
    state = claim.new_with_grid([[8, 1, 6], [3, 5, 7], [4, 9, 2]], {"hidden": True})
    state = play_out(game, state, [(0, "3 2")])

    text = board(game, game.view(state, None), NAMED)

    assert "3 |  ?  | 9 A |  ?  |" in text


def test_a_crown_shows_on_its_owners_board_only() -> None:
    game = GAMES["crown"]
    state = play_out(game, game.new({}, 0), [(0, "3 3"), (1, "2 1"), (0, "2 2"), (1, "column")])

    own = board(game, game.view(state, 0), NAMED)
    public = board(game, game.view(state, None), NAMED)
    others = board(game, game.view(state, 1), NAMED)

    assert own.splitlines()[0].split() == ["Your", "Crown", "Bob's", "Crown"]
    assert "3 |   |   | C |" in own
    assert "| C |" not in public
    assert "3 |   |   | C |" not in others
    assert "2 | C | x | - |" in others  # Bob's own Crown, Alice's miss, what the hint rules out
    assert "2 |   | x | - |" in public  # what Bob's hint rules out, for everyone
    assert "x miss   - ruled out by hints" in public


def test_traps_show_on_their_owners_board_only() -> None:
    game = GAMES["flag"]
    state = play_out(game, game.new({}, 0), [(0, "TRAP 3 4"), (1, "TRAP 2 2")])

    alice = board(game, game.view(state, 0), NAMED)
    bob = board(game, game.view(state, 1), NAMED)
    public = board(game, game.view(state, None), NAMED)

    assert "| *A |" in alice and "Your traps: (3,4)." in alice
    assert "*A" not in bob and "*A" not in public and "(3,4)" not in bob + public
    assert "| *B |" in bob and "Your traps: (2,2)." in bob
    assert "*B" not in alice and "*B" not in public and "(2,2)" not in alice + public
    assert "Alice: 1 trap left" in public and "* trap" not in public


def test_a_code_shows_on_its_owners_board_only() -> None:
    game = GAMES["safe"]
    state = play_out(game, game.new({}, 0), [(0, "213"), (1, "331"), (0, "111")])

    alice = board(game, game.view(state, 0), NAMED)
    public = board(game, game.view(state, None), NAMED)

    assert "Your code: 2-1-3" in alice and "3-3-1" not in alice
    assert "code:" not in public
    assert public.splitlines() == [
        "Alice's guesses         Bob's guesses",
        "1 1 1  1 exact match    (none yet)",
        "Codes: 3 digits, each 1-3",
    ]


def test_crystals_show_who_took_them() -> None:
    game = GAMES["crystal"]
    state = play_out(game, game.new({}, 0), [(0, "8"), (1, "7"), (0, "6")])

    assert board(game, game.view(state, None), NAMED).splitlines() == [
        "Crystals (exactly 15 wins)",
        "1   2   3",
        "4   5   6 A",
        "7 B 8 A 9",
        "A Alice   B Bob",
        "Alice: 14 points",
        "Bob: 7 points",
    ]


def test_a_guess_limit_is_worded_in_the_plural() -> None:
    game = GAMES["safe"]

    head = board(game, game.view(game.new({"max_guesses": 4}, 0), None), NAMED).splitlines()[0]

    assert head == "Alice's guesses    Bob's guesses"
    lines = board(game, game.view(game.new({"max_guesses": 4}, 0), None), NAMED).splitlines()
    assert lines[-2:] == ["Codes: 3 digits, each 1-3", "Guesses: 4 each"]
