"""What a player types at ``parlor play``, piped or at a keyboard: digits of any script, a trap
with no cell, empty names, Ctrl+D, and the flags that start a game against the bot."""

from __future__ import annotations

import io
import shutil
import sys
import unicodedata
from collections.abc import Sequence

import pytest

from bot import terminal
from games import GAMES
from tests.terminal.piped import REPO, parlor, piped
from tests.terminal.pty_play import Script, run_parlor
from tests.terminal.screens import BOT_RESULTS, OLD_RESULT

EXAMPLES: dict[str, list[str]] = {
    "crown": ["3 3", "2 1", "2 2", "column", "1 3", "row", "2 1"],
    "claim": ["9", "8", "7", "6", "5", "4", "3", "2", "1"],
    "crystal": ["8", "7", "6", "9", "8", "4", "1"],
    "flag": ["MOVE 2 2", "TRAP 3 3", "TRAP 4 4", "MOVE 4 4", "MOVE 3 3", "TRAP 2 2", "MOVE 1 2"],
    "safe": ["213", "331", "111", "123", "131", "223", "221", "233", "331"],
}
"""Answers from the rule books' example games (docs/rules.md)."""

SCRIPTS = {
    "arabic-indic": lambda digit: chr(0x0660 + int(digit)),
    "fullwidth": lambda digit: chr(0xFF10 + int(digit)),
    "devanagari": lambda digit: chr(0x0966 + int(digit)),
}
"""Other scripts' decimal digits, by the ASCII digit they stand for."""


def in_script(answer: str, script: str) -> str:
    return "".join(SCRIPTS[script](c) if c.isascii() and c.isdigit() else c for c in answer)


def as_ascii(text: str) -> str:
    return "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in text)


def transcript(game: str, answers: Sequence[str]) -> tuple[int, str]:
    out = io.StringIO()
    status = terminal.play(
        GAMES[game],
        {},
        0,
        iter(f"{answer}\n" for answer in answers),
        out,
        echo=True,
        err=io.StringIO(),
    )
    return status, out.getvalue()


@pytest.mark.parametrize("script", sorted(SCRIPTS))
@pytest.mark.parametrize("game", sorted(EXAMPLES))
def test_digits_of_any_script_read_as_their_ascii_digits_in_every_game(
    game: str, script: str
) -> None:
    typed = [in_script(answer, script) for answer in EXAMPLES[game]]
    assert typed != EXAMPLES[game]

    expected = transcript(game, EXAMPLES[game])
    status, out = transcript(game, typed)

    assert status == expected[0]
    # The same game, move for move: only the echoed answers show the digits as typed.
    assert as_ascii(out) == expected[1]


def test_the_help_says_digits_of_any_script_are_read() -> None:
    assert "digits of any script" in parlor("rules", "safe").out


def test_a_trap_with_no_cell_is_refused_clearly_and_asked_again() -> None:
    played = parlor("play", "flag", "--seed", "1", answers=["MOVE 2 2", "TRAP", "", "TRAP", "3 3"])

    refusal = (
        "TRAP needs a cell after it, and none was typed: type TRAP again, then its row and "
        "column unseen."
    )
    assert refusal in played.lines
    assert "cannot be read" not in played.out
    after = played.lines[played.lines.index(refusal) + 1 :]
    assert after[0].startswith("Player 2, enter MOVE row column, or TRAP to hide a trap:")
    assert "Player 2 placed a trap (1 left)." in after


def test_a_trap_with_a_blank_cell_at_the_keyboard_is_refused_the_same_way() -> None:
    script = Script({"Finish your TRAP": ["  ", "3 3"], "Enter MOVE": ["TRAP", "TRAP"]})

    run = run_parlor(["play", "flag", "--vs-bot", "--seed", "5"], script)

    assert run.output.count("TRAP needs a cell after it, and none was typed") == 1
    assert "You placed a trap (1 left)." in run.output


@pytest.mark.parametrize(
    ("names", "error"),
    [
        (["", "x"], "--names: the first name is empty"),
        (["x", "  "], "--names: the second name is empty"),
    ],
)
def test_an_empty_name_is_said_to_be_empty(names: list[str], error: str) -> None:
    played = parlor("play", "crown", "--names", *names)

    assert played.status == 2
    assert f"parlor play: error: {error}" in played.err


def test_ctrl_d_at_the_keyboard_stops_the_game_with_status_0() -> None:
    run = run_parlor(["play", "crystal", "--vs-bot", "--seed", "2"], Script({}))

    assert run.status == 0, run.output
    assert run.lines[-1] == "Stopped: the game ends unfinished."
    assert "input ended" not in run.output


def test_piped_answers_running_out_are_still_status_2() -> None:
    played = parlor("play", "crystal", "--seed", "2", answers=["9"])

    assert played.status == 2
    assert played.err == "input ended before the game finished\n"


@pytest.mark.parametrize("flags", [["--level", "hard"], ["--bot-first"]])
def test_level_or_bot_first_alone_plays_the_bot(flags: list[str]) -> None:
    played = parlor(
        "play", "claim", *flags, "--seed", "3", answers=[str(n) for n in range(9, 0, -1)]
    )

    assert played.status == 0, played.err
    level = "hard" if "--level" in flags else "normal"
    assert f"the built-in player ({level})" in played.lines[1]
    assert played.lines[-1] in BOT_RESULTS


@pytest.mark.skipif(shutil.which("make") is None, reason="no make here")
def test_make_play_with_a_level_plays_the_bot_at_that_level() -> None:
    codes = ["213", *(f"{a}{b}{c}" for a in "123" for b in "123" for c in "123")]
    make = ["make", "--silent", "-o", ".venv/.runtime-installed", "play"]
    bin_dir = f"BIN={sys.executable.rsplit('/', 1)[0]}"

    played = piped([*make, bin_dir, "GAME=safe", "ARGS=--level hard --seed 4"], codes)

    assert played.status == 0, played.err
    assert played.lines[1] == "You are Player 1; Parlor, the built-in player (hard), is Player 2."
    assert played.lines[-1] in BOT_RESULTS
    assert (REPO / "Makefile").read_text().count('ARGS="--level hard"') == 1


def test_a_game_ends_with_one_result_line() -> None:
    played = parlor("play", "crown", "--names", "Ann", "Bob", answers=EXAMPLES["crown"])

    assert played.status == 0
    assert played.lines[-1] == "Ann (Player 1) wins the game!"
    assert not any(OLD_RESULT.fullmatch(line) for line in played.lines)
