"""``parlor play``: the terminal loop in process, and the console command as a subprocess.

Every example game of the five rule books is replayed through the command (docs/rules.md fixes
the Safe Cracker example); everything else drives ``bot.terminal.play`` or ``bot.cli.main``
in process, on the real games.
"""

from __future__ import annotations

import io
import itertools
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot import cli, terminal
from games import GAMES
from games.base import JSON, InvalidOptions, Outcome, Reason

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def english_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """``parlor play`` speaks the environment's language: these tests read English."""
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")


# --- the rule books' example games, as typed answers ----------------------------------------

CROWN_EXAMPLE = ["3 3", "2 1", "2 2", "column", "1 3", "row", "2 1"]
"""Crowns at (3,3) and (2,1); attacks, hints and the capture as in the book."""

CLAIM_EXAMPLE = ["9", "8", "7", "6", "5", "4", "3", "2", "1"]
"""Claimed by value, so any grid (any seed) gives the book's 25 to 20."""

CRYSTAL_EXAMPLE = ["8", "7", "6", "9", "8", "4", "1"]
"""The book's turn 4: Player 2 tries 9 (over 15) and 8 (taken) before capturing 4."""

FLAG_EXAMPLE = [
    "MOVE 2 2",
    "TRAP 3 3",
    "TRAP 4 4",
    "MOVE 4 4",
    "MOVE 3 3",
    "TRAP 2 2",
    # The book stops at "play continues"; Player 1 goes round Player 2's trap at (2,2).
    "MOVE 1 2",
    "MOVE 4 4",
    "MOVE 2 3",
    "MOVE 3 3",
    "MOVE 3 4",
    "MOVE 3 2",
    "MOVE 4 5",
    "MOVE 2 1",
    "MOVE 5 5",
]

SAFE_EXAMPLE = ["213", "331", "111", "123", "131", "223", "221", "233", "331"]
"""Codes 2-1-3 and 3-3-1; the book's guesses, then Player 1 cracks 3-3-1 (docs/rules.md)."""


@dataclass(frozen=True)
class Example:
    game: str
    answers: list[str]
    expected: list[str]
    """Fragments the transcript must show, in this order; the result line is checked apart."""
    result: str


EXAMPLES = [
    Example(
        "crown",
        CROWN_EXAMPLE,
        [
            "Player 1 has placed their Crown.",
            "Player 2 has placed their Crown.",
            "Player 1 attacks (2,2): Miss.",
            "Player 2's hint: the Crown's column is less than 2.",
            "Player 2 attacks (1,3): Miss.",
            "Player 1's hint: the Crown's row is greater than 1.",
            "Player 1 attacks (2,1): Hit.",
            "Player 1 wins: Player 2's Crown is captured at (2,1).",
            "Player 1's Crown was at (3,3); Player 2's Crown was at (2,1).",
        ],
        "Player 1 wins the game!",
    ),
    Example(
        "claim",
        CLAIM_EXAMPLE,
        [
            "Player 1 claims 9 at",
            "Total 9.",
            "Player 2 claims 8 at",
            "Total 8.",
            "Player 1 claims 7 at",
            "Total 16.",
            "Player 2 claims 6 at",
            "Total 14.",
            "Player 1 claims 1 at",
            "Total 25.",
            "Player 1: 25 · Player 2: 20",
            "Player 1 wins: 25 to 20.",
        ],
        "Player 1 wins the game!",
    ),
    Example(
        "crystal",
        CRYSTAL_EXAMPLE,
        [
            "Player 1 captures crystal 8: 8 points.",
            "Player 2 captures crystal 7: 7 points.",
            "Player 1 captures crystal 6: 14 points.",
            "Crystal 9 would take you to 16, over 15",
            "Crystal 8 has already been captured",
            "Player 2 captures crystal 4: 11 points.",
            "4 O 5   6 X",
            "Player 1 captures crystal 1: 15 points.",
            "Player 1 wins with exactly 15 points.",
        ],
        "Player 1 wins the game!",
    ),
    Example(
        "flag",
        FLAG_EXAMPLE,
        [
            "Player 1 moves to (2,2).",
            "Player 2 placed a trap (1 left).",
            "Player 1 placed a trap (1 left).",
            "Player 2 moves to (4,4).",
            "Trap triggered at (4,4)! Player 2's agent returns to their flag at (5,5).",
            "Player 1 moves to (3,3).",
            "Trap triggered at (3,3)! Player 1's agent returns to their flag at (1,1).",
            "Player 1: 1 trap left",
            "Player 2 placed a trap (0 left).",
            "Player 1 moves to (5,5).",
            "Player 1 captures the flag at (5,5) and wins!",
            "Player 1's hidden traps: none; Player 2's hidden traps: (2,2).",
        ],
        "Player 1 wins the game!",
    ),
    Example(
        "safe",
        SAFE_EXAMPLE,
        [
            "Player 1 has set their code.",
            "Player 2 has set their code.",
            "Player 1 guesses 1-1-1: 1 exact match.",
            "Player 2 guesses 1-2-3: 1 exact match.",
            "Player 1 guesses 1-3-1: 2 exact matches.",
            "Player 2 guesses 2-2-3: 2 exact matches.",
            "Player 1 guesses 2-2-1: 1 exact match.",
            "Player 2 guesses 2-3-3: 2 exact matches.",
            "Player 1 guesses 3-3-1: 3 exact matches. The safe is cracked!",
            "Player 1 wins: Player 2's code is cracked.",
            "Player 1's code was 2-1-3; Player 2's code was 3-3-1.",
        ],
        "Player 1 wins the game!",
    ),
]


