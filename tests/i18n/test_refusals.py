"""The engines' refusals in every language: a move, an answer or an option the game refuses is
explained to the member who sent it in their language, with no English left but what they
typed and the words the games read (``row``, ``MOVE``, ``true``), and the English as before.

The refusals are met the way members meet them: every game is played at random, and at each
step both players try a set of typed answers and of actions (their own, the other player's,
ones from another variant of the game, ones off the grid)."""

from __future__ import annotations

import gettext
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po

import games
from bot.i18n import LOCALES, LOCALES_DIR, speaking
from games import claim, crown, crystal, flag
from games.base import GameError, Outcome, Reason
from games.grid import cells
from games.words import reading
from tests.i18n.leftover import Leftover
from tests.i18n.test_games import VARIANTS, played

TRANSLATED = LOCALES[1:]
STATES_PER_GAME = 25
SEEDS = range(2)

TYPED = (
    "",
    "xyz",
    "0 0",
    "4 1",
    "9 9",
    "1 1",
    "2 3",
    "3 3",
    "5 5",
    "1",
    "7",
    "12",
    "17",
    "99",
    "111",
    "123",
    "345",
    "1234567",
    "MOVE 9 9",
    "MOVE 1 2",
    "MOVE 3 3",
    "MOVE 5 5",
    "TRAP 1 1",
    "TRAP 2 2",
    "TRAP 3 3",
    "TRAP 5 5",
    "row",
    "column",
    "sideways",
)
"""What players type: answers of every game, off the grid, unreadable."""

OFF_THE_RULES: dict[str, tuple[Any, ...]] = {
    "crown": (crown.Attack((4, 4)), crown.PlaceCrown((0, 2)), crown.HintAction("row", "less", 9)),
    "claim": (claim.ClaimNumber(99), claim.ClaimCell(9, 9)),
    "crystal": (crystal.Capture(0), crystal.Capture(12)),
    "flag": (flag.Move(9, 9), flag.Move(4, 4), *(flag.Trap(*cell) for cell in cells(6))),
    "safe": (),
}
"""Actions no parser makes, for the rules' own checks."""

BAD_OPTIONS: dict[str, tuple[dict[str, Any], ...]] = {
    "crown": ({"bogus": 1}, {"hints": "sometimes"}),
    "claim": ({"bogus": 1}, {"size": 5}, {"hidden": "yes"}),
    "crystal": ({"target": 20},),
    "flag": ({"traps": 3},),
    "safe": ({"bogus": 1}, {"digits": 12}, {"length": True}, {"max_guesses": 0}),
}

UNMET = frozenset(
    {
        "Hit.",  # a hit ends the game: no cell is attacked again after one
        "Miss.",  # an attacker acts again only once the hint for a miss is given
        # an agent always has a cell to move to: the other agent blocks one of at least three
        "{cell} is not next to your agent at {here}: it can move to no cell now.",
    }
)
"""Refusals the engines word that no member can meet; translated all the same."""

LEFTOVER = Leftover(("refusals", "games"), shared={"fr": frozenset({"agents"})}, quoted=True)
"""A refusal names games and cells as ``games.po`` does, and quotes what the member typed and
the words the games read; French has "deux agents" as English has "two agents"."""


def attempt(make: Callable[..., object], *args: Any) -> str | None:
    """The refusal ``make(*args)`` meets, if any."""
    try:
        make(*args)
    except GameError as error:
        return str(error)
    return None


