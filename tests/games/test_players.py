"""The built-in players of every game: the registry, legal choices only, views only.

Each game's strength figures are checked in ``test_players_<game>.py``.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import GAMES, claim, crown, flag, grid, safe
from games.base import JSON, SEATS, AnyGame, Ask, Seat, other
from games.players import DEFAULT_LEVEL, LEVELS, decide, player_for
from tests.games.helpers import seeds

VARIANTS: dict[str, list[dict[str, JSON]]] = {
    "crown": [{"hints": "defender"}, {"hints": "auto"}],
    "claim": [{"size": size, "hidden": hidden} for size in (3, 4) for hidden in (False, True)],
    "crystal": [{}],
    "flag": [{}],
    "safe": [
        {},
        {"digits": 4, "length": 3},
        {"digits": 3, "length": 4, "max_guesses": 6},
        {"digits": 9, "length": 6, "max_guesses": 2},
    ],
}
"""The options each game's players are tried with: every default, and variants of each kind."""

CASES = [
    pytest.param(name, options, id=f"{name}-{json.dumps(options, sort_keys=True)}")
    for name, variants in VARIANTS.items()
    for options in variants
]

MAX_STEPS = 120
"""Actions played per example: enough to reach late positions of every game."""


def random_state(game: AnyGame, options: dict[str, JSON], seed: int, steps: int) -> Any:
    """A position reached by ``steps`` random legal actions from a new game."""
    rng = random.Random(seed)
    state = game.new(options, seed)
    for _ in range(steps):
        if game.outcome(state) is not None:
            break
        seat = rng.choice(sorted(game.to_act(state)))
        legal = game.legal_actions(state, seat)
        state, _ = game.apply(state, seat, legal[rng.randrange(len(legal))])
    return state


def test_every_game_has_a_player_at_every_level() -> None:
    assert set(VARIANTS) == set(GAMES)
    for name in GAMES:
        for level in LEVELS:
            player = player_for(name, level)
            assert (player.game, player.level) == (name, level)
        assert player_for(name).level == DEFAULT_LEVEL == "normal"


def test_unknown_games_and_levels_are_refused_with_the_valid_names() -> None:
    with pytest.raises(KeyError, match="crown"):
        player_for("chess", "hard")
    with pytest.raises(ValueError, match="easy, normal, hard"):
        player_for("crown", "expert")


@pytest.mark.parametrize(("name", "options"), CASES)
@settings(max_examples=12, deadline=None)
@given(seed=seeds, level=st.sampled_from(LEVELS), detours=st.integers(0, 3))
def test_players_only_choose_legal_actions(
    name: str, options: dict[str, JSON], seed: int, level: str, detours: int
) -> None:
    """Whole games where every seat is a player, except that now and then (``detours`` in 4)
    a random action is played instead, to reach positions players would not."""
    game, player = GAMES[name], player_for(name, level)
    rng = random.Random(seed)
    state = game.new(options, seed)
    for _ in range(MAX_STEPS):
        if game.outcome(state) is not None:
            break
        for seat in sorted(game.to_act(state)):
            view, ask, legal = (
                game.view(state, seat),
                game.ask(state, seat),
                game.legal_actions(state, seat),
            )
            action = player.choose(view, ask, legal, rng)
            assert action in legal
        seat = rng.choice(sorted(game.to_act(state)))
        legal = game.legal_actions(state, seat)
        if rng.randrange(4) < detours:
            action = legal[rng.randrange(len(legal))]
        else:
            action = decide(game, state, seat, player, rng)
        state, _ = game.apply(state, seat, action)


def test_a_seat_that_may_not_act_is_refused() -> None:
    game = GAMES["crystal"]
    state = game.new({}, 1)
    with pytest.raises(ValueError, match="may not act"):
        decide(game, state, 1, player_for("crystal", "hard"), random.Random(0))
    with pytest.raises(ValueError, match="no legal action"):
        player_for("crystal", "easy").choose(game.view(state, 1), Ask.ACTION, (), random.Random(0))


# --- players see views, never the state ----------------------------------------------------


def with_other_secret(name: str, state: Any, owner: Seat, rng: random.Random) -> Any:
    """``state`` with ``owner``'s secret (Crown, code, hidden traps) replaced by another one."""
    if name == "crown":
        cell = rng.choice([c for c in crown.CELLS if c != state.crowns[owner]])
        crowns = (cell, state.crowns[1]) if owner == 0 else (state.crowns[0], cell)
        return replace(state, crowns=crowns)
    if name == "safe":
        options = state.options
        code = tuple(rng.randint(1, options.digits) for _ in range(options.length))
        codes = (code, state.codes[1]) if owner == 0 else (state.codes[0], code)
        return replace(state, codes=codes)
    taken = {*flag.FLAGS, *state.agents}
    free = [c for c in grid.cells(flag.SIZE) if c not in taken]
    cells = tuple(sorted(rng.sample(free, len(state.traps[owner]))))
    traps = (cells, state.traps[1]) if owner == 0 else (state.traps[0], cells)
    return replace(state, traps=traps)


