"""Emoji boards: each game's ``Board`` drawn from a real engine state, never a secret before the
end, grids whose rows line up, a key only for what is drawn, and lines a phone does not wrap."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from bot.chat.boards import emoji as boards
from bot.chat.boards import render
from bot.chat.games import private_side
from games.base import SEATS, Outcome, Reason, Seat
from games.board import Grid, Mark
from games.grid import cells_text
from games.safe import code_text

from .helpers import play, snapshot

ALICE_ID, BOB_ID = 123456789012345678, 223456789012345678
NAMES = (f"<@{ALICE_ID}>", f"<@{BOB_ID}>")
"""How a board names the players: by their mentions (18-digit ids, as Discord's are)."""

VARIANTS: dict[str, list[dict[str, Any]]] = {
    "crown": [{}, {"hints": "auto"}],
    "claim": [{}, {"size": 4}, {"hidden": True}, {"size": 4, "hidden": True}],
    "crystal": [{}],
    "flag": [{}],
    "safe": [{}, {"digits": 9, "length": 6, "max_guesses": 20}],
}


def board(game: str, state: Any, viewer: Seat | None = None) -> str:
    engine = games.get(game)
    drawn = boards.draw(engine.board(engine.view(state, viewer)), NAMES)
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


def random_states(game: str, options: dict[str, Any], seed: int) -> list[Any]:
    """Every state of one random game of ``game``, from its start to its end."""
    engine = games.get(game)
    player = random.Random(seed)
    state = engine.new(options, seed)
    states = [state]
    while engine.to_act(state):
        seat = player.choice(sorted(engine.to_act(state)))
        legal = engine.legal_actions(state, seat)
        state, _ = engine.apply(state, seat, legal[player.randrange(len(legal))])
        states.append(state)
    return states


# ---------------------------------------------------------------------- each game


def test_crown_board_marks_attacks_and_what_the_hints_rule_out() -> None:
    state = crown_game("3 3")
    # Bob's miss on (1,3) and Alice's "row greater than 1": her row 1 is ruled out; the same for
    # Alice's miss on (1,1) and Bob's hint on his grid.
    assert board("crown", state).splitlines() == [
        f"<@{ALICE_ID}>'s Crown:",
        "⬛⬛❌",
        "⬜⬜⬜",
        "⬜⬜⬜",
        f"<@{BOB_ID}>'s Crown:",
        "❌⬛⬛",
        "⬜⬜⬜",
        "⬜⬜⬜",
        "❌ miss · ⬛ ruled out by hints",
    ]
    # Alice captures Bob's Crown (💥); her own, never found, shows as 👑; nothing is ruled out.
    won = play("crown", state, (0, "3 3"))
    assert board("crown", won).splitlines() == [
        f"<@{ALICE_ID}>'s Crown:",
        "⬜⬜❌",
        "⬜👑⬜",
        "⬜⬜⬜",
        f"<@{BOB_ID}>'s Crown:",
        "❌⬜⬜",
        "⬜⬜⬜",
        "⬜⬜💥",
        "❌ miss · 💥 captured · 👑 Crown",
    ]


def test_a_fresh_crown_board_has_no_key() -> None:
    state = play("crown", games.get("crown").new({}, 1), (0, "2 2"), (1, "3 3"))
    assert board("crown", state).splitlines()[-1] == "⬜⬜⬜"


def test_flag_board_shows_agents_flags_and_traps_that_went_off() -> None:
    state = play("flag", flag_game("2 3"), (1, "MOVE 3 3"), (0, "MOVE 2 1"), (1, "MOVE 2 3"))
    assert board("flag", state).splitlines() == [
        "🚩⬜⬜⬜⬜",
        "🔵⬜💥⬜⬜",
        "⬜⬜⬜⬜⬜",
        "⬜⬜⬜⬜⬜",
        "⬜⬜⬜⬜🔴",
        f"<@{ALICE_ID}>: 1 trap left",
        f"<@{BOB_ID}>: 2 traps left",
        "Actions: 6 of 200",
        f"🔵🚩 <@{ALICE_ID}> · 🔴 <@{BOB_ID}>",
        "💥 trap went off",
    ]


def test_flag_board_reveals_hidden_traps_once_the_game_is_over() -> None:
    engine = games.get("flag")
    state, _ = engine.conclude(flag_game("3 2"), Outcome(1, Reason.RESIGN))
    lines = board("flag", state).splitlines()
    assert lines[2] == "⬜🪤⬜⬜⬜"
    assert lines[-1] == "🪤 trap"


def test_claim_board_lines_up_a_4x4_grid_with_padded_keycaps() -> None:
    state = play("claim", games.get("claim").new({"size": 4}, 5), (0, "9"), (1, "1"))
    assert board("claim", state).splitlines() == [
        "⬜0️⃣3️⃣ ⬜0️⃣4️⃣ ⬜0️⃣5️⃣ ⬜1️⃣4️⃣",
        "⬜1️⃣0️⃣ ⬜0️⃣2️⃣ ⬜0️⃣7️⃣ ⬜0️⃣8️⃣",
        "🟥0️⃣1️⃣ ⬜1️⃣6️⃣ ⬜1️⃣1️⃣ ⬜1️⃣5️⃣",
        "⬜1️⃣3️⃣ ⬜0️⃣6️⃣ ⬜1️⃣2️⃣ 🟦0️⃣9️⃣",
        f"<@{ALICE_ID}>: 9 · <@{BOB_ID}>: 1",
        f"🟦 <@{ALICE_ID}> · 🟥 <@{BOB_ID}>",
    ]


def test_a_finished_claim_board_still_shows_every_number() -> None:
    order = [9, 8, 7, 6, 5, 4, 3, 2, 1]
    state = play(
        "claim", games.get("claim").new({}, 5), *[(i % 2, str(n)) for i, n in enumerate(order)]
    )
    assert games.get("claim").outcome(state) is not None
    assert board("claim", state).splitlines()[:4] == [
        "🟦3️⃣ 🟥4️⃣ 🟥2️⃣",
        "🟦1️⃣ 🟦9️⃣ 🟥8️⃣",
        "🟦7️⃣ 🟥6️⃣ 🟦5️⃣",
        f"<@{ALICE_ID}>: 25 · <@{BOB_ID}>: 20",
    ]


def test_hidden_claim_board_shows_only_claimed_numbers() -> None:
    state = games.get("claim").new({"hidden": True}, 5)
    state = play("claim", state, (0, "1 1"), (1, "2 2"))
    assert board("claim", state).splitlines()[:3] == [
        "🟦3️⃣ ⬜❔ ⬜❔",
        "⬜❔ 🟥9️⃣ ⬜❔",
        "⬜❔ ⬜❔ ⬜❔",
    ]


def test_crystal_board_is_a_keypad_of_crystals_with_their_takers() -> None:
    state = play("crystal", games.get("crystal").new({}, 5), (0, "9"), (1, "1"), (0, "5"))
    assert board("crystal", state).splitlines() == [
        "Crystals (exactly 15 wins):",
        "🟥1️⃣ ⬜2️⃣ ⬜3️⃣",
        "⬜4️⃣ 🟦5️⃣ ⬜6️⃣",
        "⬜7️⃣ ⬜8️⃣ 🟦9️⃣",
        f"<@{ALICE_ID}>: 14 points",
        f"<@{BOB_ID}>: 1 point",
        f"🟦 <@{ALICE_ID}> · 🟥 <@{BOB_ID}>",
    ]


def test_safe_board_lists_guesses_with_exact_matches() -> None:
    state = games.get("safe").new({}, 5)
    state = play("safe", state, (0, "123"), (1, "321"))
    assert board("safe", state).splitlines() == [
        f"<@{ALICE_ID}>'s guesses:",
        "(none yet)",
        f"<@{BOB_ID}>'s guesses:",
        "(none yet)",
        "Codes: 3 digits, each 1-3",
    ]
    state = play("safe", state, (0, "111"), (1, "321"))
    assert board("safe", state).splitlines()[:4] == [
        f"<@{ALICE_ID}>'s guesses:",
        "1️⃣1️⃣1️⃣ 1 exact match",
        f"<@{BOB_ID}>'s guesses:",
        "3️⃣2️⃣1️⃣ 1 exact match",
    ]


def test_safe_board_shows_both_codes_at_the_end() -> None:
    state = play("safe", games.get("safe").new({}, 5), (0, "123"), (1, "321"), (0, "321"))
    assert games.get("safe").outcome(state) is not None
    assert board("safe", state).splitlines()[-2:] == [
        f"<@{ALICE_ID}>'s code: 1-2-3",
        f"<@{BOB_ID}>'s code: 3-2-1",
    ]


def test_a_long_safe_game_keeps_the_latest_guesses() -> None:
    state = games.get("safe").new({"digits": 9, "length": 6}, 5)
    state = play("safe", state, (0, "999999"), (1, "999999"))
    for _ in range(30):
        state = play("safe", state, (0, "111111"), (1, "222222"))
    lines = board("safe", state).splitlines()
    assert lines[1] == "… 20 earlier"
    assert lines.count("2️⃣2️⃣2️⃣2️⃣2️⃣2️⃣ 0 exact matches") == 10


# ---------------------------------------------------------------------- every game


def test_no_secret_shows_before_the_end() -> None:
    assert board("crown", crown_game("3 3")) == board("crown", crown_game("3 2"))
    assert board("flag", flag_game("2 3")) == board("flag", flag_game("3 2"))
    for game, state in (("crown", crown_game("3 2")), ("flag", flag_game("3 2"))):
        drawn = board(game, state)
        assert "👑" not in drawn and "🪤" not in drawn


def _shown_secrets(game: str, state: Any, viewer: Seat | None) -> set[object]:
    """The secrets the board drawn for ``viewer`` shows: Crowns, traps, codes, hidden numbers."""
    engine = games.get(game)
    shown = engine.board(engine.view(state, viewer))
    found: set[object] = set()
    for grid in shown.grids:
        for r, row in enumerate(grid.rows, start=1):
            for c, cell in enumerate(row, start=1):
                if cell.mark in (Mark.CROWN, Mark.TRAP):
                    found.add((cell.mark, r, c))
                if game == "claim" and cell.mark is Mark.NUMBER:
                    found.add((Mark.NUMBER, r, c))
    found.update(line for line in shown.lines if "code:" in line or "traps:" in line)
    return found


def _secrets_of(game: str, state: Any, seat: Seat) -> set[object]:
    """What only ``seat`` may see while the game goes on, as ``_shown_secrets`` finds it."""
    if game == "crown" and state.crowns[seat] is not None:
        return {(Mark.CROWN, *state.crowns[seat])}
    if game == "flag":  # a trap under an agent is named by the "Your traps" line only
        under = set(state.agents)
        return {(Mark.TRAP, *cell) for cell in state.traps[seat] if cell not in under} | (
            {f"Your traps: {cells_text(state.traps[seat])}."} if state.traps[seat] else set()
        )
    if game == "safe" and state.codes[seat] is not None:
        return {f"Your code: {code_text(state.codes[seat])}"}
    return set()


@pytest.mark.parametrize("game", sorted(games.GAMES))
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_board_shows_only_what_its_viewer_may_see(game: str, seed: int) -> None:
    """At every step of random games: a seat's board shows its own secrets and none of the
    other seat's; the public board shows none (a hidden number is a secret of nobody's, shown
    to nobody); once over, everything is shown to everyone."""
    engine = games.get(game)
    for options in VARIANTS[game]:
        for state in random_states(game, options, seed):
            if engine.outcome(state) is not None:
                continue
            hidden_numbers = {
                (Mark.NUMBER, r, c)
                for r in range(1, 5)
                for c in range(1, 5)
                if game == "claim" and options.get("hidden")
            }
            public = _shown_secrets(game, state, None)
            assert not public & (_secrets_of(game, state, 0) | _secrets_of(game, state, 1))
            assert not public & hidden_numbers
            for seat in SEATS:
                own = _shown_secrets(game, state, seat)
                assert _secrets_of(game, state, seat) <= own
                assert not own & _secrets_of(game, state, 1 - seat) - _secrets_of(game, state, seat)
                assert not own & hidden_numbers


def test_a_secret_kept_in_a_view_is_absent_from_the_other_boards() -> None:
    """The concrete secrets: a Crown, a code, a trap, on their owner's board only."""
    crown = play("crown", games.get("crown").new({}, 1), (0, "2 2"), (1, "3 3"))
    # Each seat sees its own Crown (and the key naming it), the public neither.
    assert board("crown", crown, 0).splitlines()[2] == "⬜👑⬜"
    assert board("crown", crown, 1).splitlines()[3] == "⬜⬜👑"
    assert board("crown", crown, 0).count("👑") == board("crown", crown, 1).count("👑") == 2
    assert "👑" not in board("crown", crown, None)
    safe = play("safe", games.get("safe").new({}, 1), (0, "213"), (1, "331"))
    assert "2-1-3" in board("safe", safe, 0)
    assert "2-1-3" not in board("safe", safe, 1) + board("safe", safe, None)
    flag = flag_game("3 4")
    assert "🪤" in board("flag", flag, 0) and "Your traps: (3,4)." in board("flag", flag, 0)
    for viewer in (1, None):
        assert "🪤" not in board("flag", flag, viewer) and "(3,4)" not in board(
            "flag", flag, viewer
        )


@pytest.mark.parametrize("game", sorted(games.GAMES))
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_row_of_a_grid_is_as_wide_and_the_key_names_only_what_is_drawn(
    game: str, seed: int
) -> None:
    engine = games.get(game)
    for options in VARIANTS[game]:
        for state in random_states(game, options, seed):
            shown = engine.board(engine.view(state, None))
            for grid in shown.grids:
                assert len(set(_row_widths(grid))) <= 1, grid
            key = " · ".join(boards.key(shown, NAMES))
            drawn = "\n".join(line for g in shown.grids for line in boards.grid_lines(g, NAMES))
            for square, seat in (("🟦", 0), ("🟥", 1), ("🔵", 0), ("🔴", 1)):
                assert (square in key) == (square in drawn)
                if square in key:
                    assert NAMES[seat] in key
            for mark, emoji in boards.EMOJI.items():
                if f"{emoji} " in key:
                    assert emoji in drawn, mark


def _row_widths(grid: Grid) -> list[int]:
    """The width of each row the grid draws, without its title, its note or a count of
    earlier rows."""
    lines = boards.grid_lines(grid, NAMES)
    count = len(grid.rows) if grid.coordinates else min(len(grid.rows), boards.MAX_ROWS)
    rows = lines[-count:] if count else []
    first = len(grid.rows) - len(rows)
    return [
        boards.width(row.removesuffix(f" {grid.note(first + i)}" if grid.note(first + i) else ""))
        for i, row in enumerate(rows)
    ]


def test_grid_rows_line_up_for_claims_of_every_size() -> None:
    for options in VARIANTS["claim"]:
        for state in random_states("claim", options, 3):
            (grid,) = games.get("claim").board(games.get("claim").view(state, None)).grids
            assert len(set(_row_widths(grid))) == 1
            assert len({boards.width(line) for line in boards.grid_lines(grid, NAMES)}) == 1


# ---------------------------------------------------------------------- widths


def test_width_counts_emoji_keycaps_and_mentions_as_shown() -> None:
    assert boards.width("⬜") == 2
    assert boards.width("9️⃣") == 2
    assert boards.width("🟦1️⃣6️⃣") == 6
    assert boards.width("**Last:** x") == 7
    assert boards.width(f"<@{ALICE_ID}>") == boards.MENTION_WIDTH


def test_wrap_breaks_at_spaces_within_the_width() -> None:
    text = f"<@{ALICE_ID}>'s hint: the Crown's row is greater than 2."
    lines = boards.wrap(text)
    assert " ".join(lines) == text
    assert all(boards.width(line) <= boards.PHONE_COLUMNS for line in lines)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["⬜", "9️⃣", "**", "*", "x", "Row", f"<@{ALICE_ID}>", "🟦", "·", "-", ""]),
        max_size=12,
    ),
    st.lists(
        st.sampled_from(["⬜", "9️⃣", "**", "*", "x", "Row", f"<@{ALICE_ID}>", "🟦", "·", "-", ""]),
        max_size=12,
    ),
)
def test_a_lines_width_is_its_words_and_spaces(left: list[str], right: list[str]) -> None:
    """What ``wrap`` and ``joined`` rely on to measure each word once: widths add up across a
    space (and across `` · ``), whatever marks, mentions and emoji the words hold."""
    one, other = "".join(left), "".join(right)
    assert boards.width(f"{one} {other}") == boards.width(one) + 1 + boards.width(other)
    assert boards.width(f"{one} · {other}") == boards.width(one) + 3 + boards.width(other)


