"""The shipped puzzle pool is what the generator makes, its puzzles are sound, and no two of
a game's are the same position."""

from __future__ import annotations

import games
from games.puzzles import Puzzle
from games.puzzles.pool import GAMES, SIZE, _as_seen, generate, pool
from tests.games.puzzle_helpers import rebuilt


def test_generating_again_reproduces_the_first_shipped_puzzles() -> None:
    for game in GAMES:
        assert generate(game, 6) == pool(game, 6)


def test_every_game_ships_a_full_pool_of_different_positions() -> None:
    for game in GAMES:
        shipped = pool(game)
        assert len(shipped) == SIZE
        rules = games.get(game)
        assert len({_as_seen(rules, puzzle) for puzzle in shipped}) == SIZE
        assert len({puzzle.key for puzzle in shipped}) == SIZE
        for puzzle in shipped[:: SIZE // 20]:
            rebuilt(puzzle)
            assert puzzle.answer in {choice.action for choice in puzzle.choices}
            assert Puzzle.load(puzzle.dump()) == puzzle
    assert pool("flag") == [] and generate("flag", 5) == []
    assert pool("crystal", 3) == pool("crystal")[:3]
