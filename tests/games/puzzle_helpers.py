"""What every puzzle promises, checked the same way for every game: it rebuilds from its log,
its choices are the ones promised, and it agrees with the match's review."""

from __future__ import annotations

from typing import Any

import games
from games.base import Ask
from games.puzzles import MAX_CHOICES, Puzzle
from games.review import Review
from games.review.replay import played


def rebuilt(puzzle: Puzzle) -> Any:
    """The position the puzzle's log leads to, checked to ask ``seat`` for ``ask``."""
    game = games.get(puzzle.game)
    state = game.new(puzzle.options, puzzle.seed)
    for step in played(game, puzzle.options, puzzle.seed, puzzle.actions):
        state = step.after
    assert puzzle.seat in game.to_act(state)
    assert game.ask(state, puzzle.seat) is puzzle.ask
    return state


def check_shape(puzzle: Puzzle, log: list[Any], done: Review, losses: dict[str, float]) -> None:
    """``puzzle`` from the match ``log`` (reviewed as ``done``), against ``losses``: every legal
    action's loss by an independent search."""
    game = games.get(puzzle.game)
    state = rebuilt(puzzle)
    # The move played next in the match is the one the puzzle names, judged as the review did.
    seat, ask, text = log[len(puzzle.actions)]
    assert (seat, Ask(ask)) == (puzzle.seat, puzzle.ask)
    assert str(game.parse(state, seat, text)) == puzzle.played
    move = done.moves[puzzle.move_number - 1]
    assert (move.seat, move.ask, move.action) == (seat, Ask(ask), text)
    assert puzzle.mark is move.mark
    by_action = {choice.action: choice for choice in puzzle.choices}
    assert abs(by_action[puzzle.played].loss - move.loss) < 1e-3
    # Each choice is a legal move the game takes as it is written.
    legal = {str(action) for action in game.legal_actions(state, seat)}
    assert set(by_action) <= legal and len(by_action) == len(puzzle.choices)
    assert all(str(game.parse(state, seat, action)) == action for action in by_action)
    assert set(losses) == legal
    # One best move, by the stated margin; each choice's loss is the search's.
    assert losses[puzzle.answer] < 1e-9
    others = sorted(loss for action, loss in losses.items() if action != puzzle.answer)
    assert abs(puzzle.margin - others[0]) < 1e-3
    for choice in puzzle.choices:
        assert abs(choice.loss - losses[choice.action]) < 1e-3, choice
    # The choices: the best, the move played, the second best, then the least losing others.
    assert 2 <= len(puzzle.choices) <= MAX_CHOICES
    assert puzzle.answer in by_action and puzzle.played in by_action
    shown = sorted(choice.loss for choice in puzzle.choices if choice.action != puzzle.answer)
    assert abs(shown[0] - others[0]) < 1e-3
    unshown = [loss for action, loss in losses.items() if action not in by_action]
    if unshown:
        kept = [c.loss for c in puzzle.choices if c.action not in (puzzle.answer, puzzle.played)]
        assert len(puzzle.choices) == MAX_CHOICES and max(kept) <= min(unshown) + 1e-9
    assert puzzle.why and puzzle.question
    assert puzzle.exact
