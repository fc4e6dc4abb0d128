"""Rendering without Discord: button ids, move layouts, boards, prompts, what they never show."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import games
from bot.chat.after_game.commands import BOARD_REVIEW_TEMPLATE
from bot.chat.boards import render
from bot.chat.components import (
    ACTION_TEMPLATE,
    CHALLENGE_TEMPLATE,
    NOOP_TEMPLATE,
    OPEN_TEMPLATE,
    Layout,
    Press,
    Verb,
)
from bot.chat.games.flag import PRIVATE_SIDE as FLAG
from bot.service.notices import Private
from games.base import Ask, Event

from .helpers import ALICE, BOB, args, play, prompt, snapshot

TEMPLATES = [
    re.compile(t)
    for t in (
        CHALLENGE_TEMPLATE,
        ACTION_TEMPLATE,
        OPEN_TEMPLATE,
        NOOP_TEMPLATE,
        BOARD_REVIEW_TEMPLATE,
    )
]


def check_limits(layout: Layout) -> None:
    """What Discord accepts: 5 rows of at most 5 buttons, unique ids of at most 100 characters."""
    assert len(layout) <= 5
    ids = [b.press.custom_id for row in layout for b in row]
    assert len(ids) == len(set(ids))
    for row in layout:
        assert 1 <= len(row) <= 5
        for button in row:
            assert 1 <= len(button.label) <= 80
            assert len(button.press.custom_id) <= 100
            # Every button is a dynamic item: exactly one registered template reads its id.
            matching = [t for t in TEMPLATES if t.fullmatch(button.press.custom_id)]
            assert len(matching) == 1, button.press.custom_id
            assert (matching[0].pattern == NOOP_TEMPLATE) == button.disabled


# ---------------------------------------------------------------------- ids


@pytest.mark.parametrize(
    "press",
    [
        Press("crown", 1, 0, Verb.ACCEPT),
        Press("flag", 2**63 - 1, 10**8, Verb.PLAY, "TRAP 5 5"),
        Press("claim", 12, 4, Verb.PLAY, "16"),
        Press("safe", 3, 9, Verb.GUESS),
        Press("crown", 3, 9, Verb.SECRET, "2 3"),
    ],
)
def test_a_press_survives_its_custom_id(press: Press) -> None:
    assert Press.parse(press.custom_id) == press
    assert len(press.custom_id) <= 100


def test_foreign_custom_ids_are_not_presses() -> None:
    assert Press.parse("counter:3:user:9") is None
    assert Press.parse("") is None


def test_each_verb_has_one_template() -> None:
    routed = {
        Verb.ACCEPT: 0,
        Verb.DECLINE: 0,
        Verb.WITHDRAW: 0,
        Verb.REMATCH: 0,
        Verb.PLAY: 1,
        Verb.SECRET: 1,
        Verb.TRAP: 2,
        Verb.GUESS: 2,
        Verb.CODE: 2,
        Verb.ASK: 2,
        Verb.REVIEW: 4,
    }
    for verb, index in routed.items():
        custom_id = Press("crown", 5, 2, verb, "1 1" if index == 1 else "").custom_id
        assert [i for i, t in enumerate(TEMPLATES) if t.fullmatch(custom_id)] == [index]
    for arg in ("", "1 1"):
        custom_id = Press("crown", 5, 2, Verb.NOOP, arg).custom_id
        assert [i for i, t in enumerate(TEMPLATES) if t.fullmatch(custom_id)] == [3]


# ---------------------------------------------------------------------- move layouts


def test_crown_attack_grid_disables_attacked_cells() -> None:
    state = play("crown", games.get("crown").new({}, 1), (0, "1 1"), (1, "3 3"), (0, "2 2"))
    state = play("crown", state, (1, "row"))  # Bob's hint for Alice's miss: Bob attacks next
    snap = snapshot("crown", state)
    layout = render.move_layout(snap)
    check_limits(layout)
    assert snap.to_act == (BOB,)
    assert args(layout, Verb.PLAY) == {f"{r} {c}" for r in (1, 2, 3) for c in (1, 2, 3)}
    state = play("crown", state, (1, "1 2"), (0, "column"))
    layout = render.move_layout(snapshot("crown", state))
    assert "2 2" not in args(layout, Verb.PLAY)
    assert len(args(layout, Verb.PLAY)) == 8


def test_crown_waiting_for_a_hint_offers_no_public_buttons() -> None:
    state = play("crown", games.get("crown").new({}, 1), (0, "1 1"), (1, "3 3"), (0, "2 2"))
    snap = snapshot("crown", state)
    assert snap.asks == {BOB: Ask.HINT}
    assert render.move_layout(snap) == ()
    assert "choose the hint" in render.board_post(snap, ("Miss.",)).content


def test_claim_buttons_are_the_unclaimed_numbers_in_grid_order() -> None:
    state = play("claim", games.get("claim").new({}, 5), (0, "9"), (1, "1"))
    layout = render.move_layout(snapshot("claim", state))
    check_limits(layout)
    assert args(layout, Verb.PLAY) == {str(n) for n in range(2, 9)}
    assert [len(row) for row in layout] == [3, 3, 3]


def test_hidden_claim_buttons_carry_cells_never_values() -> None:
    engine = games.get("claim")
    state = play("claim", engine.new({"hidden": True, "size": 4}, 5), (0, "1 1"))
    snap = snapshot("claim", state)
    layout = render.move_layout(snap)
    check_limits(layout)
    assert len(args(layout, Verb.PLAY)) == 15
    for row in layout:
        for button in row:
            if not button.disabled:
                assert button.label == "?"
                assert re.fullmatch(r"[1-4] [1-4]", button.press.arg)


def test_crystal_buttons_leave_out_taken_crystals_and_those_over_15() -> None:
    state = play("crystal", games.get("crystal").new({}, 1), (0, "9"), (1, "1"))
    layout = render.move_layout(snapshot("crystal", state))
    check_limits(layout)
    # Alice has 9: 2-6 keep her at or under 15; 1 and 9 are taken.
    assert args(layout, Verb.PLAY) == {"2", "3", "4", "5", "6"}
    disabled = [b.label for row in layout for b in row if b.disabled]
    assert disabled == ["1 · taken", "7 · over 15", "8 · over 15", "9 · taken"]


def test_flag_moves_do_not_depend_on_the_movers_own_traps() -> None:
    engine = games.get("flag")
    start = play("flag", engine.new({}, 1), (0, "MOVE 2 2"), (1, "MOVE 4 4"))
    with_trap = play("flag", start, (0, "TRAP 2 3"), (1, "MOVE 4 3"))
    without = play("flag", start, (0, "TRAP 5 1"), (1, "MOVE 4 3"))
    a, b = (render.move_layout(snapshot("flag", s)) for s in (with_trap, without))
    check_limits(a)
    assert a == b
    assert "MOVE 2 3" in args(a, Verb.PLAY)
    assert len(args(a, Verb.PLAY)) == 8
    assert args(a, Verb.TRAP) == {""}


def test_flag_moves_stop_at_the_edge_and_at_the_other_agent() -> None:
    state = play("flag", games.get("flag").new({}, 1), (0, "MOVE 2 2"), (1, "MOVE 4 4"))
    state = play("flag", state, (0, "MOVE 3 3"))
    state = play("flag", state, (1, "MOVE 4 3"))
    moves = args(render.move_layout(snapshot("flag", state)), Verb.PLAY)
    assert "MOVE 4 3" not in moves
    assert len(moves) == 7
    corner = render.move_layout(snapshot("flag", games.get("flag").new({}, 1)))
    assert args(corner, Verb.PLAY) == {"MOVE 1 2", "MOVE 2 1", "MOVE 2 2"}


def test_flag_trap_button_is_disabled_once_both_traps_are_placed() -> None:
    state = play(
        "flag",
        games.get("flag").new({}, 1),
        (0, "TRAP 3 3"),
        (1, "MOVE 4 4"),
        (0, "TRAP 3 4"),
        (1, "MOVE 4 3"),
    )
    layout = render.move_layout(snapshot("flag", state))
    assert args(layout, Verb.TRAP) == set()
    assert "Trap (0 left)" in [b.label for row in layout for b in row]


def test_safe_offers_a_guess_form() -> None:
    state = play("safe", games.get("safe").new({}, 1), (0, "123"), (1, "321"))
    layout = render.move_layout(snapshot("safe", state))
    assert args(layout, Verb.GUESS) == {""}


def test_finished_boards_offer_a_rematch_and_the_review_only() -> None:
    state = play("crystal", games.get("crystal").new({}, 1), (0, "9"), (1, "1"), (0, "6"))
    post = render.board_post(snapshot("crystal", state), ("Alice wins.",))
    assert [[b.press.verb for b in row] for row in post.layout] == [[Verb.REMATCH, Verb.REVIEW]]
    assert post.ping == ()
    assert post.content == ""  # the result is in the embed, once
    assert post.embed is not None and "**Last:** Alice wins." in (post.embed.description or "")


def test_the_board_embed_says_what_happened_before_and_when_the_move_is_due() -> None:
    state = play("crystal", games.get("crystal").new({}, 1), (0, "9"))
    due = datetime(2026, 1, 1, 12, 10, tzinfo=UTC)
    snap = replace(
        snapshot("crystal", state),
        deadline=due,
        deadline_kind="turn",
        history=("Coin toss.", "<@11> captures crystal 9."),
    )
    post = render.board_post(snap, ("Latest.",))
    assert post.content == f"<@{BOB}>, your move."
    assert post.embed is not None and post.embed.title == "Crystal Capture · match #7"
    description = post.embed.description or ""
    assert "**Last:** Latest.\n\n· Coin toss.\n· <@11> captures crystal 9." in description
    assert description.endswith(f"⏳ The move is due <t:{int(due.timestamp())}:R>.")


def test_the_footer_names_only_the_options_that_differ_from_the_defaults() -> None:
    claim = games.get("claim")
    default = render.board_embed(snapshot("claim", claim.new({}, 5)))
    assert default.footer.text is None
    chosen = render.board_embed(snapshot("claim", claim.new({"size": 4, "hidden": True}, 5)))
    assert chosen.footer.text == "size: 4 · hidden: yes"
    assert render.options_text("safe", {"digits": 3, "length": 3, "max_guesses": 5}) == (
        "max guesses: 5"
    )


# ---------------------------------------------------------------------- no secret in public


def _public_texts(game: str, state: Any) -> list[str]:
    """Everything a public post of ``state`` carries: content, embed, labels and custom ids."""
    post = render.board_post(snapshot(game, state), ("Something happened.",))
    texts = [post.content, str(post.embed.to_dict() if post.embed else "")]
    texts += [f"{b.label}|{b.press.custom_id}" for row in post.layout for b in row]
    return texts


@pytest.mark.parametrize(
    ("game", "first", "second", "moves"),
    [
        ("crown", [(0, "1 1"), (1, "3 3")], [(0, "2 3"), (1, "3 1")], [(0, "2 2")]),
        ("crown", [(0, "1 1")], [(0, "3 2")], []),
        ("safe", [(0, "123"), (1, "321")], [(0, "233"), (1, "133")], [(0, "111")]),
        ("flag", [(0, "TRAP 3 3")], [(0, "TRAP 4 1")], [(1, "MOVE 4 4")]),
    ],
)
def test_public_posts_are_the_same_whatever_the_secrets(
    game: str,
    first: list[tuple[int, str]],
    second: list[tuple[int, str]],
    moves: list[tuple[int, str]],
) -> None:
    engine = games.get(game)
    a = play(game, play(game, engine.new({}, 3), *first), *moves)
    b = play(game, play(game, engine.new({}, 3), *second), *moves)
    assert _public_texts(game, a) == _public_texts(game, b)


def test_hidden_claim_posts_show_no_unclaimed_number() -> None:
    engine = games.get("claim")
    state = play("claim", engine.new({"hidden": True}, 1), (0, "2 2"))
    post = render.board_post(snapshot("claim", state), ())
    unclaimed = {str(v) for i, v in enumerate(state.grid) if i != 4}
    labels = {b.label for row in post.layout for b in row if not b.disabled}
    assert labels == {"?"}
    assert not unclaimed & {b.press.arg for row in post.layout for b in row}
    described = (post.embed.description or "") if post.embed else ""
    # The grid rows: cells start with a colour square; the names and totals lines hold mentions.
    grid = [
        line
        for line in described.splitlines()
        if line.startswith(("⬜", "🟦", "🟥")) and "<@" not in line
    ]
    assert len(grid) == 3
    assert re.findall(r"\d+", "".join(grid)) == [str(state.grid[4])]


# ---------------------------------------------------------------------- random play


def _random_states(game: str, seed: int, options: dict[str, Any]) -> list[Any]:
    """Every state of one random game, setup secrets included."""
    engine = games.get(game)
    rng = random.Random(seed)
    state = engine.new(options, seed)
    states = [state]
    while engine.outcome(state) is None:
        seat = rng.choice(sorted(engine.to_act(state)))
        actions = engine.legal_actions(state, seat)
        action = actions[rng.randrange(len(actions))]
        state, _ = engine.apply(state, seat, action)
        states.append(state)
    return states


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(sorted(games.GAMES)),
    seed=st.integers(0, 2**31),
    options=st.sampled_from([{}, {"size": 4}, {"hidden": True}, {"digits": 5, "length": 4}]),
)
def test_every_board_of_a_random_game_fits_discord_and_offers_exactly_the_legal_moves(
    game: str, seed: int, options: dict[str, Any]
) -> None:
    engine = games.get(game)
    try:
        engine.new(options, seed)
    except ValueError:
        options = {}
    for state in _random_states(game, seed, options)[:60]:
        snap = snapshot(game, state)
        post = render.board_post(snap, ("Update.",))
        check_limits(post.layout)
        assert len(post.content) <= render.CONTENT_MAX
        assert post.embed is not None
        description = post.embed.description or ""
        assert len(description) <= render.EMBED_DESCRIPTION_MAX
        assert "```" not in description and "Player 1" not in description
        if snap.status != "active" or snap.asks.get(snap.to_act[0]) is not Ask.ACTION:
            continue
        seat = snap.seat_of(snap.to_act[0])
        assert seat is not None
        legal = {str(a) for a in engine.legal_actions(state, seat)}
        offered = args(post.layout, Verb.PLAY)
        if game == "flag":
            moves = {a for a in legal if a.startswith("MOVE")}
            # Moves onto the mover's own traps stay offered (the engine refuses them privately).
            assert moves <= offered
            own = {f"MOVE {r} {c}" for r, c in state.traps[seat]}
            assert offered - moves <= own
        elif game != "safe":
            assert offered == legal


# ---------------------------------------------------------------------- private posts


def test_secret_prompt_names_match_opponent_and_server_and_holds_the_grid() -> None:
    ask = prompt("crown", games.get("crown").new({}, 1), 1)
    post = render.prompt_post(
        ask, server="Duel Club", board="https://discord.com/channels/500/600/900"
    )
    assert "match #7" in post.content
    assert f"<@{ALICE}>" in post.content
    assert "Duel Club" in post.content and "<#600>" in post.content
    assert "(https://discord.com/channels/500/600/900)" in post.content
    check_limits(post.layout)
    assert args(post.layout, Verb.SECRET) == {f"{r} {c}" for r in (1, 2, 3) for c in (1, 2, 3)}


def test_hint_prompt_offers_both_true_hints_version_checked() -> None:
    state = play("crown", games.get("crown").new({}, 1), (0, "1 1"), (1, "3 3"), (0, "2 2"))
    post = render.prompt_post(
        prompt("crown", state, 1), server="S", board="https://example.invalid/board"
    )
    assert args(post.layout, Verb.PLAY) == {"row", "column"}
    assert "`row` or `column`" in post.content


def test_safe_prompt_opens_a_form_and_explains_the_code_shape() -> None:
    state = games.get("safe").new({"digits": 5, "length": 4}, 1)
    post = render.prompt_post(
        prompt("safe", state, 0), server="S", board="https://example.invalid/board"
    )
    assert args(post.layout, Verb.CODE) == {""}
    assert "4 digits, each 1-5" in post.content


def test_trap_picker_blocks_flags_agents_and_own_traps_only() -> None:
    engine = games.get("flag")
    state = play("flag", engine.new({}, 1), (0, "TRAP 3 3"), (1, "TRAP 3 4"))
    post = FLAG.trap_picker(snapshot("flag", state), engine.view(state, 0))
    check_limits(post.layout)
    cells = args(post.layout, Verb.PLAY)
    assert len(cells) == 25 - 2 - 1  # two flags with agents on them, one own trap
    assert "TRAP 3 3" not in cells
    assert "TRAP 3 4" in cells  # the opponent's trap is no obstacle (and not shown)
    assert "Your traps: (3,3)." in post.content


def test_dm_refused_post_mentions_the_player_and_offers_the_prompt_here() -> None:
    ask = prompt("crown", games.get("crown").new({}, 1), 0)
    post = render.dm_refused_post(ask)
    assert post.content.startswith(f"<@{ALICE}>")
    assert post.ping == (ALICE,)
    assert args(post.layout, Verb.ASK) == {""}


def test_private_text_names_the_match() -> None:
    snap = snapshot("crown", games.get("crown").new({}, 1))
    told = Private(snap, ALICE, Event("secret", "Your Crown is at (2,3).", 0))
    assert render.private_text(told) == ("Match #7: Your Crown is at (2,3).")


# ---------------------------------------------------------------------- challenge and text


def test_challenge_post_pings_the_opponent_and_offers_three_answers() -> None:
    snap = snapshot("crown", games.get("crown").new({}, 1))
    post = render.challenge_post(snap, ("<@22>, <@11> challenges you.",))
    assert post.ping == (BOB,)
    assert [b.press.verb for b in post.layout[0]] == [Verb.ACCEPT, Verb.DECLINE, Verb.WITHDRAW]
    closed = render.closed_challenge_post(snap, ("Declined.",))
    assert closed.layout == ()
    assert "Declined." in closed.content


def test_fit_keeps_both_ends_within_the_limit() -> None:
    text = "start " + "x" * 5000 + " end"
    cut = render.fit(text, 2000)
    assert len(cut) <= 2000
    assert cut.startswith("start") and cut.endswith("end")
    assert render.fit("short") == "short"
