"""Who plays whom in one wave of a quick-pair queue: a pure function over the members waiting.

A wave sorts the waiting members by rating and pairs rating neighbours. Two neighbours may be
paired when their ratings are at most ``allowed_gap`` apart for the one of them who has waited
longer: the gap starts at ``GAP_START`` and widens by ``GAP_PER_SECOND`` for every second waited.
A provisional rating (deviation 110 or more, grown while the member was away) is known only to
about its deviation, so the gap widens by that deviation for a pair with a provisional member.
The same two members are not paired twice in a row unless they are the only two waiting.

Of every way to pair neighbours within their gaps, the wave takes the cheapest, counting

- each pair at its rating difference;
- each member left waiting at ``LEFT_WAITING`` (a wave pairs whoever it well can);
- the members left waiting, as the next wave will find them: rating neighbours again, so the
  distance between consecutive ones counts as if they were paired.

The last term is what lets a crowd empty in two waves: a member nobody is close to is left
waiting together with their nearest neighbour, not with someone across the server, so the
widened gap of the next wave covers them. The choice is an exact dynamic programme over the
sorted members (four states: whether a member left waiting still looks for a partner below, and
whether the one member an odd count leaves over has been chosen), linear after the sort.
docs/queue.md gives the method with its numbers and the figures of ``bench/queue.py``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from bot.service.ratings import PROVISIONAL_DEVIATION

GAP_START = 100.0
"""The rating gap allowed to a member who has just joined."""
GAP_PER_SECOND = 60.0
"""How much the gap widens for every second a member waits (400 after one 5-second wave)."""
LEFT_WAITING = 100.0
"""What leaving one member waiting costs, in rating points."""

BOT_LEVELS: tuple[tuple[float, str], ...] = ((1400.0, "easy"), (1650.0, "normal"))
"""The bot's level offered to a member who falls back to it: the first whose bound their rating
is under, ``hard`` above them all."""


@dataclass(frozen=True, slots=True)
class Waiting:
    """A member in the queue: their rating, how long they have waited, and whom the queue
    paired them with last (``None``: nobody yet)."""

    user_id: int
    rating: float
    waited: float
    """Seconds since they joined."""
    last_opponent: int | None = None
    deviation: float = 0.0
    """Their rating's deviation as it stood when they joined (0: taken as settled)."""

    @property
    def uncertainty(self) -> float:
        """How far beyond the gap a provisional member may be paired: their deviation."""
        return self.deviation if self.deviation >= PROVISIONAL_DEVIATION else 0.0


def allowed_gap(waited: float) -> float:
    """The rating difference a member may be paired across after waiting ``waited`` seconds."""
    return GAP_START + GAP_PER_SECOND * max(0.0, waited)


def bot_level(rating: float) -> str:
    """The bot's level for a member of ``rating`` (docs/queue.md, "Falling back to the bot")."""
    for bound, level in BOT_LEVELS:
        if rating < bound:
            return level
    return "hard"


# The states of the programme: (a member left waiting looks for a partner, the lone one is chosen).
_STATES = ((False, False), (True, False), (False, True), (True, True))
_PAIR, _LEAVE, _LONE = 0, 1, 2


def pair_wave(waiting: Sequence[Waiting]) -> list[tuple[int, int]]:
    """The pairs one wave makes, as user ids, the lower rating first.

    Deterministic: equal ratings are ordered by longer wait, then user id.
    """
    members = sorted(waiting, key=lambda m: (m.rating, -m.waited, m.user_id))
    count = len(members)
    alone = count == 2
    # best[i][state]: the least cost of deciding the first i members, ending in state.
    best = [dict.fromkeys(_STATES, math.inf) for _ in range(count + 1)]
    back: list[dict[tuple[bool, bool], tuple[tuple[bool, bool], int]]] = [
        {} for _ in range(count + 1)
    ]
    best[0][(False, False)] = 0.0

    def relax(
        at: int, state: tuple[bool, bool], cost: float, came: tuple[bool, bool], how: int
    ) -> None:
        if cost < best[at][state]:
            best[at][state] = cost
            back[at][state] = (came, how)

    for i, member in enumerate(members):
        below = member.rating - members[i - 1].rating if i else 0.0
        for state in _STATES:
            cost = best[i][state]
            if cost == math.inf:
                continue
            looking, lone = state
            carried = cost + (below if looking else 0.0)
            # Leave member i waiting: it ends the open stretch, or opens one, or is the lone one.
            relax(i + 1, (not looking, lone), carried + LEFT_WAITING, state, _LEAVE)
            if not looking and not lone:
                relax(i + 1, (False, True), cost + LEFT_WAITING, state, _LONE)
            if i + 1 < count and _may_pair(member, members[i + 1], alone):
                above = members[i + 1].rating - member.rating
                stretch = (below + above) if looking else 0.0
                relax(i + 2, state, cost + above + stretch, state, _PAIR)
    end = min(((False, False), (False, True)), key=lambda state: best[count][state])
    pairs: list[tuple[int, int]] = []
    at, state = count, end
    while at > 0:
        came, how = back[at][state]
        if how == _PAIR:
            pairs.append((members[at - 2].user_id, members[at - 1].user_id))
            at -= 2
        else:
            at -= 1
        state = came
    pairs.reverse()
    return pairs


def _may_pair(low: Waiting, high: Waiting, alone: bool) -> bool:
    """Whether two rating neighbours may play: within the longer waiter's gap, and not each
    other's last opponent while anyone else waits."""
    if not alone and (low.last_opponent == high.user_id or high.last_opponent == low.user_id):
        return False
    widened = max(low.uncertainty, high.uncertainty)
    return high.rating - low.rating <= allowed_gap(max(low.waited, high.waited)) + widened
