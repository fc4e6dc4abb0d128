"""Number Claim, played greedily: claim the largest number left.

Each claim adds its value to one's own total and keeps it from the other player, so the
largest number left is always a minimax claim: it guarantees the largest final margin
whatever the opponent does. The first player playing it claims, turn by turn, a larger
number than the second did, so always wins (docs/rules.md *computed*), on a 4x4 grid too.

With hidden numbers every unclaimed cell is equally likely to hold each number not yet
revealed, so all claims have the same expected value: the player claims a cell at random.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from games.base import Ask
from games.claim import Action, ClaimCell, ClaimNumber, View
from games.players.base import random_action


def _value(view: View, action: Action) -> int | None:
    """The number ``action`` claims, if the view shows it."""
    if isinstance(action, ClaimNumber):
        return action.value
    assert isinstance(action, ClaimCell)
    return view.grid[(action.row - 1) * view.size + action.col - 1]


def strategy(view: View, ask: Ask, legal: Sequence[Action], rng: random.Random) -> Action:
    """The largest number the seat may claim; a random cell when the numbers are hidden."""
    known = [(value, action) for action in legal if (value := _value(view, action)) is not None]
    if not known:
        return random_action(legal, rng)
    return max(known, key=lambda pair: pair[0])[1]