def test_wrap_and_joined_keep_every_line_within_the_width() -> None:
    words = [f"<@{ALICE_ID}>", "captures", "crystal", "9️⃣", "**Last:**", "⬜⬜⬜", "x" * 45, "·"]
    player = random.Random(7)
    for _ in range(200):
        text = " ".join(player.choice(words) for _ in range(player.randrange(1, 25)))
        lines = boards.wrap(text, indent="  ")
        assert " ".join(line.removeprefix("  ") for line in lines) == text
        assert all(
            boards.width(line) <= boards.PHONE_COLUMNS or " " not in line.strip() for line in lines
        )
        entries = text.split(" ")
        packed = boards.joined(entries, " · ")
        assert " · ".join(packed) == " · ".join(entries)
        assert all(
            boards.width(line) <= boards.PHONE_COLUMNS or " · " not in line for line in packed
        )


def _events(game: str, seed: int) -> list[str]:
    """Every public event text of one random game, and of the same game resigned half way."""
    engine = games.get(game)
    player = random.Random(seed)
    texts = []
    for options in VARIANTS[game]:
        state = engine.new(options, seed)
        while engine.to_act(state):
            if player.random() < 0.05:
                state, events = engine.conclude(state, Outcome(1, Reason.RESIGN))
            else:
                seat = player.choice(sorted(engine.to_act(state)))
                legal = engine.legal_actions(state, seat)
                state, events = engine.apply(state, seat, legal[player.randrange(len(legal))])
            texts += [event.render(NAMES) for event in events if event.public]
    return texts


