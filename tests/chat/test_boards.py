"""Emoji boards: each game's board from a real engine state, and never a secret before the end."""

from __future__ import annotations

from typing import Any

import pytest

import games
from bot.chat import render
from bot.chat.games import drawing
from games.base import Outcome, Reason

from .helpers import play, snapshot


def board(game: str, state: Any) -> str:
    drawn = drawing(game).board(games.get(game).view(state, None))
    assert len(drawn) < 1000
    return drawn


def crown_game(player_2_crown: str) -> Any:
    """Both Crowns placed, one miss each; every hint is the same whichever Crown Player 2 hid."""
    state = games.get("crown").new({}, 1)
    return play(
        "crown",
        state,
        (0, "2 2"),
        (1, player_2_crown),
        (0, "1 1"),
        (1, "row"),  # row greater than 1, for a Crown on 3 3 or 3 2
        (1, "1 3"),
        (0, "row"),
    )


def flag_game(player_1_trap: str) -> Any:
    """Player 1 hides a trap, then both agents step where no trap lies."""
    state = games.get("flag").new({}, 1)
    return play("flag", state, (0, f"TRAP {player_1_trap}"), (1, "MOVE 4 4"), (0, "MOVE 2 2"))


def test_crown_board_shows_attacks_received_and_crowns_only_at_the_end() -> None:
    state = crown_game("3 3")
    assert board("crown", state) == (
        "Player 1's grid:\n⬜⬜❌\n⬜⬜⬜\n⬜⬜⬜\nPlayer 2's grid:\n❌⬜⬜\n⬜⬜⬜\n⬜⬜⬜"
    )
    won = play("crown", state, (0, "3 3"))
    assert board("crown", won) == (
        "Player 1's grid:\n⬜⬜❌\n⬜👑⬜\n⬜⬜⬜\nPlayer 2's grid:\n❌⬜⬜\n⬜⬜⬜\n⬜⬜👑"
    )


def test_flag_board_shows_agents_flags_and_traps_that_went_off() -> None:
    state = play("flag", flag_game("2 3"), (1, "MOVE 3 3"), (0, "MOVE 2 1"), (1, "MOVE 2 3"))
    assert board("flag", state) == (
        "🚩⬜⬜⬜⬜\n"
        "🔵⬜💥⬜⬜\n"
        "⬜⬜⬜⬜⬜\n"
        "⬜⬜⬜⬜⬜\n"
        "⬜⬜⬜⬜🔴\n"
        "🔵🚩 Player 1 · 🔴🏁 Player 2 · 💥 trap went off"
    )


def test_flag_board_reveals_hidden_traps_once_the_game_is_over() -> None:
    engine = games.get("flag")
    state, _ = engine.conclude(flag_game("3 2"), Outcome(1, Reason.RESIGN))
    assert board("flag", state).splitlines()[2] == "⬜🪤⬜⬜⬜"


def test_claim_board_colours_claims_by_seat() -> None:
    state = play("claim", games.get("claim").new({"size": 4}, 5), (0, "9"), (1, "1"))
    assert board("claim", state).splitlines() == [
        "3️⃣ 4️⃣ 5️⃣ 14",
        "🔟 2️⃣ 7️⃣ 8️⃣",
        "🟥 16 11 15",
        "13 6️⃣ 12 🟦",
        "🟦 Player 1 · 🟥 Player 2",
    ]


def test_hidden_claim_board_shows_only_claimed_cells() -> None:
    state = games.get("claim").new({"hidden": True}, 5)
    state = play("claim", state, (0, "1 1"), (1, "2 2"))
    assert board("claim", state).splitlines()[:3] == ["🟦 ❔ ❔", "❔ 🟥 ❔", "❔ ❔ ❔"]


def test_crystal_board_shows_the_pool_and_each_players_captures() -> None:
    state = play("crystal", games.get("crystal").new({}, 5), (0, "9"), (1, "1"), (0, "5"))
    assert board("crystal", state).splitlines() == [
        "Pool: 2️⃣ 3️⃣ 4️⃣ 6️⃣ 7️⃣ 8️⃣",
        "Player 1: 9️⃣ 5️⃣ (14 points)",
        "Player 2: 1️⃣ (1 point)",
    ]


def test_safe_board_lists_guesses_with_exact_matches() -> None:
    state = games.get("safe").new({}, 5)
    state = play("safe", state, (0, "123"), (1, "321"), (0, "111"), (1, "321"))
    assert board("safe", state) == (
        "Player 1's guesses:\n1️⃣1️⃣1️⃣ 🎯 1/3\nPlayer 2's guesses:\n3️⃣2️⃣1️⃣ 🎯 1/3"
    )


def test_a_long_safe_game_keeps_the_latest_guesses() -> None:
    state = games.get("safe").new({"digits": 9, "length": 6}, 5)
    state = play("safe", state, (0, "999999"), (1, "999999"))
    for _ in range(30):
        state = play("safe", state, (0, "111111"), (1, "222222"))
    lines = board("safe", state).splitlines()
    assert lines[1] == "… 20 earlier"
    assert lines.count("2️⃣2️⃣2️⃣2️⃣2️⃣2️⃣ 🎯 0/6") == 10


def test_no_secret_shows_before_the_end() -> None:
    assert board("crown", crown_game("3 3")) == board("crown", crown_game("3 2"))
    assert board("flag", flag_game("2 3")) == board("flag", flag_game("3 2"))
    for game, state in (("crown", crown_game("3 2")), ("flag", flag_game("3 2"))):
        drawn = board(game, state)
        assert "👑" not in drawn and "🪤" not in drawn


def test_board_embed_puts_the_emoji_board_above_the_text_board() -> None:
    state = flag_game("2 3")
    description = render.board_embed(snapshot("flag", state)).description or ""
    emoji = board("flag", state)
    assert emoji in description
    assert description.index(emoji) < description.index("```")
    assert games.get("flag").describe(games.get("flag").view(state, None)) in description


def test_every_game_has_its_drawing() -> None:
    assert all(isinstance(drawing(game).board, object) for game in games.GAMES)
    with pytest.raises(KeyError):
        drawing("chess")
