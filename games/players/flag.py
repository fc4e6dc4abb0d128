"""Flag Chase, played as a race: every action is scored by who reaches the other flag first.

After each candidate action the player estimates, in moves, how long each agent still needs
to capture (its *ETA*), and takes the action that leaves it furthest ahead:

- Its own ETA is an expected shortest path through its beliefs about the opponent's hidden
  traps: each cell's chance of holding one, where stepping on one costs the walk back from
  its flag. Traps stop an agent best where the straight paths between the flags run, so
  those cells are suspected more than others.
- The opponent's ETA follows its likely walk to the player's flag: the cheapest path by the
  same kind of suspicion (a wary opponent), or any shortest path (a naive one), springing
  whatever trap of the player's lies on it. A trap where the opponent is about to walk, and
  the player's agent standing in its way, both count.
- Its own traps block it until they go off; a trap the opponent is expected to spring
  before the player gets there costs the player little.

So a player that is ahead walks, around the cells it suspects (and once far enough ahead, by
the fastest way), and a player that is behind sets a trap on the opponent's path, or stands in
its way, when that wins the race back.

The view has no history: which cells the player already crossed after the opponent placed a
trap, and where the opponent stood when placing it, would sharpen the beliefs.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Final

from games import grid
from games.base import Ask, Seat, other
from games.flag import FLAGS, SIZE, TRAPS, Action, Cell, Move, Trap, View
from games.players.base import random_action

CELLS: Final = grid.cells(SIZE)
UNREACHABLE: Final = 99.0
"""The ETA of a cell the agent cannot reach; large enough to lose every race."""
PATH_SUSPICION: Final = 3.0
"""How much likelier a hidden trap is on a cell every shortest path between the flags crosses
than on a cell none does."""
WARINESS: Final = 0.7
"""The weight of a wary opponent (one that suspects the player's traps as the player suspects
its own) against a naive one walking any shortest path."""
LEAD: Final = 2.0
"""A lead in moves past which the player is content: it then makes for the flag fastest rather
than spending moves (on traps, say) to get further ahead."""
DELAY_PREFERENCE: Final = 0.001
"""A tie-break: behind, the race the opponent needs longer for; content, the shorter one."""
TRAP_COST: Final = 0.01
"""A trap spent is one fewer for later: of two equal actions, the player keeps its trap."""
SWEEPS: Final = 4
"""Value-iteration sweeps for the expected path through the trap beliefs."""


def distance(a: Cell, b: Cell) -> int:
    """Moves between two cells on an open grid (agents move like a chess king)."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


@cache
def neighbours(cell: Cell) -> tuple[Cell, ...]:
    """The up to 8 cells next to ``cell``."""
    row, col = cell
    return tuple(
        (r, c)
        for r in range(row - 1, row + 2)
        for c in range(col - 1, col + 2)
        if (r, c) != cell and grid.on_grid((r, c), SIZE)
    )


# --- paths on the open grid ----------------------------------------------------------------


@cache
def _paths_to(target: Cell) -> Mapping[Cell, int]:
    """For every cell, how many shortest paths lead from it to ``target``."""
    counts = {target: 1}
    for cell in sorted(CELLS, key=lambda c: distance(c, target))[1:]:
        near = distance(cell, target) - 1
        counts[cell] = sum(counts[n] for n in neighbours(cell) if distance(n, target) == near)
    return counts


@cache
def path_share(source: Cell, target: Cell) -> Mapping[Cell, float]:
    """For each cell, the share of the shortest paths from ``source`` to ``target`` through it."""
    to_target = _paths_to(target)
    from_source = _paths_to(source)
    total = to_target[source]
    length = distance(source, target)
    return {
        cell: from_source[cell] * to_target[cell] / total
        for cell in CELLS
        if distance(source, cell) + distance(cell, target) == length
    }


# --- what the player believes and estimates ------------------------------------------------


@dataclass(frozen=True)
class Race:
    """The facts of a position the estimates need, from the player's side."""

    me: Seat
    agents: tuple[Cell, Cell]
    my_traps: frozenset[Cell]
    hidden: int
    """The opponent's traps that may be on the grid, unseen."""

    @property
    def goal(self) -> Cell:
        return FLAGS[other(self.me)]

    @property
    def home(self) -> Cell:
        return FLAGS[self.me]

    @property
    def mine(self) -> Cell:
        return self.agents[self.me]

    @property
    def theirs(self) -> Cell:
        return self.agents[other(self.me)]

    @classmethod
    def from_view(cls, view: View) -> Race:
        assert view.seat is not None
        me = view.seat
        them = other(me)
        sprung = sum(1 for trap in view.triggered if trap.owner == them)
        return cls(
            me=me,
            agents=view.agents,
            my_traps=frozenset(view.traps[me] or ()),
            hidden=TRAPS - view.traps_left[them] - sprung,
        )


