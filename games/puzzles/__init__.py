"""Puzzles from real matches: positions where the player to move had one clearly best move.

The puzzles are data (``games.puzzles.model``): the match log up to the position, the choices
and the answer, with every text a phrase worded in the reader's language. The method and the
thresholds are in docs/puzzles.md.
"""

from __future__ import annotations

from games.puzzles.model import FORMAT_VERSION, MAX_CHOICES, Choice, Puzzle, position_key, worded

__all__ = ["FORMAT_VERSION", "MAX_CHOICES", "Choice", "Puzzle", "position_key", "worded"]
