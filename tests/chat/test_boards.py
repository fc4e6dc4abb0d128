"""Emoji boards: each game's board from a real engine state, and never a secret before the end."""

from __future__ import annotations

from typing import Any

import pytest

import games
from bot.chat import render
from bot.chat.games import drawing
from games.base import Outcome, Reason

from .helpers import ALICE, BOB, play, snapshot

NAMES = (f"<@{ALICE}>", f"<@{BOB}>")
"""How a board names the players: by their mentions, seat 0 first."""


def board(game: str, state: Any) -> str:
    drawn = drawing(game).board(games.get(game).view(state, None), NAMES)
    assert len(drawn) < 1000
    return drawn


def crown_game(second_crown: str) -> Any:
    """Both Crowns placed, one miss each; every hint is the same whichever Crown seat 1 hid."""
    state = games.get("crown").new({}, 1)
    return play(
        "crown",
        state,
        (0, "2 2"),
        (1, second_crown),
        (0, "1 1"),
        (1, "row"),  # row greater than 1, for a Crown on 3 3 or 3 2
        (1, "1 3"),
        (0, "row"),
    )


def flag_game(first_trap: str) -> Any:
    """Seat 0 hides a trap, then both agents step where no trap lies."""
    state = games.get("flag").new({}, 1)
    return play("flag", state, (0, f"TRAP {first_trap}"), (1, "MOVE 4 4"), (0, "MOVE 2 2"))


def test_crown_board_shows_attacks_received_and_crowns_only_at_the_end() -> None:
    state = crown_game("3 3")
    assert board("crown", state) == (
        f"<@{ALICE}>'s Crown:\n⬜⬜❌\n⬜⬜⬜\n⬜⬜⬜\n<@{BOB}>'s Crown:\n❌⬜⬜\n⬜⬜⬜\n⬜⬜⬜"
    )
    # Alice captures Bob's Crown (💥); her own, never found, shows as 👑.
    won = play("crown", state, (0, "3 3"))
    assert board("crown", won) == (
        f"<@{ALICE}>'s Crown:\n⬜⬜❌\n⬜👑⬜\n⬜⬜⬜\n<@{BOB}>'s Crown:\n❌⬜⬜\n⬜⬜⬜\n⬜⬜💥"
    )


def test_flag_board_shows_agents_flags_and_traps_that_went_off() -> None:
    state = play("flag", flag_game("2 3"), (1, "MOVE 3 3"), (0, "MOVE 2 1"), (1, "MOVE 2 3"))
    assert board("flag", state) == (
        "🚩⬜⬜⬜⬜\n"
        "🔵⬜💥⬜⬜\n"
        "⬜⬜⬜⬜⬜\n"
        "⬜⬜⬜⬜⬜\n"
        "⬜⬜⬜⬜🔴\n"
        f"🔵🚩 <@{ALICE}> · 🔴🏁 <@{BOB}> · 💥 trap went off"
    )


def test_flag_board_reveals_hidden_traps_once_the_game_is_over() -> None:
    engine = games.get("flag")
    state, _ = engine.conclude(flag_game("3 2"), Outcome(1, Reason.RESIGN))
    lines = board("flag", state).splitlines()
    assert lines[2] == "⬜🪤⬜⬜⬜"
    assert lines[-1] == f"🔵🚩 <@{ALICE}> · 🔴🏁 <@{BOB}> · 🪤 trap"


def test_claim_board_keeps_claimed_numbers_beside_their_owners_colour() -> None:
    state = play("claim", games.get("claim").new({"size": 4}, 5), (0, "9"), (1, "1"))
    assert board("claim", state).splitlines() == [
        "⬜3  ⬜4  ⬜5  ⬜14",
        "⬜10  ⬜2  ⬜7  ⬜8",
        "🟥1  ⬜16  ⬜11  ⬜15",
        "⬜13  ⬜6  ⬜12  🟦9",
        f"🟦 <@{ALICE}>: 9 · 🟥 <@{BOB}>: 1",
    ]


def test_a_finished_claim_board_still_shows_every_number() -> None:
    order = [9, 8, 7, 6, 5, 4, 3, 2, 1]
    state = play(
        "claim", games.get("claim").new({}, 5), *[(i % 2, str(n)) for i, n in enumerate(order)]
    )
    assert games.get("claim").outcome(state) is not None
    assert board("claim", state).splitlines() == [
        "🟦3  🟥4  🟥2",
        "🟦1  🟦9  🟥8",
        "🟦7  🟥6  🟦5",
        f"🟦 <@{ALICE}>: 25 · 🟥 <@{BOB}>: 20",
    ]


def test_hidden_claim_board_shows_only_claimed_numbers() -> None:
    state = games.get("claim").new({"hidden": True}, 5)
    state = play("claim", state, (0, "1 1"), (1, "2 2"))
    assert board("claim", state).splitlines()[:3] == [
        "🟦3  ⬜?  ⬜?",
        "⬜?  🟥9  ⬜?",
        "⬜?  ⬜?  ⬜?",
    ]


def test_crystal_board_shows_the_pool_and_each_players_captures() -> None:
    state = play("crystal", games.get("crystal").new({}, 5), (0, "9"), (1, "1"), (0, "5"))
    assert board("crystal", state).splitlines() == [
        "Pool: 2️⃣ 3️⃣ 4️⃣ 6️⃣ 7️⃣ 8️⃣",
        f"<@{ALICE}>: 9️⃣ 5️⃣ (14 points)",
        f"<@{BOB}>: 1️⃣ (1 point)",
    ]


def test_safe_board_lists_guesses_with_exact_matches() -> None:
    state = games.get("safe").new({}, 5)
    state = play("safe", state, (0, "123"), (1, "321"))
    assert (
        board("safe", state)
        == f"<@{ALICE}>'s guesses:\n(none yet)\n<@{BOB}>'s guesses:\n(none yet)"
    )
    state = play("safe", state, (0, "111"), (1, "321"))
    assert board("safe", state) == (
        f"<@{ALICE}>'s guesses:\n1️⃣1️⃣1️⃣ 🎯 1/3\n<@{BOB}>'s guesses:\n3️⃣2️⃣1️⃣ 🎯 1/3"
    )


def test_safe_board_shows_each_code_guessed_at_the_end() -> None:
    state = play("safe", games.get("safe").new({}, 5), (0, "123"), (1, "321"), (0, "321"))
    assert games.get("safe").outcome(state) is not None
    lines = board("safe", state).splitlines()
    assert lines[0] == f"<@{ALICE}>'s guesses at 🔓 3️⃣2️⃣1️⃣:"
    assert lines[2] == f"<@{BOB}>'s guesses at 🔓 1️⃣2️⃣3️⃣:"


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


def test_the_embed_draws_the_board_once_without_a_code_block_or_seat_numbers() -> None:
    state = flag_game("2 3")
    description = render.board_embed(snapshot("flag", state)).description or ""
    emoji = board("flag", state)
    assert description.count(emoji) == 1
    assert description.startswith(f"🟦 <@{ALICE}> · 🟥 <@{BOB}> (🟦 moves first)")
    assert "```" not in description
    assert "Player 1" not in description and "Player 2" not in description


def test_every_game_has_its_drawing() -> None:
    assert all(isinstance(drawing(game).board, object) for game in games.GAMES)
    with pytest.raises(KeyError):
        drawing("chess")
