"""Reading what members type: durations for /settings, match numbers in DM answers, /rules."""

from __future__ import annotations

import pytest

import games
from bot.chat.dms.typed import split_answer
from bot.chat.shared_commands import parse_duration, rules_text


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90s", 90),
        ("10m", 600),
        ("10", 600),
        (" 2 h ", 7200),
        ("1d", 86400),
        ("3 days", 3 * 86400),
        ("45 seconds", 45),
        ("5 MIN", 300),
    ],
)
def test_durations_read_with_a_unit_or_as_minutes(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "soon", "10 weeks", "-5m", "1.5h", "m"])
def test_unreadable_durations_say_what_is_accepted(text: str) -> None:
    with pytest.raises(ValueError, match=r"e\.g\. 90s, 10m, 2h or 1d"):
        parse_duration(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2 3", (None, "2 3")),
        ("  row ", (None, "row")),
        ("#12 2 3", (12, "2 3")),
        ("# 7   TRAP 3 4", (7, "TRAP 3 4")),
        ("#12", (None, "#12")),
    ],
)
def test_a_dm_answer_may_start_with_its_match_number(
    text: str, expected: tuple[int | None, str]
) -> None:
    assert split_answer(text) == expected


def test_every_game_has_short_rules() -> None:
    for name in games.GAMES:
        text = rules_text(name, [])
        assert games.get(name).title in text
        assert len(text) < 2000


def test_claim_rules_say_the_first_player_wins_and_the_variants_matter() -> None:
    text = rules_text("claim", [])
    assert "first player always wins by taking the largest number" in text
    assert "variants make it interesting" in text
