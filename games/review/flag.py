"""Flag Chase reviewed by the built-in player's race estimate, from what each player knew.

Flag Chase has no solver: the built-in player scores every action by how far ahead in the
race to the flags it leaves its side, in moves (``games.players.flag``). The review scores
the actions the player would consider, and the one played, the same way: the best are the
top scores, a move's loss is how far below them it falls. These are estimates.

What a player knew is worked out from the public record of the match, which is more than a
built-in player's view holds: each trap the opponent placed lies on a cell that was free
when it was placed (no flag, no agent), which neither agent has stood on since, and which
is not where one of its other traps went off. The luck of a move is the chance that the cell
stepped on held a trap, against what happened.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import permutations

from games import grid
from games.base import SEATS, other
from games.flag import FLAGS, SIZE, Action, Cell, Move, State, Trap
from games.players.flag import TRAP_COST, Estimates, Race, candidates, distance
from games.review.judging import MOVES, Judged, Judgement, luck_among
from games.review.model import Knowledge
from games.review.phrasing import _, n_
from games.review.replay import Replay, Step

CELLS = frozenset(grid.cells(SIZE))
LOSS_CAP = 3.0
"""The most a move can lose, in moves (a blunder is 1)."""
LISTED = 10
"""Cells that may hold a trap are listed when there are at most this many."""


@dataclass
class Placement:
    """One trap placed, as the public saw it: the cells it may be on."""

    cells: set[Cell]


@dataclass
class Traps:
    """What the public record says of one player's traps."""

    placed: list[Placement] = field(default_factory=list)
    sprung: list[frozenset[int]] = field(default_factory=list)
    """Per trap gone off, the placements it may have been."""

    def scenarios(self) -> list[list[Placement]]:
        """The placements still hidden, for each way of matching the traps gone off to the
        placements they may have been."""
        found = []
        for order in permutations(range(len(self.placed)), len(self.sprung)):
            if all(k in allowed for k, allowed in zip(order, self.sprung, strict=True)):
                found.append([p for k, p in enumerate(self.placed) if k not in order])
        return found or [[]]

    def chances(self) -> dict[Cell, float]:
        """Each cell's chance of holding one of these traps, each placement equally likely
        on each of its cells and each scenario equally likely."""
        scenarios = self.scenarios()
        chance: dict[Cell, float] = {}
        for hidden in scenarios:
            for placement in hidden:
                for cell in placement.cells:
                    share = 1 / (len(placement.cells) * len(scenarios))
                    chance[cell] = chance.get(cell, 0.0) + share
        return {cell: min(1.0, p) for cell, p in chance.items()}

    def hidden(self) -> int:
        return len(self.placed) - len(self.sprung)

    def record(self, step: Step) -> None:
        """Learn from ``step`` what the public learns of these traps' owner's traps."""
        before: State = step.before
        owner = step.seat
        if isinstance(step.action, Trap) and step.after.traps_left(owner) < before.traps_left(
            owner
        ):
            self.placed.append(Placement(set(CELLS - set(FLAGS) - set(before.agents))))

    def sprung_at(self, cell: Cell) -> None:
        self.sprung.append(frozenset(k for k, p in enumerate(self.placed) if cell in p.cells))
        for placement in self.placed:
            placement.cells.discard(cell)

    def stood_on(self, cells: Iterable[Cell]) -> None:
        for placement in self.placed:
            placement.cells.difference_update(cells)


def judge(replay: Replay) -> Judgement:
    traps = {seat: Traps() for seat in SEATS}
    moves = []
    for index, step in enumerate(replay.steps):
        theirs = traps[other(step.seat)]
        moves.append(_judge_step(replay, index, step, theirs))
        traps[step.seat].record(step)
        for event in step.events:
            if event.kind == "trap_triggered":
                traps[event.data["owner"]].sprung_at((event.data["row"], event.data["col"]))
        # A cell the other player's agent stepped on or stands on holds no trap of an owner:
        # it would have gone off (and sent the agent home). An owner's own agent may cross its
        # own traps, so its steps tell nothing of them.
        for owner in SEATS:
            stood = {step.after.agents[other(owner)]}
            if isinstance(step.action, Move) and step.seat == other(owner):
                stood.add((step.action.row, step.action.col))
            traps[owner].stood_on(stood)
    return Judgement(tuple(moves), MOVES)


def _judge_step(replay: Replay, index: int, step: Step, theirs: Traps) -> Judged:
    state: State = step.before
    seat = step.seat
    game = replay.game
    race = Race.from_view(game.view(state, seat))
    estimates = Estimates(race)
    legal = game.legal_actions(state, seat)
    rng = random.Random(f"review:{replay.seed}:{index}")
    played: Action = step.action
    considered = list(dict.fromkeys([played, *candidates(race, legal, rng)]))
    values = {
        action: estimates.score(action) - (TRAP_COST if isinstance(action, Trap) else 0.0)
        for action in considered
    }
    top = max(values.values())
    # Missing a capture scores a whole race lost; past a blunder, how much more says nothing.
    losses = {action: min(LOSS_CAP, top - value) for action, value in values.items()}
    chance = theirs.chances()
    possible = sorted(chance)
    mine, them = state.agents[seat], state.agents[other(seat)]
    distances = (distance(mine, FLAGS[other(seat)]), distance(them, FLAGS[seat]))
    hidden = theirs.hidden()
    listed = tuple(grid.cell_text(c) for c in possible) if len(possible) <= LISTED else ()
    where = f": {', '.join(listed)}" if listed else ""
    trap_words = (
        n_(
            "{cells} cells may hide the other player's {n} trap{where}",
            "{cells} cells may hide the other player's {n} traps{where}",
            hidden,
            cells=len(possible),
            where=where,
        )
        if hidden
        else _("no hidden trap of the other player's")
    )
    return Judged(
        seat=seat,
        ask=step.ask,
        action=step.text,
        move=_words(played),
        knowledge=Knowledge(
            text=_(
                "{traps}; the flag was {mine} away, the other agent {theirs} from its goal.",
                traps=trap_words,
                mine=_moves(distances[0]),
                theirs=_moves(distances[1]),
            ),
            possible=len(possible),
            listed=listed,
            expected=estimates.moves(frozenset())[mine],
            distances=distances,
        ),
        best=tuple(_words(a) for a in sorted(values) if values[a] > top - 1e-9),
        loss=losses[played],
        typical_loss=sum(losses.values()) / len(losses),
        before=top,
        after=values[played],
        exact=False,
        luck=_luck(step, chance),
    )


def _luck(step: Step, chance: dict[Cell, float]) -> float | None:
    """A move's luck: stepping on a cell that held a trap with chance ``p``, and springing
    one or not. ``None`` when nothing was left to chance."""
    if not isinstance(step.action, Move):
        return None
    p = chance.get((step.action.row, step.action.col), 0.0)
    if not 0.0 < p < 1.0:
        return None
    sprung = any(event.kind == "trap_triggered" for event in step.events)
    return luck_among([0.0, 1.0], 0.0 if sprung else 1.0, higher_is_better=True, weights=[p, 1 - p])


def _moves(count: int) -> str:
    return n_("{n} move", "{n} moves", count)


def _words(action: Action) -> str:
    cell = grid.cell_text((action.row, action.col))
    if isinstance(action, Move):
        return _("move to {cell}", cell=cell)
    return _("trap at {cell}", cell=cell)
