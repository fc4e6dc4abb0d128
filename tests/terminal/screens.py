"""Checks on the screens a terminal run showed: who could see what, and when."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tests.terminal.pty_play import Run

RESULTS = ("Player 1 wins the game!", "Player 2 wins the game!", "Draw.")
BOT_RESULTS = (
    *(f"You (Player {n}) win the game!" for n in (1, 2)),
    *(f"Parlor (Player {n}) wins the game!" for n in (1, 2)),
    "Draw.",
)
"""The last line of a game against the built-in player: the result, naming the seat."""

OLD_RESULT = re.compile(r"\w+ wins!|You win!|You lose\.|It's a draw\.")
"""The result for people that came before the seat-based line: one result line now says both."""


def assert_kept_from_others(run: Run, owner: str, secrets: Sequence[str]) -> None:
    """No ``secrets`` text is on a screen anyone but ``owner`` may look at before the end."""
    for index, screen in enumerate(run.screens):
        if screen.is_final or screen.asks(owner):
            continue
        for secret in secrets:
            assert secret not in screen.text, f"{secret!r} on screen {index}:\n{screen.text}"


def assert_shown_to(run: Run, owner: str, text: str) -> None:
    """``text`` is on one of ``owner``'s own screens."""
    assert any(text in screen.text for screen in run.seen_by(owner)), (
        f"{text!r} never shown to {owner}:\n{run.output}"
    )


def assert_handed_over(run: Run, names: Sequence[str]) -> None:
    """Every screen that asks a player comes after a hand-over to them, with only their own
    screens between; each hand-over is a cleared screen without a board."""
    assert run.before_first_clear == ""
    holder = None
    for index, screen in enumerate(run.screens):
        if screen.handed_to is not None:
            assert screen.lines[-1].startswith(f"Pass to {screen.handed_to} and press Enter.")
            assert "+---" not in screen.text, f"a board on hand-over screen {index}"
            holder = screen.handed_to
        elif not screen.is_final:
            asked = [name for name in names if screen.asks(name)]
            assert asked == [holder], f"screen {index} asks {asked}, handed to {holder}"


def assert_ends_with(run: Run, result: str) -> None:
    """The final screen, once, and one result line, last."""
    screens = run.screens
    assert screens[-1].is_final
    assert not any(screen.is_final for screen in screens[:-1])
    assert run.lines[-1] == result
    assert not any(OLD_RESULT.fullmatch(line) for line in run.lines)
