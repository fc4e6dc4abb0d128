"""Every game's controls are its rules' legal actions, drawn from a view, and tell no secret.

For random positions of every variant: each enabled control parses and plays, each legal action
has its enabled control (or is typed whole, as a code), and the controls of the public move are
the same from every view, so a board posted for everyone carries nobody's secret in them. A
private choice is drawn from its seat's own view and offers exactly the legal actions, which the
rules decide without the opponent's secret (``test_conformance`` checks that alike states offer
alike actions).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings

from games import GAMES
from games.base import SEATS, AnyGame, Ask, Seat
from games.controls import NONE, Controls
from tests.games.helpers import seeds
from tests.games.test_conformance import CASES

STEPS = 60
"""Positions of each random game checked."""


def positions(game: AnyGame, options: dict[str, Any], seed: int) -> Iterator[Any]:
    """The positions of one random game, the first ``STEPS`` of them, setups included."""
    player = random.Random(seed)
    state = game.new(options, seed)
    for _ in range(STEPS):
        yield state
        seats = game.to_act(state)
        if not seats:
            return
        seat = player.choice(sorted(seats))
        legal = game.legal_actions(state, seat)
        state, _events = game.apply(state, seat, legal[player.randrange(len(legal))])


def plays(game: AnyGame, state: Any, seat: Seat, text: str) -> None:
    """Fails unless ``text`` reads as an action ``seat`` may play now."""
    game.apply(state, seat, game.parse(state, seat, text))


@pytest.mark.parametrize(("name", "options"), CASES)
@settings(max_examples=10, deadline=None)
@given(seed=seeds)
def test_controls_offer_exactly_the_legal_actions_and_no_secret(
    name: str, options: dict[str, Any], seed: int
) -> None:
    game = GAMES[name]
    for state in positions(game, options, seed):
        for seat in SEATS:
            public = game.controls(game.view(state, None), seat)
            for viewer in SEATS:
                assert game.controls(game.view(state, viewer), seat) == public
            assert game.choices(game.view(state, None)) == NONE
            own = game.choices(game.view(state, seat))
            if seat not in game.to_act(state):
                assert (public, own) == (NONE, NONE)
                continue
            if game.ask(state, seat) is not Ask.ACTION:
                assert public == NONE
            _check_offered(game, state, seat, public, own)


def _check_offered(game: AnyGame, state: Any, seat: Seat, public: Controls, own: Controls) -> None:
    offered = [*public.actions, *own.actions]
    for text in offered:
        plays(game, state, seat, text)
    typed = public.typed or own.typed
    if typed is not None:
        plays(game, state, seat, typed.example)
        assert typed.label and typed.shape
    else:
        legal = sorted(str(action) for action in game.legal_actions(state, seat))
        assert sorted(offered) == legal
    for opener in (control for control in public if control.opens):
        opened = own.actions
        assert opener.enabled == bool(opened)
        assert all(text.startswith(opener.action) for text in opened)
    for control in (*public, *own):
        assert control.label.strip()
