"""Players' names at the terminal: events in the second person for "You", marks, results."""

from __future__ import annotations

import random
import re

import pytest

from bot.terminal.names import Names, second_person
from games import GAMES
from games.base import SEATS, Event, Outcome, Reason

WRONG_FOR_YOU = re.compile(r"\b[Yy]ou (?:has|is|was|\w*[^s\W]s)\b|\b[Yy]ou's\b|[{}]")
"""A verb left in the third person after "you", a "you's", or a placeholder left unfilled."""


@pytest.mark.parametrize(
    ("text", "seat", "expected"),
    [
        ("{p0} attacks (2,2): Miss.", 0, "You attack (2,2): Miss."),
        ("{p1} has placed their Crown.", 1, "You have placed your Crown."),
        (
            "{p0} wins: {p1}'s Crown is captured at (2,1).",
            1,
            "{p0} wins: your Crown is captured at (2,1).",
        ),
        (
            "Trap triggered at (4,4)! {p1}'s agent returns to their flag at (5,5).",
            1,
            "Trap triggered at (4,4)! Your agent returns to your flag at (5,5).",
        ),
        (
            "{p0} cannot capture without going over 15 and passes.",
            0,
            "You cannot capture without going over 15 and pass.",
        ),
        ("{p1} guesses 1-1-1: 1 exact match.", 1, "You guess 1-1-1: 1 exact match."),
        ("{p0} captures the flag at (5,5) and wins!", 0, "You capture the flag at (5,5) and win!"),
        ("{p1} resigns: {p0} wins.", 0, "{p1} resigns: you win."),
        (
            "{p0}'s Crown was at (3,3); {p1}'s Crown was at (2,1).",
            1,
            "{p0}'s Crown was at (3,3); your Crown was at (2,1).",
        ),
        ("Both codes are set. {p0} guesses first.", 0, "Both codes are set. You guess first."),
        ("{p1} has placed their Crown.", 0, "{p1} has placed their Crown."),
    ],
)
def test_an_event_about_you_reads_in_the_second_person(text: str, seat: int, expected: str) -> None:
    assert second_person(text, seat) == expected


def every_event_text(game_name: str, seed: int) -> list[str]:
    """The texts of every event of a random game of ``game_name``, ended by a resignation
    halfway through on odd seeds."""
    game = GAMES[game_name]
    rng = random.Random(seed)
    state = game.new({}, seed)
    texts: list[str] = []
    moves = 0
    while game.outcome(state) is None:
        if seed % 2 and moves == 6:
            state, events = game.conclude(state, Outcome(rng.choice(SEATS), Reason.RESIGN))
        else:
            seat = min(game.to_act(state))
            legal = game.legal_actions(state, seat)
            state, events = game.apply(state, seat, legal[rng.randrange(len(legal))])
        texts += [event.text for event in events]
        moves += 1
    return texts


@pytest.mark.parametrize("game_name", sorted(GAMES))
def test_every_event_reads_right_for_you_against_the_bot(game_name: str) -> None:
    for seed in range(12):
        for bot_seat in SEATS:
            names = Names.against_bot(bot_seat)
            for text in every_event_text(game_name, seed):
                line = names.render(Event("any", text))
                assert not WRONG_FOR_YOU.search(line), f"{text!r} read as {line!r}"


def test_marks_are_initials_unless_they_clash() -> None:
    assert Names(("Alice", "Bob")).tags == ("A", "B")
    assert Names(("Ann", "Al")).tags == ("X", "O")
    assert Names().tags == ("X", "O")
    assert Names.against_bot(1).tags == ("Y", "P")
    assert Names.against_bot(0).tags == ("P", "Y")


def test_the_result_is_worded_for_the_people_playing() -> None:
    named = Names(("Alice", "Bob"))
    you_second = Names.against_bot(0)

    assert named.result(Outcome(1, Reason.CAPTURE)) == "Bob (Player 2) wins the game!"
    assert named.result(Outcome(None, Reason.SCORE)) == "Draw."
    assert you_second.result(Outcome(1, Reason.CAPTURE)) == "You (Player 2) win the game!"
    assert you_second.result(Outcome(0, Reason.CAPTURE)) == "Parlor (Player 1) wins the game!"
    assert Names().result(Outcome(0, Reason.CAPTURE)) == "Player 1 wins the game!"


def test_a_prompt_to_you_has_no_name() -> None:
    assert Names(("Alice", "Bob")).asking(1, "set your code") == "Bob, set your code"
    assert Names.against_bot(1).asking(0, "set your code") == "Set your code"
