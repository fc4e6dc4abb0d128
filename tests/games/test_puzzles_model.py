"""A puzzle survives JSON unchanged, phrases and all, and its key names the position alone."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import Ask
from games.puzzles import FORMAT_VERSION, Choice, Puzzle, position_key, worded
from games.review import Mark
from games.review.phrasing import Phrase, _, decimal

texts = st.text(min_size=1, max_size=12)
numbers = st.floats(min_value=-100, max_value=100, allow_nan=False)
played = st.tuples(
    st.integers(min_value=0, max_value=1), st.sampled_from(list(Ask)), st.text(max_size=10)
)


@st.composite
def puzzles(draw: st.DrawFn) -> Puzzle:
    actions = tuple(draw(st.lists(played, max_size=8)))
    choices = tuple(
        Choice(
            action=draw(texts),
            move=_("capture {number}", number=draw(st.integers(1, 9))),
            value=draw(numbers),
            loss=draw(st.floats(min_value=0, max_value=10, allow_nan=False)),
        )
        for _number in range(draw(st.integers(min_value=2, max_value=5)))
    )
    return Puzzle(
        game=draw(st.sampled_from(["crystal", "claim", "crown", "safe", "flag"])),
        options=draw(st.dictionaries(st.sampled_from(["size", "shape", "hidden"]), st.integers())),
        seed=draw(st.integers(min_value=0, max_value=2**31)),
        actions=actions,
        seat=draw(st.integers(min_value=0, max_value=1)),
        ask=draw(st.sampled_from([Ask.ACTION, Ask.HINT])),
        question=_("Your move: which crystal wins?"),
        choices=choices,
        answer=choices[0].action,
        why=_("The others lose {loss} at least.", loss=decimal(draw(numbers), 2)),
        unit=draw(st.sampled_from(["moves", "outcome", "chance"])),
        margin=draw(st.floats(min_value=0, max_value=10, allow_nan=False)),
        played=draw(texts),
        mark=draw(st.sampled_from(list(Mark))),
        move_number=draw(st.integers(min_value=1, max_value=200)),
        exact=draw(st.booleans()),
    )


@settings(max_examples=80, deadline=None)
@given(puzzles())
def test_a_puzzle_survives_json_with_its_phrases(puzzle: Puzzle) -> None:
    stored = json.loads(json.dumps(puzzle.dump()))
    assert stored["version"] == FORMAT_VERSION
    back = Puzzle.load(stored)
    assert back == puzzle
    assert back.key == puzzle.key
    assert isinstance(back.why, Phrase) and back.why.msgid == puzzle.why.msgid  # type: ignore[attr-defined]
    assert all(isinstance(choice.move, Phrase) for choice in back.choices)
    assert back.best.action == puzzle.answer
    assert worded(back) == worded(puzzle)


def test_a_puzzle_of_another_format_is_refused() -> None:
    puzzle = Puzzle(
        "crystal", {}, 1, (), 0, Ask.ACTION, "q", (Choice("1", "1", 1.0, 0.0),), "1", "w",
        "outcome", 1.0, "1", Mark.BEST, 1, True,
    )  # fmt: skip
    with pytest.raises(ValueError, match="format"):
        Puzzle.load({**puzzle.dump(), "version": FORMAT_VERSION + 1})


def test_the_key_is_the_position_alone_and_stable() -> None:
    log = ((0, Ask.SECRET, "3,4"), (1, "secret", "1,1"), (0, Ask.ACTION, "2,2"))
    key = position_key("crown", {"size": 5}, 7, log)
    assert key == position_key(
        "crown", {"size": 5}, 7, [tuple(a) for a in json.loads(json.dumps(log))]
    )
    assert len(key) == 64 and int(key, 16) >= 0
    for other in (
        position_key("crown", {"size": 6}, 7, log),
        position_key("crown", {"size": 5}, 8, log),
        position_key("crown", {"size": 5}, 7, log[:2]),
        position_key("safe", {"size": 5}, 7, log),
    ):
        assert other != key
    # Pinned: a later version must find the same stored puzzle for the same position.
    assert position_key("crystal", {}, 1, ()) == (
        "39957daa8b67dd32882dd6f228df631d4a1d326d6a59c85073c0c145c644feeb"
    )
