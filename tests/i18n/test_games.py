"""Game texts in every language: events worded from their kind and data, boards, hints,
results and reveals, with no English left beside the players' names, and every text within
Discord's limits and a phone's width."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import discord
import pytest

import games
from bot.chat.boards import emoji as boards
from bot.chat.boards import render
from bot.chat.components import Post
from bot.i18n import LOCALES, speaking
from bot.service.lines import PublicLine, happened
from bot.service.match_state import history_lines, recent_entry
from games.base import Event, Outcome, Reason
from games.worded import again
from tests.chat.helpers import prompt, snapshot
from tests.i18n.leftover import Leftover
from tests.wording import said

ALICE_ID, BOB_ID = 123456789012345678, 223456789012345678
NAMES = (f"<@{ALICE_ID}>", f"<@{BOB_ID}>")
TRANSLATED = LOCALES[1:]

VARIANTS: dict[str, list[dict[str, Any]]] = {
    "crown": [{}, {"hints": "auto"}],
    "claim": [{}, {"size": 4}, {"hidden": True}],
    "crystal": [{}],
    "flag": [{}],
    "safe": [{}, {"digits": 9, "length": 6, "max_guesses": 3}],
}

LEFTOVER = Leftover(
    ("games", "matches"), shared={"de": frozenset({"safe"}), "fr": frozenset({"second"})}
)
"""Events, boards, hints and rules are ``games.po``'s, a board's post ``matches.po``'s; German
cracks "der Safe", and French's second player is "le second"."""

CONTENT_MAX, DESCRIPTION_MAX, FIELD_MAX, LABEL_MAX = 2000, 4096, 1024, 80


def played(game: str, options: dict[str, Any], seed: int) -> Iterator[tuple[Any, list[Event]]]:
    """Each state of one random game and the events that led to it; every fifth game is
    resigned half way, so every kind of end is met."""
    engine = games.get(game)
    player = random.Random(seed)
    state = engine.new(options, seed)
    yield state, []
    steps = 0
    while engine.to_act(state):
        steps += 1
        if seed % 5 == 0 and steps == 6:
            state, events = engine.conclude(state, Outcome(1, Reason.RESIGN))
        else:
            seat = player.choice(sorted(engine.to_act(state)))
            legal = engine.legal_actions(state, seat)
            state, events = engine.apply(state, seat, legal[player.randrange(len(legal))])
        yield state, events


def every_game() -> Iterator[tuple[str, dict[str, Any], int]]:
    for game, variants in VARIANTS.items():
        for options in variants:
            for seed in range(6):
                yield game, options, seed


def event_texts(locale: str) -> Iterator[tuple[Event, str]]:
    for game, options, seed in every_game():
        for _state, events in played(game, options, seed):
            for event in events:
                with speaking(locale):
                    yield event, event.render(NAMES)


@pytest.mark.parametrize("locale", TRANSLATED)
def test_every_event_is_worded_in_the_readers_language(locale: str) -> None:
    kinds = set()
    for event, text in event_texts(locale):
        kinds.add((event.game, event.kind))
        assert not LEFTOVER.english(text, locale), (event, text)
        with speaking("en-US"):
            english = event.render(NAMES)
        assert text != english, (event, text)
        assert not re.search(r"\{\w+\}", text), text
    # Every game's setup, moves, end and reveal were met.
    assert {("crown", "hint"), ("crown", "reveal"), ("safe", "guess"), ("flag", "move")} <= kinds
    assert {("claim", "end"), ("crystal", "capture"), ("safe", "end"), ("flag", "end")} <= kinds


def test_english_events_read_as_before() -> None:
    engine = games.get("crown")
    state = engine.new({}, 3)
    texts = []
    for seat, text in ((0, "1 1"), (1, "3 3"), (0, "1 1"), (1, "row"), (1, "1 1")):
        state, events = engine.apply(state, seat, engine.parse(state, seat, text))
        texts += [event.render(("Ann", "Bob")) for event in events if event.public]
    assert texts == [
        "Ann has placed their Crown.",
        "Bob has placed their Crown.",
        "Both Crowns are placed. Ann attacks first.",
        "Ann attacks (1,1): Miss.",
        "Bob's hint: the Crown's row is greater than 1.",
        "Bob attacks (1,1): Hit.",
        "Bob wins: Ann's Crown is captured at (1,1).",
        "Ann's Crown was at (1,1); Bob's Crown was at (3,3).",
    ]


def test_a_text_worded_for_one_reader_is_worded_again_for_another() -> None:
    engine = games.get("safe")
    state = engine.new({}, 1)
    state, events = engine.apply(state, 0, engine.parse(state, 0, "123"))
    line = events[0].render(NAMES)  # worded in English, as the service does
    assert line == f"{NAMES[0]} has set their code."
    with speaking("de"):
        assert again(line) == f"{NAMES[0]} hat den Code festgelegt."
    with speaking("fr"):
        assert again(line) == f"{NAMES[0]} a choisi son code."
    assert again("plain text") == "plain text"