@lru_cache(maxsize=256)
def suspicion(hidden: int, excluded: frozenset[Cell]) -> Mapping[Cell, float]:
    """Each cell's chance of holding one of ``hidden`` unseen traps, ``excluded`` cells aside.

    Cells on the shortest paths between the flags are suspected more, in proportion to the
    share of those paths crossing them: they are where a trap stops an agent that walks
    straight. The suspicion does not depend on where the agents are now, so that it does
    not move with an agent and make it walk to and fro.
    """
    if hidden <= 0:
        return {}
    share = path_share(*FLAGS)
    weights = {c: 1.0 + PATH_SUSPICION * share.get(c, 0.0) for c in CELLS if c not in excluded}
    total = sum(weights.values())
    return {c: min(0.95, hidden * w / total) for c, w in weights.items()}


_INDEX: Final = {cell: i for i, cell in enumerate(CELLS)}
_NEXT: Final = tuple(tuple(_INDEX[n] for n in neighbours(cell)) for cell in CELLS)
_FLAGS: Final = frozenset(FLAGS)


@lru_cache(maxsize=4096)
def expected_moves(
    goal: Cell, blocked: frozenset[Cell], hidden: int, excluded: frozenset[Cell]
) -> Mapping[Cell, float]:
    """For every cell, the expected moves from it to ``goal``, avoiding ``blocked``, for an
    agent that suspects ``hidden`` traps outside ``excluded`` (see ``suspicion``).

    Springing a trap costs the walk from the agent's flag (the other flag than ``goal``).
    Solved by value iteration from the plain distances; a cell that cannot reach ``goal`` is
    ``UNREACHABLE``.
    """
    plain = _plain_moves(goal, blocked)
    values = [plain.get(cell, UNREACHABLE) for cell in CELLS]
    risk = suspicion(hidden, excluded)
    if risk:
        chance = [risk.get(cell, 0.0) for cell in CELLS]
        order = [_INDEX[cell] for cell in sorted(plain, key=plain.__getitem__)[1:]]
        start = _INDEX[_other_flag(goal)]
        for _ in range(SWEEPS):
            restart = values[start]
            for i in order:
                best = UNREACHABLE
                for n in _NEXT[i]:
                    if values[n] < UNREACHABLE:
                        cost = 1 + chance[n] * restart + (1 - chance[n]) * values[n]
                        best = min(best, cost)
                values[i] = best
    return dict(zip(CELLS, values, strict=True))


def _other_flag(flag: Cell) -> Cell:
    return FLAGS[1] if flag == FLAGS[0] else FLAGS[0]


@lru_cache(maxsize=4096)
def _plain_moves(goal: Cell, blocked: frozenset[Cell]) -> Mapping[Cell, float]:
    """Breadth-first distances to ``goal`` around ``blocked`` cells; unreachable cells absent."""
    moves = {goal: 0.0}
    frontier = [goal]
    while frontier:
        following = []
        for cell in frontier:
            for n in neighbours(cell):
                if n not in moves and n not in blocked:
                    moves[n] = moves[cell] + 1
                    following.append(n)
        frontier = following
    return moves


@dataclass(frozen=True)
class Walk:
    """Where an agent's walk to a flag may lead, and how it may end."""

    moves: float
    """Expected moves to the flag, with any trap sprung on the way."""
    sprung: float
    """The chance of springing a trap."""
    cells: frozenset[Cell]
    """The cells it may step on."""


@lru_cache(maxsize=8192)
def walk(start: Cell, goal: Cell, closed: Cell, traps: frozenset[Cell], wary: bool) -> Walk:
    """How an agent walks from ``start`` to ``goal``, unaware of ``traps`` (springing one
    sends it back to its flag).

    At each step the agent takes the neighbour that looks cheapest (ties split evenly): by
    plain distance, or, if ``wary``, by its expected moves when it suspects as many traps as
    there are in ``traps``. ``closed`` (the other agent's cell) is closed to its first step.
    """
    hidden = len(traps) if wary else 0
    believed = expected_moves(goal, frozenset(), hidden, _FLAGS)
    risk = suspicion(hidden, _FLAGS)
    restart = believed[_other_flag(goal)]
    at = {start: 1.0}
    moves = sprung = 0.0
    visited = set()
    for step in range(1, 4 * SIZE):
        following: dict[Cell, float] = {}
        for cell, chance in at.items():
            costs = {
                n: 1 + risk.get(n, 0.0) * restart + (1 - risk.get(n, 0.0)) * believed[n]
                for n in neighbours(cell)
                if step > 1 or n != closed
            }
            if not costs:
                following[cell] = following.get(cell, 0.0) + chance  # it waits a turn
                continue
            cheapest = min(costs.values())
            steps = [n for n, cost in costs.items() if cost < cheapest + 1e-9]
            for n in steps:
                share = chance / len(steps)
                visited.add(n)
                if n in traps:
                    moves += share * (step + distance(_other_flag(goal), goal))
                    sprung += share
                elif n == goal:
                    moves += share * step
                else:
                    following[n] = following.get(n, 0.0) + share
        at = following
        if not at:
            break
    moves += sum(chance * (4 * SIZE + distance(cell, goal)) for cell, chance in at.items())
    return Walk(moves, sprung, frozenset(visited))


