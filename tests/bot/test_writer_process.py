"""Answers on their way back from a writer process (``bot.writer_process``)."""

from __future__ import annotations

import pickle

from bot.errors import InvalidMove
from bot.writer_process import dump_answer


class NeedsTwoArguments(Exception):
    def __init__(self, first: int, second: int) -> None:
        super().__init__(f"{first}/{second}")


def test_answers_and_refusals_arrive_as_they_were() -> None:
    assert pickle.loads(dump_answer((True, [1, "two"]))) == (True, [1, "two"])
    ok, error = pickle.loads(dump_answer((False, InvalidMove("Pick a free cell."))))
    assert not ok and isinstance(error, InvalidMove) and str(error) == "Pick a free cell."


def test_a_failure_that_cannot_be_rebuilt_arrives_as_its_text() -> None:
    ok, error = pickle.loads(dump_answer((False, NeedsTwoArguments(1, 2))))
    assert not ok and isinstance(error, RuntimeError)
    assert str(error) == "NeedsTwoArguments: 1/2"


def test_an_answer_that_cannot_be_pickled_arrives_as_a_failure() -> None:
    ok, error = pickle.loads(dump_answer((True, lambda: None)))
    assert not ok and isinstance(error, RuntimeError) and "pickle" in str(error).lower()