# --- helpers --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Played:
    status: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()


def play(
    game: str,
    answers: Sequence[str],
    *,
    options: Mapping[str, JSON] | None = None,
    seed: int = 0,
    secret_answers: Sequence[str] | None = None,
    prompts: list[str] | None = None,
    bot: terminal.Bot | None = None,
) -> Played:
    """A game at the terminal in process, answers piped (echoed after their prompts).

    With ``secret_answers`` the private answers come from a keyboard stand-in instead, which
    records the prompts it is shown in ``prompts``. With ``bot`` the built-in player has a seat.
    """
    out, err = io.StringIO(), io.StringIO()
    secret_input = None
    if secret_answers is not None:
        keys = iter(secret_answers)

        def secret_input(prompt: str) -> str:
            if prompts is not None:
                prompts.append(prompt)
            try:
                return next(keys)
            except StopIteration:
                raise EOFError from None

    status = terminal.play(
        GAMES[game],
        options or {},
        seed,
        iter(f"{answer}\n" for answer in answers),
        out,
        secret_input,
        echo=True,
        err=err,
        bot=bot,
    )
    return Played(status, out.getvalue(), err.getvalue())


def parlor(*args: str, answers: Sequence[str]) -> Played:
    """``parlor ARGS`` as a separate process, with ``answers`` piped to its standard input."""
    environment = {**os.environ, "PYTHONPATH": str(REPO), "LANGUAGE": "", "LC_ALL": ""}
    environment.update({"LC_MESSAGES": "", "LANG": "C.UTF-8"})
    return run([sys.executable, "-m", "bot.cli", *args], answers, environment)


def run(
    command: Sequence[str], answers: Sequence[str], env: Mapping[str, str] | None = None
) -> Played:
    """``command`` run in the repository, with ``answers`` piped to its standard input."""
    done = subprocess.run(
        command,
        input="".join(f"{answer}\n" for answer in answers),
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=60,
        check=False,
    )
    return Played(done.returncode, done.stdout, done.stderr)


def assert_in_order(lines: Sequence[str], fragments: Sequence[str]) -> None:
    """Each fragment is in some line, none in a line before the one holding the previous."""
    position = 0
    for fragment in fragments:
        found = next((i for i in range(position, len(lines)) if fragment in lines[i]), None)
        assert found is not None, f"{fragment!r} missing after line {position}:\n" + "\n".join(
            lines
        )
        position = found