@pytest.mark.parametrize("game", sorted(games.GAMES))
def test_last_fits_a_phone(game: str) -> None:
    """Every line of what just happened is at most ``PHONE_COLUMNS`` wide as Discord shows it
    (a mention counted as ``@`` and a 12-character name), whatever the game says."""
    texts = _events(game, 7)
    for start in range(0, len(texts), 3):
        shown = render.last_text(texts[start : start + 3])
        assert shown.startswith("**Last:** ")
        for line in shown.splitlines():
            assert boards.width(line) <= boards.PHONE_COLUMNS, line
        # Broken only at spaces: joined back, the events read as they were.
        assert shown.replace("\n", " ") == "**Last:** " + " ".join(texts[start : start + 3])


def test_the_embed_draws_the_board_once_without_a_code_block_or_seat_numbers() -> None:
    state = flag_game("2 3")
    snap = snapshot("flag", state, players=(ALICE_ID, BOB_ID))
    description = render.board_embed(snap, ["A long event, " * 8]).description or ""
    emoji = board("flag", state)
    assert description.count(emoji) == 1
    assert description.startswith(emoji)
    assert "```" not in description
    assert "Player 1" not in description and "Player 2" not in description
    # The board and what just happened fit a phone.
    board_and_last = description.split("\n\n")[:2]
    assert board_and_last[1].startswith("**Last:** A long event,")
    for line in "\n".join(board_and_last).splitlines():
        assert boards.width(line) <= boards.PHONE_COLUMNS, line


def test_every_game_has_its_private_side() -> None:
    assert all(private_side(game) is not None for game in games.GAMES)
    with pytest.raises(KeyError):
        private_side("chess")
