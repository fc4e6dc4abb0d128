"""One person against the built-in player at a terminal: their own screen, never the bot's secrets.

Each game runs as ``parlor play GAME --vs-bot`` on a pseudo-terminal: nothing is handed over,
the person's secrets show on their board, the bot's only on the final screen, and the result
is worded for the person.
"""

from __future__ import annotations

import itertools
import re

import pytest

from tests.terminal.pty_play import Run, Script, run_parlor
from tests.terminal.screens import BOT_RESULTS, OLD_RESULT

CELLS_3 = [f"{row} {col}" for row in range(1, 4) for col in range(1, 4)]
CODES_3 = ["".join(code) for code in itertools.product("123", repeat=3)]


def before_the_end(run: Run) -> str:
    return "".join(screen.text for screen in run.screens if not screen.is_final)


def assert_one_players_screens(run: Run) -> None:
    """No hand-over, a cleared screen per turn, each asking the person only, and a result for
    them, naming the seat, on the last line alone."""
    assert "Pass to" not in run.output
    assert run.before_first_clear == ""
    assert all("you against Parlor (normal)" in screen.lines[0] for screen in run.screens)
    assert not re.search(r"^(Player \d|Parlor|You), ", run.output, re.MULTILINE)
    assert run.lines[-1] in BOT_RESULTS
    assert not any(OLD_RESULT.fullmatch(line) for line in run.lines)


@pytest.mark.parametrize(
    ("bot_first", "seed"),
    [(False, "3"), (True, "4")],
    ids=["bot-second", "bot-first"],
)
def test_crown_shows_your_crown_and_never_the_bots(bot_first: bool, seed: str) -> None:
    script = Script(
        {
            # Not the centre, which the bot attacks first: the game has turns to look at.
            "Place your Crown": ["1 3"],
            "Enter attack coordinates": CELLS_3,
            "Choose a hint": ["row"] * 9,
        }
    )
    first = ["--bot-first"] if bot_first else []

    run = run_parlor(["play", "crown", "--vs-bot", "--seed", seed, *first], script)

    assert run.status == 0, run.output
    assert_one_players_screens(run)
    found = re.search(r"Parlor's Crown was at (\(\d,\d\))", run.screens[-1].text)
    assert found is not None
    seen = [line for line in before_the_end(run).splitlines() if "Parlor attacks" not in line]
    assert not any(found.group(1) in line for line in seen)
    assert "Parlor's Crown was" not in before_the_end(run)
    assert "Your Crown is at (1,3)." in before_the_end(run)
    assert "1 |   |   | C |" in before_the_end(run)
    hints = [prompt for prompt in script.asked if prompt.startswith("Choose a hint")]
    assert hints and all(
        re.fullmatch(r"Choose a hint: column \(column .*\) or row \(row .*\): ", hint)
        for hint in hints
    )


def test_safe_shows_your_code_and_never_the_bots() -> None:
    script = Script({"Set your code": ["213"], "Enter your guess": CODES_3})

    run = run_parlor(["play", "safe", "--vs-bot", "--seed", "4"], script)

    assert run.status == 0, run.output
    assert_one_players_screens(run)
    shown = before_the_end(run)
    assert "Your code: 2-1-3" in shown
    assert "Parlor's code" not in shown
    assert set(re.findall(r"Your code is (\S+)\.", run.output)) == {"2-1-3"}
    assert "213" not in run.output


def test_flag_moves_are_typed_in_sight_and_the_bots_traps_never_show() -> None:
    script = Script(
        {
            "Enter MOVE": ["TRAP", "MOVE 2 2", "MOVE 3 3", "MOVE 1 2", "MOVE 2 3"],
            "Finish your TRAP": ["3 3"],
        }
    )

    run = run_parlor(["play", "flag", "--vs-bot", "--level", "hard", "--seed", "5"], script)

    assert run.status == 0  # stopped with Ctrl+D
    assert "Pass to" not in run.output
    assert "Enter MOVE row column, or TRAP to hide a trap: MOVE 2 2" in run.output
    assert "You move to (3,3)." in run.output  # onto its own trap, which stays hidden
    assert "(1,2) is not next to your agent at (3,3)" in run.output
    assert "3 |    |    | *Y |" in run.output  # the trap, seen by its owner, before the step
    assert "*P" not in run.output and "Parlor's traps" not in run.output
    assert set(re.findall(r"Trap placed at (\(\d,\d\))", run.output)) <= {"(3,3)"}
    assert "3 3" not in run.output.replace("MOVE 3 3", "")


@pytest.mark.parametrize(
    ("game", "prompt", "answers"),
    [
        ("claim", "Select a number", [str(n) for n in range(9, 0, -1)]),
        ("crystal", "Choose a crystal", [str(n) for n in range(9, 0, -1)] * 5),
    ],
)
def test_open_games_end_with_a_result_for_you(game: str, prompt: str, answers: list[str]) -> None:
    run = run_parlor(["play", game, "--vs-bot", "--seed", "9"], Script({prompt: answers}))

    assert run.status == 0, run.output
    assert_one_players_screens(run)
    assert re.search(r"^Parlor (claims|captures crystal) ", run.output, re.MULTILINE)