def without_refusals(lines: Sequence[str], refusals: Sequence[str]) -> list[str]:
    """``lines`` less each refused answer: its prompt line and the error line after it.

    ``refusals`` are fragments of the expected error messages, in the order they come.
    """
    pending = list(refusals)
    kept: list[str] = []
    index = 0
    while index < len(lines):
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if pending and pending[0] in following:
            pending.pop(0)
            index += 2
            continue
        kept.append(lines[index])
        index += 1
    assert not pending, f"errors never shown: {pending}"
    return kept


# --- the command ----------------------------------------------------------------------------


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.game for e in EXAMPLES])
def test_rule_book_example_replays_through_parlor_play(example: Example) -> None:
    played = parlor("play", example.game, "--seed", "7", answers=example.answers)

    assert played.status == 0, played.err
    assert played.err == ""
    assert_in_order(played.lines, example.expected)
    assert played.lines[-1] == example.result


def test_parlor_exits_2_when_input_ends_before_the_game() -> None:
    played = parlor("play", "crystal", answers=["8", "7"])

    assert played.status == 2
    assert "input ended before the game finished" in played.err
    assert "Player 2 captures crystal 7: 7 points." in played.out


def test_parlor_without_arguments_prints_help() -> None:
    played = parlor(answers=[])

    assert played.status == 0
    assert played.out.startswith("usage: parlor")
    assert "play" in played.out


# --- bad input ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BadInput:
    game: str
    answers: list[str]
    refused: dict[int, list[tuple[str, str]]]
    """Before the answer at this index: (bad answer, fragment of the error it gets)."""
    options: Mapping[str, JSON] | None = None


BAD_INPUTS = [
    BadInput(
        "crown",
        CROWN_EXAMPLE,
        {
            0: [("0 4", "is off the grid"), ("crown", "is not a cell")],
            2: [("", "Enter a cell"), ("4 4", "is off the grid")],
            3: [("diagonal", "is not a hint: answer 'row' or 'column'")],
            6: [("2 2", "You already attacked (2,2)")],
        },
    ),
    BadInput(
        "claim",
        CLAIM_EXAMPLE,
        {
            0: [("10", "is not on the grid"), ("seven", "cannot be read")],
            1: [("9", "9 is already claimed"), ("4 1", "is off the grid")],
        },
    ),
    BadInput(
        "claim",
        ["1 1", "1 2", "1 3", "2 1", "2 2", "2 3", "3 1", "3 2", "3 3"],
        {0: [("5", "The numbers are hidden")], 1: [("1 1", "(1,1) is already claimed")]},
        options={"hidden": True},
    ),
    BadInput(
        "crystal",
        ["8", "7", "6", "4", "1"],
        {
            0: [("0", "There is no crystal 0"), ("crystal", "cannot be read")],
            3: [("9", "would take you to 16"), ("8", "has already been captured")],
        },
    ),
    BadInput(
        "flag",
        FLAG_EXAMPLE,
        {
            0: [
                ("JUMP 2 2", "cannot be read"),
                ("MOVE 6 1", "is off the grid"),
                ("MOVE 3 3", "is not next to your agent at (1,1)"),
                # The reason a trap is refused may be the player's own trap there.
                ("TRAP 5 5", "not allowed now"),
            ],
            2: [("TRAP 2 2", "not allowed now")],
        },
    ),
    BadInput(
        "safe",
        SAFE_EXAMPLE,
        {
            0: [("12", "has 2 digits"), ("124", "has the digit 4"), ("abc", "is not a code")],
            2: [("", "Enter a code"), ("1111", "has 4 digits")],
        },
    ),
]