def sampled(actions: Any) -> list[Any]:
    """A few of the legal actions (Safe Cracker's are every code)."""
    if len(actions) <= 12:
        return list(actions)
    return [actions[i] for i in (0, 1, len(actions) // 2, len(actions) - 1)]


def refusals() -> Iterator[tuple[tuple[object, ...], str]]:
    """Every refusal met, keyed by where it was met, worded in the current language."""
    for name, variants in VARIANTS.items():
        engine = games.get(name)
        pool = list(OFF_THE_RULES[name])
        for options in variants:
            for seed in SEEDS:
                for state, _events in played(name, options, seed):
                    for seat in (0, 1):
                        pool += sampled(engine.legal_actions(state, seat))
        for options in variants:
            for seed in SEEDS:
                last = None
                for step, (state, _events) in enumerate(played(name, options, seed)):
                    last = state
                    if step >= STATES_PER_GAME:
                        continue
                    for seat in (0, 1):
                        for text in TYPED:
                            where = (name, str(options), seed, step, seat, text)
                            parsed = attempt(engine.parse, state, seat, text)
                            if parsed is not None:
                                yield where, parsed
                                continue
                            action = engine.parse(state, seat, text)
                            applied = attempt(engine.apply, state, seat, action)
                            if applied is not None:
                                yield where, applied
                        for index, action in enumerate(pool):
                            applied = attempt(engine.apply, state, seat, action)
                            if applied is not None:
                                yield (name, str(options), seed, step, seat, index), applied
                over = attempt(engine.conclude, last, Outcome(0, Reason.RESIGN))
                if over is not None:
                    yield (name, str(options), seed, "conclude"), over
        for index, bad in enumerate(BAD_OPTIONS[name]):
            refused = attempt(engine.new, bad, 0)
            assert refused is not None, (name, bad)
            yield (name, "options", index), refused
    yield ("crown", "auto_hint"), attempt(crown.GAME.auto_hint, crown.GAME.new({}, 0)) or ""
    for index, grid in enumerate(([[1, 2], [3, 4]], [[1, 2, 3], [4, 5, 6], [7, 8, 8]])):
        yield ("claim", "grid", index), attempt(claim.new_with_grid, grid) or ""


class Recording(gettext.NullTranslations):
    """English, noting every message asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: set[str] = set()

    def gettext(self, message: str) -> str:
        self.asked.add(message)
        return message

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        self.asked.add(msgid1)
        return msgid1 if n == 1 else msgid2


_met: dict[str, dict[tuple[object, ...], str]] = {}


def met(locale: str) -> dict[tuple[object, ...], str]:
    if locale not in _met:
        with speaking(locale):
            _met[locale] = dict(refusals())
    return _met[locale]


def refusal_ids() -> set[str]:
    with (LOCALES_DIR / "de" / "refusals.po").open("rb") as handle:
        return {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(handle) if m.id}


def test_every_refusal_is_met_by_some_request() -> None:
    recording = Recording()
    with reading(recording):
        found = dict(refusals())
    assert all(found.values())
    assert found == met("en-US")
    missed = refusal_ids() - recording.asked - UNMET
    assert not missed, sorted(missed)


@pytest.mark.parametrize("locale", TRANSLATED)
def test_every_refusal_is_in_the_members_language(locale: str) -> None:
    english, translated = met("en-US"), met(locale)
    # The same requests are refused in every language.
    assert translated.keys() == english.keys()
    for where, text in translated.items():
        assert text != english[where], (where, text)
        assert not LEFTOVER.english(text, locale), (where, text)
        assert not re.search(r"\{\w+\}", text), text
        assert len(text) <= 2000


def test_the_english_check_sees_english() -> None:
    english = met("en-US")
    unseen = [text for text in english.values() if not LEFTOVER.english(text, "de")]
    assert not unseen, unseen[:5]


def test_refusals_in_words_members_know() -> None:
    state = games.get("safe").new({}, 1)
    with speaking("de"):
        told = attempt(games.get("safe").parse, state, 0, "12")
    assert told == "'12' hat 2 Ziffern: ein Code hat 3 Ziffern, je 1-3, z. B. '213'."
    flag_state = games.get("flag").new({}, 1)
    with speaking("fr"):
        told = attempt(games.get("flag").parse, flag_state, 0, "MOVE 9 9")
    assert told == (
        "'MOVE 9 9' est hors de la grille : les lignes et colonnes vont de 1 à 5, "
        "par ex. 'MOVE 2 2'."
    )
    with speaking("es-ES"):
        told = attempt(games.get("crystal").new, {"target": 20}, 0)
    assert told == (
        "Cosecha de cristales no tiene opciones (recibido: 'target'): los cristales son "
        "siempre del 1 al 9 y el objetivo es 15."
    )


def test_english_refusals_read_as_before() -> None:
    engine = games.get("claim")
    state = engine.new({}, 2)
    told = [attempt(engine.parse, state, 0, text) for text in ("4 1", "x")]
    assert told == [
        "'4 1' is off the grid: rows and columns are 1-3, e.g. '2 3'.",
        "'x' cannot be read: claim a number 1-9 (e.g. '7') or the cell holding it as "
        "'row col' (e.g. '2 3').",
    ]
    assert attempt(engine.apply, state, 1, claim.ClaimCell(4, 1)) == (
        "It is not your turn: the other player is to claim."
    )
    assert attempt(engine.apply, state, 0, claim.ClaimCell(4, 1)) == (
        "(4,1) is off the grid: rows and columns are 1-3."
    )
    assert not Path(LOCALES_DIR / "en-US").exists()
