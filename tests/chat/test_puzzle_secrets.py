"""No puzzle shows the other player's secret before it is answered: over the puzzles the finder
found in the shipped pool's matches, the private puzzle and the daily post (the board, the
question, the footer) never hold the opponent's Crown or code, and the choices offered are
only moves (a code among the guesses offered is one of several)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from bot.chat.boards import emoji as boards
from bot.chat.puzzles import texts
from bot.i18n import speaking
from bot.service.puzzles import PuzzleShown
from bot.service.ratings import DEFAULT
from games.base import Ask
from games.puzzles import Puzzle
from games.puzzles import pool as public_pool
from games.review.replay import played

KEYCAPS = {str(n): f"{n}\ufe0f\u20e3" for n in range(10)}
SECRET_GAMES = ("crown", "safe")


def opponent_secret(puzzle: Puzzle) -> str:
    (secret,) = [
        text for seat, ask, text in puzzle.actions if seat != puzzle.seat and ask == Ask.SECRET
    ]
    return secret


def shown_text(puzzle: Puzzle) -> str:
    embed = texts.puzzle_embed(PuzzleShown(7, puzzle, 3, DEFAULT))
    daily = texts.puzzle_embed(PuzzleShown(7, puzzle, 3, DEFAULT), daily="Daily")
    return "\n".join(
        str(part) for part in (embed.title, embed.description, embed.footer.text, daily.description)
    )


def public_board(puzzle: Puzzle) -> str:
    """The board at the puzzle's move as anyone watching the match saw it."""
    engine = games.get(puzzle.game)
    state = engine.new(puzzle.options, puzzle.seed)
    for step in played(engine, puzzle.options, puzzle.seed, puzzle.actions):
        state = step.after
    return boards.draw(engine.board(engine.view(state, None)), texts.seat_names(puzzle))


def opponent_grid(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index("Your opponent's Crown:") + 1
    return lines[start : start + 3]


POOL = [puzzle for game in SECRET_GAMES for puzzle in public_pool.pool(game)]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(POOL), st.sampled_from(["en-US", "de", "fr"]))
def test_no_puzzle_shows_the_opponents_secret(puzzle: Puzzle, locale: str) -> None:
    secret = opponent_secret(puzzle)
    with speaking(locale):
        text = shown_text(puzzle)
        labels = [
            label
            for label, _id, _style in texts.choice_buttons(PuzzleShown(7, puzzle, 3, DEFAULT), None)
        ]
    if puzzle.game == "crown":
        with speaking("en-US"):
            english = shown_text(puzzle)
        assert not any("👑" in line for line in opponent_grid(english))
        row, column = secret.split()
        assert f"({row},{column})" not in text
    else:
        # A code shows only where anyone watching the match saw it too: a guess that happened
        # to be that code (the opponent may guess their own), never as the code itself.
        drawn = "".join(KEYCAPS[digit] for digit in secret)
        with speaking(locale):
            public = public_board(puzzle)
            board = texts.puzzle_embed(PuzzleShown(7, puzzle, 3, DEFAULT)).description or ""
        assert board.count(drawn) == public.count(drawn)
        (own,) = [t for seat, ask, t in puzzle.actions if seat == puzzle.seat and ask == Ask.SECRET]
        if own != secret:  # the same code on both sides shows as the solver's own
            assert "-".join(secret) not in text
            assert not re.search(rf"(?<!\d){secret}(?!\d)", text)
    assert len(labels) >= 2  # the code, if offered, is one choice among others


@pytest.mark.parametrize("game", SECRET_GAMES)
def test_the_pool_has_puzzles_with_secrets(game: str) -> None:
    assert any(puzzle.game == game for puzzle in POOL)