@pytest.mark.parametrize(
    "case",
    BAD_INPUTS,
    ids=[f"{c.game}{'-' + str(c.options) if c.options else ''}" for c in BAD_INPUTS],
)
def test_bad_input_is_answered_asked_again_and_changes_nothing(case: BadInput) -> None:
    noisy_answers: list[str] = []
    refusals: list[str] = []
    for index, answer in enumerate(case.answers):
        for bad, error in case.refused.get(index, []):
            noisy_answers.append(bad)
            refusals.append(error)
        noisy_answers.append(answer)

    clean = play(case.game, case.answers, options=case.options)
    noisy = play(case.game, noisy_answers, options=case.options)

    assert clean.status == noisy.status == 0
    assert without_refusals(noisy.lines, refusals) == clean.lines


def test_a_transcript_names_the_hints_without_what_they_would_tell() -> None:
    played = play("crown", CROWN_EXAMPLE)

    assert "Player 2, choose a hint (column or row): column" in played.lines
    assert "row is equal to 2" not in played.out


# --- secrets --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "secrets", "forms"),
    [
        ("crown", ["3 3", "2 1"], ["3 3", "(3,3)", "2 1", "(2,1)"]),
        ("safe", ["213", "331"], ["213", "2-1-3", "331", "3-3-1"]),
    ],
)
def test_setup_never_prints_a_secret(game: str, secrets: list[str], forms: list[str]) -> None:
    played = play(game, secrets)

    assert played.status == 2
    assert "Player 1, " in played.out and "Player 2 has " in played.out
    for form in forms:
        assert form not in played.out


def test_a_trap_cell_is_not_printed_before_the_end() -> None:
    played = play("flag", ["TRAP 3 4", "MOVE 4 4"])

    assert "Player 1 placed a trap (1 left)." in played.lines
    assert "Player 2 moves to (4,4)." in played.lines
    assert "3 4" not in played.out and "(3,4)" not in played.out


def test_private_answers_come_from_the_keyboard_unseen() -> None:
    prompts: list[str] = []
    played = play(
        "crown",
        ["2 2", "column", "1 3", "row", "2 1"],
        secret_answers=["3 3", "2 1"],
        prompts=prompts,
    )

    assert prompts == [
        "Player 1, place your Crown (row column): ",
        "Player 2, place your Crown (row column): ",
    ]
    assert played.status == 0
    assert "(3,3)" not in played.out.split("Player 1 attacks (2,1): Hit.")[0]
    assert played.lines[-1] == "Player 1 wins the game!"


def test_a_flag_trap_cell_is_read_from_the_keyboard_unseen() -> None:
    prompts: list[str] = []
    played = play("flag", ["TRAP", "MOVE 4 4", "TRAP"], secret_answers=["3 4"], prompts=prompts)

    assert prompts == ["Player 1, finish your TRAP, unseen: "] * 2
    assert "Player 2, enter MOVE row column, or TRAP to hide a trap: MOVE 4 4" in played.lines
    assert "Player 1 placed a trap (1 left)." in played.lines
    assert played.status == 2
    assert "3 4" not in played.out


# --- how a game ends ------------------------------------------------------------------------


def test_input_ending_early_is_reported_on_stderr_with_status_2() -> None:
    played = play("crown", ["3 3", "2 1", "2 2"])

    assert played.status == 2
    assert played.err == "input ended before the game finished\n"
    assert not any(line.endswith("wins the game!") for line in played.lines)


def test_a_drawn_game_ends_with_draw() -> None:
    # Size 4: 1-16 split 68 to 68.
    first = [16, 13, 12, 9, 8, 5, 4, 1]
    second = [15, 14, 11, 10, 7, 6, 3, 2]
    answers = [str(n) for pair in zip(first, second, strict=True) for n in pair]

    played = play("claim", answers, options={"size": 4})

    assert played.status == 0
    assert "Draw: 68 to 68." in played.lines
    assert played.lines[-1] == "Draw."


