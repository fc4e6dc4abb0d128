"""Numbers in a reader's language: a review's averages and chances are written as the reader
writes numbers (``2,50`` and ``62 %`` in German), and as before in English."""

from __future__ import annotations

import re

import pytest

from bot.i18n import speaking
from games.words import decimal, percent
from tests.i18n.test_review import review_texts, shown_in

NBSP = "\xa0"


@pytest.mark.parametrize(
    ("locale", "average", "chance"),
    [
        (None, "2.50", "62%"),
        ("de", "2,50", f"62{NBSP}%"),
        ("fr", "2,50", f"62{NBSP}%"),
        ("es-ES", "2,50", f"62{NBSP}%"),
        ("pt-BR", "2,50", "62%"),
    ],
)
def test_decimals_and_percentages_follow_the_readers_language(
    locale: str | None, average: str, chance: str
) -> None:
    with speaking(locale):
        assert decimal(2.5, 2) == average
        assert percent(0.625) == chance


DOT_DECIMAL = re.compile(r"\d\.\d")
COMMA_DECIMAL = re.compile(r"\d,\d\d")


@pytest.mark.parametrize(
    ("game", "options"),
    [("crown", {}), ("safe", {}), ("claim", {"hidden": True})],
)
def test_a_german_review_writes_its_numbers_in_german(
    game: str, options: dict[str, object]
) -> None:
    shown = shown_in(game, options, 1)  # judged once, worded for each reader
    with speaking(None):
        read_in_english = " ".join(review_texts(shown))
    with speaking("de"):
        read_in_german = " ".join(review_texts(shown))
    if game == "claim":
        assert re.search(r"\d%", read_in_english)
        assert re.search(rf"\d{NBSP}%", read_in_german) and not re.search(r"\d%", read_in_german)
    else:
        assert DOT_DECIMAL.search(read_in_english) and not COMMA_DECIMAL.search(read_in_english)
        assert COMMA_DECIMAL.search(read_in_german) and not DOT_DECIMAL.search(read_in_german)