def their_walks(race: Race, my_agent: Cell, traps: frozenset[Cell]) -> tuple[Walk, Walk]:
    """The opponent's walk to the player's flag if it is naive (taking any shortest path)
    and if it is wary (suspecting the player's traps as the player suspects its own). It
    cannot see the traps, and cannot step onto ``my_agent`` on its next move."""
    return (
        walk(race.theirs, race.home, my_agent, traps, wary=False),
        walk(race.theirs, race.home, my_agent, traps, wary=True),
    )


def their_eta(race: Race, my_agent: Cell, traps: frozenset[Cell]) -> tuple[float, float]:
    """The opponent's expected moves to capture, and its chance of springing one of
    ``traps``: wary with the odds ``WARINESS``, else naive (see ``their_walks``)."""
    naive, wary = their_walks(race, my_agent, traps)
    return (
        (1 - WARINESS) * naive.moves + WARINESS * wary.moves,
        (1 - WARINESS) * naive.sprung + WARINESS * wary.sprung,
    )


class Estimates:
    """The estimates for one decision, from one player's view."""

    def __init__(self, race: Race) -> None:
        self.race = race
        # Traps cannot be on a flag, under the player's agent (it would have gone off) or
        # under the opponent's (it may not stand on its own).
        self.excluded = frozenset((*FLAGS, *race.agents))
        self.risk = suspicion(race.hidden, self.excluded)

    def moves(self, blocked: frozenset[Cell]) -> Mapping[Cell, float]:
        """The player's ``expected_moves`` to the goal, around ``blocked``."""
        race = self.race
        return expected_moves(race.goal, blocked, race.hidden, self.excluded)

    def my_eta(self, agent: Cell, traps: frozenset[Cell], sprung: float) -> float:
        """The player's expected moves to capture from ``agent``.

        Its own ``traps`` block it, unless the opponent springs them first (chance
        ``sprung``), which it can only do where it gets before the player. A trap off every
        shortest path from ``agent`` is taken not to matter.
        """
        in_the_way = traps & path_share(agent, self.race.goal).keys()
        if not in_the_way:
            return self.moves(frozenset())[agent]
        theirs = self.race.theirs
        first = frozenset(t for t in in_the_way if distance(agent, t) < distance(theirs, t))
        blocked = self.moves(frozenset(in_the_way))[agent]
        return sprung * self.moves(first)[agent] + (1 - sprung) * blocked

    def score(self, action: Action) -> float:
        """How far ahead in the race the player is after ``action``, in moves, the opponent to
        act next. Positive means the player is expected to capture first."""
        race = self.race
        agent = race.mine
        traps = race.my_traps
        if isinstance(action, Trap):
            traps = traps | {(action.row, action.col)}
        else:
            agent = (action.row, action.col)
            if agent == race.goal:
                return UNREACHABLE
        theirs, sprung = their_eta(race, agent, traps)
        mine = self.my_eta(agent, traps, sprung)
        caught = self.risk.get(agent, 0.0) if isinstance(action, Move) else 0.0
        if caught:
            mine = caught * self.my_eta(race.home, traps, sprung) + (1 - caught) * mine
        ahead = theirs - mine - 0.5
        if ahead > LEAD:
            # Far enough ahead: finishing sooner beats getting further ahead.
            return LEAD - DELAY_PREFERENCE * mine
        # Of two lost races, the one that lasts longer leaves the opponent more time to err.
        return ahead + DELAY_PREFERENCE * theirs


def candidates(race: Race, legal: Sequence[Action], rng: random.Random) -> list[Action]:
    """The actions worth scoring: every move, every trap where the opponent may walk, and
    one trap elsewhere (a way to stay put), chosen at random so that it tells nothing."""
    route = frozenset().union(*(w.cells for w in their_walks(race, race.mine, race.my_traps)))
    moves = [action for action in legal if isinstance(action, Move)]
    traps = [action for action in legal if isinstance(action, Trap)]
    on_route = [trap for trap in traps if (trap.row, trap.col) in route]
    own_path = path_share(race.mine, race.goal)
    elsewhere = [
        trap
        for trap in traps
        if (trap.row, trap.col) not in route and (trap.row, trap.col) not in own_path
    ]
    return moves + on_route + ([rng.choice(elsewhere)] if elsewhere else [])


def strategy(view: View, ask: Ask, legal: Sequence[Action], rng: random.Random) -> Action:
    """The action leaving the seat furthest ahead in the race; a trap kept for later wins ties."""
    if view.seat is None or not legal:
        return random_action(legal, rng)
    race = Race.from_view(view)
    estimates = Estimates(race)
    best: list[Action] = []
    top = -2 * UNREACHABLE
    for action in candidates(race, legal, rng) or legal:
        value = estimates.score(action) - (TRAP_COST if isinstance(action, Trap) else 0.0)
        if value > top + 1e-9:
            best, top = [action], value
        elif value > top - 1e-9:
            best.append(action)
    return rng.choice(best)