def test_the_boards_log_words_stored_events_and_shows_older_ones_as_stored() -> None:
    engine = games.get("crystal")
    state = engine.new({}, 1)
    state, events = engine.apply(state, 0, engine.parse(state, 0, "9"))
    payload = {"text": events[0].text, "data": dict(events[0].data)}
    stored = [
        "{p0} captures crystal 9: 9 points.",  # kept by the previous release: text only
        recent_entry("capture", payload),
        {"kind": "capture", "data": {"seat": 1}, "text": "{p1} took something."},  # lacks facts
    ]
    with speaking("de"):
        lines = [said(line) for line in history_lines("crystal", stored, NAMES)]
    assert lines == [
        f"{NAMES[0]} captures crystal 9: 9 points.",
        f"{NAMES[0]} nimmt Kristall 9: 9 Punkte.",
        f"{NAMES[1]} took something.",
    ]


# ---------------------------------------------------------------------- boards


def states(game: str) -> Iterator[Any]:
    for options in VARIANTS[game]:
        for seed in range(4):
            for state, _events in played(game, options, seed):
                yield state


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("game", sorted(VARIANTS))
def test_every_board_line_fits_a_phone_in_every_language(game: str, locale: str) -> None:
    engine = games.get(game)
    with speaking(locale):
        for state in states(game):
            for viewer in (None, 0, 1):
                drawn = boards.draw(engine.board(engine.view(state, viewer)), NAMES)
                for line in drawn.splitlines():
                    assert boards.width(line) <= boards.PHONE_COLUMNS, (locale, line)
                if locale != "en-US":
                    assert not LEFTOVER.english(drawn, locale), drawn


def post_texts(post: Post) -> list[str]:
    texts = [post.content or ""]
    if post.embed is not None:
        texts += [
            post.embed.title or "",
            post.embed.description or "",
            post.embed.footer.text or "",
        ]
        texts += [f"{field.name} {field.value}" for field in post.embed.fields]
    texts += [button.label for row in post.layout for button in row]
    return texts


def check_limits(post: Post) -> None:
    assert len(post.content or "") <= CONTENT_MAX
    if post.embed is not None:
        embed: discord.Embed = post.embed
        assert len(embed.description or "") <= DESCRIPTION_MAX
        assert len(embed.title or "") <= 256
        for field in embed.fields:
            assert len(field.value or "") <= FIELD_MAX
    for row in post.layout:
        assert len(row) <= 5
        for button in row:
            assert 1 <= len(button.label) <= LABEL_MAX, button.label


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("game", sorted(VARIANTS))
def test_whole_board_posts_read_in_the_servers_language_within_discords_limits(
    game: str, locale: str
) -> None:
    """The board post as a match is played: the board, what just happened (``Last:``), the
    log, whom it waits for and the buttons."""
    for options in VARIANTS[game]:
        for seed in range(3):
            history: list[PublicLine] = []
            for state, events in played(game, options, seed):
                lines = happened(events, NAMES)
                snap = snapshot(game, state, players=(ALICE_ID, BOB_ID))
                snap = type(snap)(**{**snap.__dict__, "history": tuple(history[-4:])})
                with speaking(locale):
                    post = render.board_post(snap, lines)
                check_limits(post)
                if locale != "en-US":
                    for text in post_texts(post):
                        assert not LEFTOVER.english(text, locale), text
                with speaking(locale):
                    last = render.last_text(lines) if lines else ""
                for line in last.splitlines():
                    assert boards.width(line) <= boards.PHONE_COLUMNS, line
                history += lines


@pytest.mark.parametrize("locale", TRANSLATED)
def test_hint_prompts_and_their_buttons_are_in_the_members_language(locale: str) -> None:
    engine = games.get("crown")
    state = engine.new({}, 3)
    for seat, text in ((0, "1 1"), (1, "2 2"), (0, "3 3")):
        state, _events = engine.apply(state, seat, engine.parse(state, seat, text))
    asked = prompt("crown", state, 1)
    with speaking(locale):
        post = render.prompt_post(asked, server="Zanzibar", board="https://discord.com/x")
    check_limits(post)
    shown = [button.label for row in post.layout for button in row]
    with speaking(locale):
        hints = [control.label for control in engine.choices(engine.view(state, 1))]
    expected = [hint[:1].upper() + hint[1:] for hint in hints]  # a button starts with a capital
    assert shown == expected
    assert all(not LEFTOVER.english(label, locale) for label in shown), shown
    assert not LEFTOVER.english(post.content.replace("Choose.", ""), locale), post.content


@pytest.mark.parametrize("locale", TRANSLATED)
def test_rules_and_titles_read_in_every_language(locale: str) -> None:
    for engine in games.GAMES.values():
        with speaking(locale):
            title, rules = engine.title, engine.rules
            commands = engine.commands
        assert title != games.get(engine.name).title
        assert rules.startswith(f"**{title}**")
        assert not LEFTOVER.english(rules, locale), rules
        assert all(not LEFTOVER.english(does, locale) for _typed, does in commands)
        assert len(rules) <= CONTENT_MAX


def test_the_terminal_and_the_engines_read_english_outside_any_language() -> None:
    engine = games.get("flag")
    assert engine.title == "Flag Chase"
    assert engine.prompt(engine.new({}, 1), 0) == "enter MOVE row column, or TRAP to hide a trap"