def opponents_secret(name: str, view: Any, owner: Seat) -> Any:
    """What ``view`` shows of ``owner``'s secret."""
    if name == "crown":
        return view.crowns[owner]
    if name == "safe":
        return view.codes[owner]
    return view.traps[owner]


@pytest.mark.parametrize("name", ["crown", "safe", "flag"])
@settings(max_examples=40, deadline=None)
@given(seed=seeds, steps=st.integers(2, 30), level=st.sampled_from(LEVELS))
def test_a_choice_does_not_depend_on_the_opponents_secret(
    name: str, seed: int, steps: int, level: str
) -> None:
    """Two positions that differ only in the opponent's secret get the same choice: the
    player is given a view in which that secret is absent."""
    game, player = GAMES[name], player_for(name, level)
    state = random_state(game, {}, seed, steps)
    if game.outcome(state) is not None or (name == "crown" and None in state.crowns):
        return
    for seat in sorted(game.to_act(state)):
        if name == "safe" and game.ask(state, seat) is Ask.SECRET:
            continue  # the opponent may have no code yet
        twin = with_other_secret(name, state, other(seat), random.Random(seed))
        view = game.view(state, seat)
        assert opponents_secret(name, view, other(seat)) is None
        assert game.view(twin, seat) == view
        choices = [decide(game, s, seat, player, random.Random(seed)) for s in (state, twin)]
        assert choices[0] == choices[1]


# --- the levels ---------------------------------------------------------------------------


def test_normal_plays_like_hard_most_of_the_time_and_easy_at_random() -> None:
    """On an open Number Claim grid ``hard`` always claims the 9."""
    game = GAMES["claim"]
    state = game.new({}, 0)
    view, legal = game.view(state, 0), game.legal_actions(state, 0)
    nines = {}
    for level in LEVELS:
        player = player_for("claim", level)
        picks = [player.choose(view, Ask.ACTION, legal, random.Random(s)) for s in range(400)]
        nines[level] = picks.count(claim.ClaimNumber(9)) / len(picks)
    assert nines["hard"] == 1
    assert 0.65 < nines["normal"] < 0.92  # 0.75 + 0.25 / 9 expected
    assert nines["easy"] < 0.25  # 1 / 9 expected


@pytest.mark.parametrize("level", LEVELS)
def test_secrets_are_uniform(level: str) -> None:
    """Crowns and codes give nothing away: every one is about as likely (binomial bounds far
    beyond chance: a failure means a bias, not bad luck)."""
    game = GAMES["crown"]
    state = game.new({}, 0)
    player = player_for("crown", level)
    legal = game.legal_actions(state, 0)
    cells = [
        player.choose(game.view(state, 0), Ask.SECRET, legal, random.Random(s)).cell
        for s in range(1800)
    ]
    assert {cells.count(cell) for cell in crown.CELLS} <= set(range(120, 281))  # 200 expected

    game = GAMES["safe"]
    state = game.new({}, 0)
    player = player_for("safe", level)
    legal = game.legal_actions(state, 0)
    codes = [
        player.choose(game.view(state, 0), Ask.SECRET, legal, random.Random(s)).code
        for s in range(2700)
    ]
    assert len(set(codes)) == 27
    assert {codes.count(code) for code in set(codes)} <= set(range(50, 151))  # 100 expected


def test_every_seat_can_be_played_by_the_same_player() -> None:
    """Players keep no state: one ``hard`` player plays both seats of every game to its end."""
    for name, game in GAMES.items():
        player = player_for(name, "hard")
        rng = random.Random(7)
        state = game.new({}, 7)
        while game.outcome(state) is None:
            seat = min(game.to_act(state))
            state, _ = game.apply(state, seat, decide(game, state, seat, player, rng))
        assert game.outcome(state) is not None
        assert all(not game.legal_actions(state, seat) for seat in SEATS)


def test_safe_choices_are_taken_from_lazy_legal_actions() -> None:
    """The largest Safe Cracker variant lists its 9**6 codes lazily; players index it."""
    game = GAMES["safe"]
    state = game.new({"digits": 9, "length": 6}, 3)
    legal = game.legal_actions(state, 0)
    assert isinstance(legal, safe.CodeActions)
    action = player_for("safe", "easy").choose(
        game.view(state, 0), Ask.SECRET, legal, random.Random(1)
    )
    assert action in legal
