"""Two people at one terminal: each player's secrets stay on their own screens.

Each game runs as ``parlor play --names Alice Bob`` on a pseudo-terminal. A player's secret may
show only on screens that ask that player something (their private screens, reached through a
hand-over), and on the final screen.
"""

from __future__ import annotations

from tests.terminal.pty_play import CTRL_C, CTRL_D, Script, run_parlor
from tests.terminal.screens import (
    assert_ends_with,
    assert_handed_over,
    assert_kept_from_others,
    assert_shown_to,
)

NAMES = ("Alice", "Bob")
PLAYERS = ["--names", *NAMES]


def test_crown_places_hints_and_refusals_stay_with_their_player() -> None:
    script = Script(
        {
            "Alice, place your Crown": ["4 4", "3 3"],
            "Bob, place your Crown": ["2 1"],
            "Alice, enter attack": ["help", "2 2", "2 1"],
            "Bob, choose a hint": ["column"],
            "Bob, enter attack": ["1 3"],
            "Alice, choose a hint": ["row"],
        }
    )

    run = run_parlor(["play", "crown", *PLAYERS], script)

    assert run.status == 0, run.output
    assert_handed_over(run, NAMES)
    # Crowns, the hint not given, and a refusal quoting the Crown typed unseen.
    assert_kept_from_others(run, "Alice", ["(3,3)", "'4 4'", "column is equal to 3"])
    assert_kept_from_others(run, "Bob", ["(2,1)", "row is equal to 2"])
    assert "3 3" not in run.output and "4 4" not in run.output.replace("'4 4'", "")
    assert_shown_to(run, "Alice", "'4 4' is off the grid")
    assert_shown_to(run, "Alice", "Your Crown is at (3,3).")
    assert_shown_to(run, "Alice", "3 |   |   | C |")
    assert_shown_to(run, "Bob", "or row (row is equal to 2): column")
    assert_shown_to(run, "Alice", "Attacking a cell twice is refused")
    assert "is not a cell" not in run.output
    assert "it's your turn" not in run.output
    assert_ends_with(run, "Alice (Player 1) wins the game!")
    final = run.screens[-1].text
    assert "Alice's Crown was at (3,3); Bob's Crown was at (2,1)." in final


def test_safe_codes_and_a_refused_code_stay_with_their_player() -> None:
    script = Script(
        {
            "Alice, set your code": ["1234", "322"],
            "Bob, set your code": ["131"],
            "Alice, enter your guess": ["111", "121", "131"],
            "Bob, enter your guess": ["123", "222"],
        }
    )

    run = run_parlor(["play", "safe", *PLAYERS], script)

    assert run.status == 0, run.output
    assert_handed_over(run, NAMES)
    assert_kept_from_others(run, "Alice", ["3-2-2", "1234"])
    assert_kept_from_others(run, "Bob", ["1-3-1"])
    assert "322" not in run.output
    assert_shown_to(run, "Alice", "'1234' has 4 digits")
    assert_shown_to(run, "Alice", "Your code: 3-2-2")
    assert_shown_to(run, "Bob", "Your code: 1-3-1")
    assert_ends_with(run, "Alice (Player 1) wins the game!")


ALICE_PATH = ["1 2", "2 3", "3 4", "4 5", "5 5"]
"""Round her own trap at (2,2) to Bob's flag, while Bob steps aside."""


def test_flag_traps_show_on_their_owners_board_only() -> None:
    script = Script(
        {
            "Alice, finish your TRAP": ["2 2"],
            "Bob, finish your TRAP": ["3 1"],
            "Alice, enter MOVE": ["TRAP", *(f"MOVE {c}" for c in ALICE_PATH)],
            "Bob, enter MOVE": ["TRAP", "MOVE 4 4", "MOVE 4 3", "MOVE 4 4", "MOVE 4 3"],
        }
    )

    run = run_parlor(["play", "flag", *PLAYERS], script)

    assert run.status == 0, run.output
    assert_handed_over(run, NAMES)
    assert_kept_from_others(run, "Alice", ["(2,2)", "*A"])
    assert_kept_from_others(run, "Bob", ["(3,1)", "*B"])
    assert "3 1" not in run.output
    assert_shown_to(run, "Alice", "Your traps: (2,2).")
    assert_shown_to(run, "Alice", "2 |    | *A |")
    assert_shown_to(run, "Bob", "3 | *B |")
    # Moves are typed in sight; only a trap's cell is asked unseen.
    assert_shown_to(run, "Alice", "Alice, enter MOVE row column, or TRAP to hide a trap: MOVE 1 2")
    assert_ends_with(run, "Alice (Player 1) wins the game!")


def test_claim_has_nothing_to_hand_over_and_keeps_claimed_numbers() -> None:
    script = Script(
        {
            "Alice, select a number": ["9", "7", "5", "3", "1"],
            "Bob, select a number": ["8", "6", "4", "2"],
        }
    )

    run = run_parlor(["play", "claim", "--seed", "7", *PLAYERS], script)

    assert run.status == 0, run.output
    assert "Pass to" not in run.output
    assert run.before_first_clear == ""
    turns = [screen for screen in run.screens if not screen.is_final]
    assert len(turns) == 9
    assert all(screen.lines[2].split() == ["1", "2", "3"] for screen in turns)
    final = run.screens[-1].text
    assert "| 9 A |" in final and "| 8 B |" in final
    assert "A Alice   B Bob\nAlice: 25 · Bob: 20" in final
    assert_ends_with(run, "Alice (Player 1) wins the game!")


def test_crystal_screens_show_refusals_to_both() -> None:
    script = Script(
        {
            "Alice, choose a crystal": ["8", "6", "1"],
            "Bob, choose a crystal": ["7", "9", "8", "4"],
        }
    )

    run = run_parlor(["play", "crystal", *PLAYERS], script)

    assert run.status == 0, run.output
    assert "Pass to" not in run.output
    assert "Crystal 9 would take you to 16, over 15" in run.output
    assert_ends_with(run, "Alice (Player 1) wins the game!")


def test_ctrl_d_on_a_private_screen_clears_it_and_stops_with_status_0() -> None:
    script = Script({"Alice, place your Crown": ["3 3"], "Bob, place your Crown": []})

    run = run_parlor(["play", "crown", *PLAYERS], script)

    assert run.status == 0
    assert script.asked[-1] == "Bob, place your Crown (row column): "
    assert run.screens[-2].asks("Bob")
    assert run.screens[-1].text == "Stopped: the game ends unfinished.\n"


def test_ctrl_d_at_a_prompt_in_sight_stops_the_game_too() -> None:
    script = Script({"Alice, place your Crown": ["3 3"], "Bob, place your Crown": ["2 1"]})

    run = run_parlor(["play", "crown", *PLAYERS], script)

    assert run.status == 0
    assert script.asked[-1] == "Alice, enter attack coordinates (row column): "
    assert run.screens[-1].text == "Stopped: the game ends unfinished.\n"
    assert CTRL_D not in run.output


def test_ctrl_c_on_a_private_screen_clears_it() -> None:
    script = Script({"Alice, place your Crown": [CTRL_C]})

    run = run_parlor(["play", "crown", *PLAYERS], script)

    assert run.status == 130
    assert run.screens[-2].asks("Alice")
    assert run.screens[-1].text.strip() == ""
