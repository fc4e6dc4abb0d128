"""``parlor play`` as a script reads it (input piped), and ``parlor rules``.

A transcript has no private screens, so nothing private is in it: not a secret typed, not the
hints a defender may choose from, not a refusal that would name a secret.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence

import pytest

from bot import cli, terminal
from bot.terminal.play import REFUSED_UNSAID
from games import GAMES


def transcript(
    game: str,
    answers: Sequence[str],
    *,
    names: tuple[str, str] | None = None,
    options: dict[str, object] | None = None,
) -> tuple[int, list[str]]:
    """The exit status and the lines of a game with ``answers`` piped (echoed after prompts)."""
    out = io.StringIO()
    status = terminal.play(
        GAMES[game],
        options or {},
        0,
        iter(f"{answer}\n" for answer in answers),
        out,
        echo=True,
        err=io.StringIO(),
        names=names,
    )
    return status, out.getvalue().splitlines()


def main(args: list[str], answers: Sequence[str], monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{a}\n" for a in answers)))
    return cli.main(args)


def test_help_at_a_prompt_prints_the_rules_and_asks_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["play", "crown"], ["help", "3 3", "2 1", "rules", "2 2"], monkeypatch)
    out = capsys.readouterr().out

    assert status == 2
    assert out.count("What to type:") == 2
    assert out.count("Attacking a cell twice is refused") == 2
    assert "Player 2 attacks" not in out and "Player 1 attacks (2,2): Miss." in out
    assert "not a cell" not in out


@pytest.mark.parametrize("game", sorted(GAMES))
def test_parlor_rules_prints_what_to_type_and_the_rules(
    game: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["rules", game], [], monkeypatch)
    out = capsys.readouterr().out

    assert status == 0
    assert out.startswith("What to type:\n")
    assert f"\n{GAMES[game].title}\n" in out
    # Written for Discord: no markdown, slash commands or DMs at the terminal.
    for discord_only in ("**", "`", f"/{game}", "DM", "button"):
        assert discord_only not in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_parlor_rules_names_the_flags_that_set_options(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["rules", "claim"], [], monkeypatch)
    claim = capsys.readouterr().out
    main(["rules", "safe"], [], monkeypatch)
    safe = capsys.readouterr().out

    assert "--size 4 plays 1-16" in claim and "--hidden hides" in claim
    assert "--max-guesses" in safe


def test_names_are_used_and_the_one_result_line_names_the_seat() -> None:
    status, lines = transcript(
        "crown", ["3 3", "2 1", "2 2", "column", "1 3", "row", "2 1"], names=("Alice", "Bob")
    )

    assert status == 0
    assert lines[1] == "Player 1 is Alice; Player 2 is Bob."
    assert "Alice attacks (2,2): Miss." in lines
    assert "Bob, choose a hint (column or row): column" in lines
    assert lines[-2:] == [
        "Alice's Crown was at (3,3); Bob's Crown was at (2,1).",
        "Alice (Player 1) wins the game!",
    ]


def test_a_named_draw_ends_with_one_draw_line() -> None:
    first = [16, 13, 12, 9, 8, 5, 4, 1]
    second = [15, 14, 11, 10, 7, 6, 3, 2]
    answers = [str(n) for pair in zip(first, second, strict=True) for n in pair]

    status, lines = transcript("claim", answers, names=("Ann", "Ben"), options={"size": 4})

    assert status == 0
    assert lines[-2:] == ["Draw: 68 to 68.", "Draw."]


def test_a_refused_secret_is_not_quoted() -> None:
    status, lines = transcript("safe", ["1234", "124", "213"])

    assert status == 2
    assert "That has 4 digits: a code is 3 digits, each 1-3, e.g. '213'." in lines
    assert "That has the digit 4: a code is 3 digits, each 1-3, e.g. '213'." in lines
    assert not any("1234" in line or "124" in line for line in lines)


def test_a_refusal_that_could_name_your_trap_is_not_explained() -> None:
    status, lines = transcript("flag", ["TRAP 2 2", "MOVE 4 4", "TRAP 2 2"])

    assert status == 2
    assert lines.count(REFUSED_UNSAID) == 1  # "you already have a trap there", unsaid
    assert not any("(2,2)" in line for line in lines)
    assert "Player 2, enter MOVE row column, or TRAP to hide a trap: MOVE 4 4" in lines


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--names", "Alice", "alice"], "--names needs two different names"),
        (["--names", "Alice", " "], "--names: the second name is empty"),
        (["--names", "Alice", "Bob", "--vs-bot"], "--names is for two people"),
    ],
)
def test_names_that_cannot_tell_players_apart_are_a_usage_error(
    args: list[str],
    error: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["play", "crown", *args], [], monkeypatch)

    assert exit_.value.code == 2
    assert error in capsys.readouterr().err
