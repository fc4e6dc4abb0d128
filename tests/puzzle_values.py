"""Puzzles built by hand from real positions, for the tests of storing, showing and answering
them: each is a position the game's own rules reach, with two or three of its legal moves as
choices."""

from __future__ import annotations

from collections.abc import Sequence

import games
from games.base import Ask
from games.puzzles import Choice, Puzzle
from games.review import Mark
from games.review.phrasing import _
from games.review.replay import Played, played


def puzzle(
    game: str,
    actions: Sequence[Played],
    choices: Sequence[str],
    answer: str,
    *,
    seed: int = 1,
    options: dict[str, object] | None = None,
) -> Puzzle:
    """The position ``actions`` reach in ``game``, asking its player to move to pick among
    ``choices`` (action texts), ``answer`` best by one move."""
    engine = games.get(game)
    opts = dict(options or {})
    steps = list(played(engine, opts, seed, actions))
    state = steps[-1].after if steps else engine.new(opts, seed)
    (seat,) = engine.to_act(state)
    ask = engine.ask(state, seat)
    made = tuple(
        Choice(
            action=text,
            move=_("take {action}", action=text),
            value=1.0 if text == answer else 0.0,
            loss=0.0 if text == answer else 1.0,
        )
        for text in choices
    )
    return Puzzle(
        game=game,
        options=opts,
        seed=seed,
        actions=tuple((s, Ask(a), t) for s, a, t in actions),
        seat=seat,
        ask=ask,
        question=_("Your move: which one wins?"),
        choices=made,
        answer=answer,
        why=_("{answer} wins; every other choice loses.", answer=answer),
        unit="outcome",
        margin=1.0,
        played=choices[-1],
        mark=Mark.BLUNDER,
        move_number=len(actions) + 1,
        exact=True,
    )


def crystal_puzzle(seed: int = 1) -> Puzzle:
    """Crystal Capture: seat 0 holds 5 and 9 (14), seat 1 holds 6 and 8; taking 1 makes 15."""
    actions = [(seat % 2, Ask.ACTION, text) for seat, text in enumerate(("5", "6", "9", "8"))]
    return puzzle("crystal", actions, ["1", "2", "3"], "1", seed=seed)


def crown_puzzle(seed: int = 1) -> Puzzle:
    """Capture the Crown after both Crowns are placed (seat 1's at 3,3): seat 0 attacks."""
    actions = [(0, Ask.SECRET, "1 1"), (1, Ask.SECRET, "3 3")]
    return puzzle("crown", actions, ["3 3", "2 2", "1 2"], "3 3", seed=seed)