def test_the_result_line_names_the_winner_or_a_draw() -> None:
    assert terminal.result_line(Outcome(0, Reason.CAPTURE)) == "Player 1 wins the game!"
    assert terminal.result_line(Outcome(1, Reason.SCORE)) == "Player 2 wins the game!"
    assert terminal.result_line(Outcome(None, Reason.NO_MOVES)) == "Draw."


# --- options --------------------------------------------------------------------------------


def run_main(args: list[str], answers: Sequence[str], monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{a}\n" for a in answers)))
    return cli.main(args)


def test_size_4_plays_on_a_4x4_grid(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status = run_main(["play", "claim", "--size", "4", "--seed", "1"], ["16"], monkeypatch)
    out = capsys.readouterr().out

    assert status == 2
    board = [line for line in out.splitlines() if re.match(r"\d \|", line)]
    assert board and all(line.count("|") == 5 for line in board)
    assert "Player 1 claims 16 at" in out


def test_hidden_numbers_are_claimed_by_cell(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status = run_main(["play", "claim", "--hidden", "--seed", "1"], ["2 2"], monkeypatch)
    out = capsys.readouterr().out

    assert status == 2
    assert "1 |  ?  |  ?  |  ?  |" in out
    assert "Player 1, select a cell (row column): 2 2" in out
    assert "Player 1 claims (2,2): " in out


def test_automatic_hints_skip_the_defender(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = ["3 3", "2 1", "2 2", "1 3", "2 1"]
    status = run_main(["play", "crown", "--hints", "auto"], answers, monkeypatch)
    out = capsys.readouterr().out

    assert status == 0
    assert "choose a hint" not in out
    assert "Player 2's hint (automatic):" in out
    assert out.splitlines()[-1] == "Player 1 wins the game!"


def test_safe_code_shape_and_guess_limit_reach_the_engine(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["play", "safe", "--digits", "5", "--length", "4", "--max-guesses", "1"]
    status = run_main(args, ["5123", "4444", "1144", "5555"], monkeypatch)
    out = capsys.readouterr().out

    assert status == 0
    assert "Player 1, set your code (4 digits from 1-5): " in out
    assert "Player 1 guesses 1-1-4-4: 2 exact matches." in out
    assert "Player 2 guesses 5-5-5-5: 1 exact match." in out
    assert "Player 1's code was 5-1-2-3; Player 2's code was 4-4-4-4." in out
    assert out.splitlines()[-1] == "Player 1 wins the game!"


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["play", "crown", "--size", "4"], "--size"),
        (["play", "claim", "--max-guesses", "3"], "--max-guesses"),
        (["play", "crystal", "--hidden"], "--hidden"),
        (["play", "flag", "--digits", "4"], "--digits"),
        (["play", "safe", "--hints", "auto"], "--hints"),
        (["play", "safe", "--digits", "12"], "--digits"),
    ],
)
def test_an_option_the_game_does_not_take_is_a_usage_error(
    args: list[str],
    named: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        run_main(args, [], monkeypatch)
    err = capsys.readouterr().err

    assert exit_.value.code == 2
    assert "parlor play: error: " in err and named in err


def test_play_refuses_options_before_asking_anything() -> None:
    out = io.StringIO()
    with pytest.raises(InvalidOptions):
        terminal.play(GAMES["crown"], {"size": 4}, 0, iter([]), out)
    assert out.getvalue() == ""


# --- against the built-in player ------------------------------------------------------------

RESULTS = ("Player 1 wins the game!", "Player 2 wins the game!", "Draw.")

CELLS_3 = [f"{row} {col}" for row in range(1, 4) for col in range(1, 4)]
CELLS_5 = [f"{row} {col}" for row in range(1, 6) for col in range(1, 6)]

BOT_SCRIPTS: dict[str, list[str]] = {
    # Each answer the game refuses (a hint when an attack is asked, a taken number, a cell
    # not next to the agent) is asked again, so these reach the end whatever the bot does.
    "crown": ["2 2", *itertools.chain.from_iterable((cell, "row") for cell in CELLS_3)],
    "claim": [str(n) for n in range(9, 0, -1)],
    "crystal": [str(n) for n in range(9, 0, -1)] * 5,
    "flag": [f"MOVE {cell}" for cell in CELLS_5] * 100,
    "safe": ["213", *("".join(code) for code in itertools.product("123", repeat=3))],
}
"""The person's answers in a game against the bot, from either seat."""

BOT_EVENTS = {
    "crown": "attacks (",
    "claim": "claims ",
    "crystal": "captures crystal ",
    "flag": "moves to (",
    "safe": "guesses ",
}
"""What a seat's public move event says after its name."""


PROMPT = re.compile(r"(Place|Set|Enter|Select|Choose) [^:]*:( |$)")
"""A prompt to the person: the request, a colon, then the echoed answer."""

ASKED_BY_NAME = re.compile(r"(Player \d|Parlor|You), ")
"""A prompt to someone by name: against the bot there is none."""

BOT_RESULTS = (
    *(f"You (Player {n}) win the game!" for n in (1, 2)),
    *(f"Parlor (Player {n}) wins the game!" for n in (1, 2)),
    "Draw.",
)
"""Against the bot the one result line names the person or the bot, and the seat."""


def crown_cell(played: Played, name: str) -> str:
    """``(row,col)``: where the end reveal says ``name``'s Crown was."""
    found = re.search(rf"{name}'s Crown was at (\(\d,\d\))", played.out)
    assert found is not None, played.out
    return found.group(1)


@pytest.mark.parametrize("bot_seat", [1, 0], ids=["bot-second", "bot-first"])
@pytest.mark.parametrize("game", sorted(BOT_SCRIPTS))
def test_a_game_against_the_bot_reaches_its_result(game: str, bot_seat: int) -> None:
    bot, human = terminal.NAMES[bot_seat], terminal.NAMES[1 - bot_seat]

    played = play(game, BOT_SCRIPTS[game], seed=3, bot=terminal.Bot(seat=bot_seat))

    assert played.status == 0, played.err
    assert played.lines[1] == f"You are {human}; Parlor, the built-in player (normal), is {bot}."
    assert any(line.startswith(f"Parlor {BOT_EVENTS[game]}") for line in played.lines)
    assert any(PROMPT.match(line) for line in played.lines)
    assert not any(ASKED_BY_NAME.match(line) for line in played.lines)
    assert played.lines[-1] in BOT_RESULTS
    assert played.lines[-2] not in BOT_RESULTS


def test_the_bot_first_sets_its_secret_and_moves_first() -> None:
    played = play("crown", BOT_SCRIPTS["crown"], bot=terminal.Bot(seat=0))

    assert_in_order(
        played.lines,
        [
            "Parlor has placed their Crown.",
            "Place your Crown (row column):",
            "Parlor attacks (",
            "Enter attack coordinates (row column):",
        ],
    )
    assert played.lines[-1] in BOT_RESULTS


def test_a_seeded_game_against_the_bot_replays_exactly() -> None:
    runs = [play("safe", BOT_SCRIPTS["safe"], seed=11, bot=terminal.Bot()) for _ in range(2)]

    assert runs[0].status == 0
    assert runs[0].out == runs[1].out


@pytest.mark.parametrize("human_crown", CELLS_3)
def test_the_hard_crown_bot_wins_within_its_4_attacks(human_crown: str) -> None:
    bot = terminal.Bot(level="hard")
    # The bot places its Crown first thing, so the same seed puts it in the same cell.
    crown = crown_cell(play("crown", BOT_SCRIPTS["crown"], seed=5, bot=bot), "Parlor")
    misses = [cell for cell in CELLS_3 if f"({cell.replace(' ', ',')})" != crown]
    answers = [human_crown, *itertools.chain.from_iterable((cell, "row") for cell in misses)]

    played = play("crown", answers, seed=5, bot=bot)

    assert "You are Player 1; Parlor, the built-in player (hard), is Player 2." in played.lines
    assert len(set(re.findall(r"Parlor attacks (\(\d,\d\))", played.out))) <= 4
    captured = f"({human_crown.replace(' ', ',')})"
    assert f"Parlor wins: your Crown is captured at {captured}." in played.lines
    assert played.lines[-1] == "Parlor (Player 2) wins the game!"


def test_the_bots_secret_is_not_printed_before_the_end() -> None:
    played = play("crown", BOT_SCRIPTS["crown"], seed=2, bot=terminal.Bot())
    crown = crown_cell(played, "Parlor")
    before_reveal = played.out.split("Your Crown was at")[0]

    assert "Parlor has placed their Crown." in played.lines
    assert "Your Crown is at" not in played.out
    assert not any(
        crown in line and not line.startswith(("You attack", "Parlor attacks"))
        for line in before_reveal.splitlines()
    )


@pytest.mark.parametrize(("game", "private"), [("safe", "Your code is"), ("flag", "Trap placed")])
def test_the_bots_private_events_are_never_printed(game: str, private: str) -> None:
    played = play(game, BOT_SCRIPTS[game], seed=4, bot=terminal.Bot(level="hard"))

    assert played.status == 0
    assert private not in played.out


def test_vs_bot_level_reaches_the_bot(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["play", "crystal", "--vs-bot", "--level", "easy", "--bot-first", "--seed", "1"]
    status = run_main(args, BOT_SCRIPTS["crystal"], monkeypatch)
    lines = capsys.readouterr().out.splitlines()

    assert status == 0
    assert lines[1] == "You are Player 2; Parlor, the built-in player (easy), is Player 1."
    assert lines[-1] in BOT_RESULTS


def test_parlor_play_vs_bot_runs_as_a_command() -> None:
    played = parlor("play", "claim", "--vs-bot", "--seed", "9", answers=BOT_SCRIPTS["claim"])

    assert played.status == 0, played.err
    assert played.err == ""
    assert "You are Player 1; Parlor, the built-in player (normal), is Player 2." in played.lines
    assert any(line.startswith("Parlor claims ") for line in played.lines)
    assert played.lines[-1] in BOT_RESULTS


# --- make play ------------------------------------------------------------------------------


def make_play(*variables: str, answers: Sequence[str]) -> Played:
    """``make play VARIABLES`` with ``answers`` piped, on this interpreter instead of the
    ``.venv`` that make would build (``-o``: take it as built)."""
    make = ["make", "--silent", "-o", ".venv/.runtime-installed", "play"]
    return run([*make, f"BIN={Path(sys.executable).parent}", *variables], answers)


needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="no make here")


@needs_make
def test_make_play_is_a_game_of_crown_against_the_bot() -> None:
    played = make_play(answers=BOT_SCRIPTS["crown"])

    assert played.status == 0, played.err
    assert played.lines[0] == "--- Capture the Crown ---"
    assert played.lines[1] == "You are Player 1; Parlor, the built-in player (normal), is Player 2."
    assert played.lines[-1] in BOT_RESULTS


@needs_make
def test_make_play_passes_the_game_and_its_options() -> None:
    played = make_play("GAME=safe", "ARGS=--seed 7", answers=SAFE_EXAMPLE)

    assert played.status == 0, played.err
    assert "Player 1 wins: Player 2's code is cracked." in played.lines
    assert played.lines[-1] == "Player 1 wins the game!"


# --- output piped into a reader that stops early --------------------------------------------


@pytest.mark.parametrize(
    "args",
    [["--help"], [], ["rules", "crown"], ["play", "crystal", "--seed", "1"]],
    ids=["--help", "no command", "rules", "play"],
)
def test_a_reader_that_stops_early_ends_parlor_quietly(args: list[str]) -> None:
    """``parlor ... | head -1``: the pipe's reader is gone before parlor writes a line."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write to the pipe now fails (EPIPE)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "bot.cli", *args],
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert done.stderr == ""
    assert done.returncode in (0, cli.EXIT_PIPE_CLOSED)
