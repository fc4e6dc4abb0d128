"""Every game, every variant: random legal play keeps the engine contract of games/base.py.

After OpenSpiel's ``random_sim_test``: from ``new(options, seed)`` a seeded random player picks
a seat that may act and one of its legal actions, and every step checks what any caller of an
engine relies on (text round trip, storage round trip, refusals that change nothing, views,
``conclude``), until the game ends within a bound.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings

from games import GAMES
from games.base import JSON, SEATS, AnyGame, Event, GameError, GameOver, Outcome, Reason, Seat
from games.board import Board
from tests.games.helpers import NAMES, reloaded, seeds

VARIANTS: dict[str, list[dict[str, JSON]]] = {
    "crown": [{"hints": "defender"}, {"hints": "auto"}],
    "claim": [{"size": size, "hidden": hidden} for size in (3, 4) for hidden in (False, True)],
    "crystal": [{}],
    "flag": [{}],
    "safe": [
        {},
        {"digits": 3, "length": 3, "max_guesses": 1},
        {"digits": 5, "length": 3, "max_guesses": 20},
        {"digits": 4, "length": 4, "max_guesses": 10},
        {"digits": 9, "length": 6, "max_guesses": 3},
    ],
}
"""The options each game is played with. Every registered game must be listed."""

MAX_STEPS = 1000
"""Actions before a game counts as endless. Every game but one ends by rule well before this
(Flag Chase: 200 actions). Safe Cracker without a guess limit ends only when a code is cracked:
random guessing over its 27 codes leaves a game running after 1000 guesses with a probability
under 1e-16, and the random player is seeded, so a run is repeatable."""

JUNK = [
    "",
    "   ",
    "zzz",
    "0 0",
    "9 9",
    "-1",
    "((",
    "1 2 3 4 5 6 7 8 9 10",
    "row",
    "MOVE 9 9",
    "TRAP 0 0",
    "{p0}",
    "1" * 200,
]
"""Texts that are mostly unreadable for every game; any that happen to be legal just play."""

CASES = [
    pytest.param(name, options, id=f"{name}-{json.dumps(options, sort_keys=True)}")
    for name in GAMES
    for options in VARIANTS.get(name, [{}])
]


def test_every_registered_game_has_its_variants_listed() -> None:
    assert set(VARIANTS) == set(GAMES)


@pytest.mark.parametrize(("name", "options"), CASES)
@settings(max_examples=15, deadline=None)
@given(seed=seeds)
def test_random_legal_play_keeps_the_contract(
    name: str, options: dict[str, JSON], seed: int
) -> None:
    game = GAMES[name]
    player = random.Random(seed)
    state = game.new(options, seed)
    normalised = game.options(state)
    assert game.options(game.new(normalised, seed)) == normalised
    previous: tuple[Seat, Any] | None = None
    for _ in range(MAX_STEPS):
        _check_state(game, state)
        seats = game.to_act(state)
        if not seats:
            break
        seat = player.choice(sorted(seats))
        legal = game.legal_actions(state, seat)
        assert len(legal) > 0, "a seat that may act has no legal action"
        _check_sorted(legal, player)
        action = legal[player.randrange(len(legal))]
        assert game.parse(state, seat, str(action)) == action
        _check_refusals(game, state, seat, previous)
        _check_conclude(game, state, player)
        previous_state = state
        state, events = game.apply(state, seat, action)
        _check_events(events)
        if game.outcome(state) is not None:
            kinds = {event.kind for event in events if event.public}
            assert "end" in kinds
            if _hides_something(game, previous_state):
                assert "reveal" in kinds, "the end must reveal every secret"
        previous = (seat, action)
    else:
        pytest.fail(f"{name} {options} did not end within {MAX_STEPS} actions")
    _check_over(game, state, previous)


def _check_state(game: AnyGame, state: Any) -> None:
    """Storage round trip, views for everyone, and the outcome matching who may act."""
    assert reloaded(game, state) == state
    assert (game.outcome(state) is None) == bool(game.to_act(state))
    assert game.to_act(state) <= set(SEATS)
    views = [game.view(state, viewer) for viewer in (None, *SEATS)]
    for viewer, view in zip((None, *SEATS), views, strict=True):
        assert view.seat == viewer
        assert isinstance(game.board(view), Board)
    if game.outcome(state) is not None:
        assert all(replace(view, seat=None) == views[0] for view in views), "an end shows all"
    for seat in game.to_act(state):
        game.ask(state, seat)


def _hides_something(game: AnyGame, state: Any) -> bool:
    """Whether the game has secrets, or some seat now sees what the public does not."""
    public = game.view(state, None)
    return game.has_secrets or any(
        replace(game.view(state, seat), seat=None) != public for seat in SEATS
    )


def _check_sorted(legal: Sequence[Any], player: random.Random) -> None:
    """Strictly increasing: sorted, without repeats (sampled when there are very many)."""
    if len(legal) <= 2000:
        assert all(a < b for a, b in pairwise(legal))
        return
    for _ in range(200):
        index = player.randrange(len(legal) - 1)
        assert legal[index] < legal[index + 1]


def _attempt(game: AnyGame, state: Any, seat: Seat, attempt: object) -> None:
    """Parse (if text) and apply ``attempt``: any refusal must be a GameError."""
    try:
        action = game.parse(state, seat, attempt) if isinstance(attempt, str) else attempt
        game.apply(state, seat, action)
    except GameError:
        pass


def _check_refusals(
    game: AnyGame, state: Any, seat: Seat, previous: tuple[Seat, Any] | None
) -> None:
    """Junk text, a seat out of turn, a replayed action: GameErrors that change nothing."""
    before = game.dump(state)
    for text in JUNK:
        for anyone in SEATS:
            _attempt(game, state, anyone, text)
    legal = game.legal_actions(state, seat)
    for waiting in set(SEATS) - game.to_act(state):
        with pytest.raises(GameError):
            game.apply(state, waiting, legal[0])
    if previous is not None:
        _attempt(game, state, seat, previous[1])
        _attempt(game, state, previous[0], previous[1])
    assert game.dump(state) == before


def _check_conclude(game: AnyGame, state: Any, player: random.Random) -> None:
    outcome = player.choice(
        [Outcome(0, Reason.RESIGN), Outcome(1, Reason.TIMEOUT), Outcome(None, Reason.MOVE_LIMIT)]
    )
    ended, events = game.conclude(state, outcome)
    assert game.outcome(ended) == outcome
    assert game.to_act(ended) == frozenset()
    _check_events(events)
    kinds = {event.kind for event in events if event.public}
    assert "end" in kinds
    if _hides_something(game, state):
        assert "reveal" in kinds, "the end must reveal every secret"
    _check_state(game, ended)


def _check_events(events: list[Event]) -> None:
    for event in events:
        assert event.audience in (None, *SEATS)
        rendered = event.render(NAMES)
        assert "{" not in rendered and "}" not in rendered
        json.dumps(dict(event.data))


def _check_over(game: AnyGame, state: Any, previous: tuple[Seat, Any] | None) -> None:
    assert game.outcome(state) is not None
    for seat in SEATS:
        assert len(game.legal_actions(state, seat)) == 0
        if previous is not None:
            with pytest.raises(GameOver):
                game.apply(state, seat, previous[1])
    with pytest.raises(GameOver):
        game.conclude(state, Outcome(None, Reason.RESIGN))
