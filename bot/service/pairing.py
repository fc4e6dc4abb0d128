"""Pairings for Swiss, round-robin and knockout tournaments: pure functions over plain data.

Swiss. A round pairs every active player once, or gives one of them the bye:

1. The bye goes to a player with the fewest byes so far (so nobody has a second one until
   everybody has had one), the lowest-ranked such player for whom the others can still be paired
   without a repeat; if no choice allows that, the lowest-ranked such player.
2. No two players meet again while any pairing of the others without a repeat exists; when none
   does, the pairing with the fewest repeats is taken.
3. Among those pairings, the one with the least sum over its pairs of the squared difference in
   points is taken: a player floats to as distant a score group as it must, and no further.
4. Ties between pairings equally good by 3 go to the one closest to the usual Swiss shape: inside a
   score group the top half meets the bottom half in order (first against first of the lower
   half), and a floater meets the nearest players of the next group.

"Ranked" is the pairing order: points, then rating, then the lower id first. Seat 0 moves first;
of two paired players it goes to the one who has had seat 0 less often than seat 1 compared with
the other (the seat balance: seat-0 games minus seat-1 games), then to the one whose last game was
in seat 1, then by board: the higher-ranked player on the first, third, ... board.

The pairing is a minimum-cost perfect matching (the blossom algorithm of rustworkx). The graph
holds only pairs at most some score distance apart; the distance widens until the best matching
found is provably the best on the complete graph: no matching using a longer pair can cost less
than that pair alone plus the cheapest conceivable pairing of everybody else.

Round robin: the circle method, every pair exactly once, a bye each round for an odd count, seats
alternating from round to round for everyone except around one game each.

Knockout: seeded by rating into a bracket of the next power of two, byes to the top seeds, seeds
placed so that the top seeds meet as late as possible (1 v 16, 8 v 9, ...). A drawn game is
replayed with seats swapped; after two draws the higher-rated player goes through.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import rustworkx as rx

KNOCKOUT_DRAWS_BEFORE_RATING = 2
"""Drawn games a knockout match replays before the higher-rated player goes through."""

SCORES = (0.0, 0.5, 1.0)


@dataclass(frozen=True)
class Player:
    """An entrant. A withdrawn one is paired no more, but keeps the results it has."""

    id: int
    rating: float
    withdrawn: bool = False


@dataclass(frozen=True)
class Game:
    """One game: seat 0 moves first; no seat 1 means seat 0 had the bye.

    ``score0`` is seat 0's points (1, 0.5 or 0), None while the game has no result. A bye is
    worth 1 point whatever ``score0`` says.
    """

    round: int
    seat0: int
    seat1: int | None
    score0: float | None = None

    def __post_init__(self) -> None:
        if self.score0 is not None and self.score0 not in SCORES:
            raise ValueError(f"a game scores 1, 0.5 or 0 for seat 0, not {self.score0}")
        if self.seat0 == self.seat1:
            raise ValueError(f"player {self.seat0} cannot play itself")

    @property
    def is_bye(self) -> bool:
        return self.seat1 is None

    def points(self, player: int) -> float | None:
        """The points ``player`` scored in this game; None while it has no result."""
        if self.is_bye:
            return 1.0
        if self.score0 is None:
            return None
        return self.score0 if player == self.seat0 else 1.0 - self.score0

    def opponent(self, player: int) -> int | None:
        return self.seat1 if player == self.seat0 else self.seat0


@dataclass(frozen=True)
class Pairing:
    """Two players to meet; ``seat0`` moves first."""

    seat0: int
    seat1: int

    def swapped(self) -> Pairing:
        return Pairing(self.seat1, self.seat0)

    def game(self, round_number: int, score0: float | None = None) -> Game:
        return Game(round_number, self.seat0, self.seat1, score0)


@dataclass(frozen=True)
class Round:
    """One round: its pairings board by board, and the players with a bye."""

    number: int
    pairings: tuple[Pairing, ...]
    byes: tuple[int, ...] = ()

    def games(self) -> tuple[Game, ...]:
        """The round as history: a game without a result per pairing, a won game per bye."""
        played = tuple(pairing.game(self.number) for pairing in self.pairings)
        return played + tuple(Game(self.number, player, None, 1.0) for player in self.byes)


# --- What the history says about each player -------------------------------------------------


@dataclass
class _Record:
    halves: int = 0  # points, in half points
    byes: int = 0
    balance: int = 0  # seat-0 games minus seat-1 games
    last_seat: int | None = None
    met: Counter[int] = field(default_factory=Counter)


def _records(players: Sequence[Player], history: Iterable[Game]) -> dict[int, _Record]:
    records = {player.id: _Record() for player in players}
    for game in sorted(history, key=lambda game: game.round):
        for player in (game.seat0, game.seat1):
            if player is not None and player not in records:
                raise ValueError(f"game {game} names player {player}, who is not entered")
        first = records[game.seat0]
        if game.seat1 is None:
            first.byes += 1
            first.halves += 2
            continue
        second = records[game.seat1]
        first.met[game.seat1] += 1
        second.met[game.seat0] += 1
        first.balance += 1
        second.balance -= 1
        first.last_seat, second.last_seat = 0, 1
        if game.score0 is not None:
            first.halves += round(2 * game.score0)
            second.halves += 2 - round(2 * game.score0)
    return records


def points(players: Sequence[Player], history: Iterable[Game]) -> dict[int, float]:
    """Each player's points: 1 a win or a bye, 0.5 a draw; games without a result count nothing."""
    return {player: record.halves / 2 for player, record in _records(players, history).items()}


def _ranked(players: Iterable[Player], records: Mapping[int, _Record]) -> list[Player]:
    return sorted(players, key=lambda p: (-records[p.id].halves, -p.rating, p.id))


def _seated(higher: int, lower: int, records: Mapping[int, _Record], board: int) -> Pairing:
    """Seat 0 to the player owed it: by seat balance, then last seat, then alternately by board."""

    def owed(player: int) -> tuple[int, int]:
        record = records[player]
        last = {None: 0, 0: -1, 1: 1}[record.last_seat]
        return (-record.balance, last)

    if owed(higher) != owed(lower):
        first = higher if owed(higher) > owed(lower) else lower
    else:
        first = higher if board % 2 == 0 else lower
    return Pairing(first, lower if first == higher else higher)


# --- Swiss ---------------------------------------------------------------------------------


def swiss_round_count(player_count: int) -> int:
    """The usual number of Swiss rounds for so many players: ceil(log2(players))."""
    return math.ceil(math.log2(player_count)) if player_count > 1 else 0


def swiss_round(players: Sequence[Player], history: Sequence[Game], number: int) -> Round:
    """Round ``number`` of a Swiss: the active players paired, or one of them given the bye."""
    records = _records(players, history)
    ranked = [player.id for player in _ranked((p for p in players if not p.withdrawn), records)]
    byes: tuple[int, ...] = ()
    if len(ranked) % 2 == 0:
        pairs, _ = _min_cost_pairs(ranked, records)
    else:
        fewest = min(records[player].byes for player in ranked)
        candidates = [player for player in reversed(ranked) if records[player].byes == fewest]
        fallback: tuple[int, list[tuple[int, int]]] | None = None
        for candidate in candidates:
            pairs, repeats = _min_cost_pairs([p for p in ranked if p != candidate], records)
            if repeats == 0:
                byes = (candidate,)
                break
            if fallback is None:
                fallback = (candidate, pairs)
        else:
            assert fallback is not None
            byes, pairs = (fallback[0],), fallback[1]
    place = {player: i for i, player in enumerate(ranked)}
    pairs.sort(key=lambda pair: place[pair[0]])
    pairings = tuple(
        _seated(higher, lower, records, board) for board, (higher, lower) in enumerate(pairs)
    )
    return Round(number, pairings, byes)


def _min_cost_pairs(
    ranked: Sequence[int], records: Mapping[int, _Record]
) -> tuple[list[tuple[int, int]], int]:
    """The best pairing of an even number of players in pairing order, and its repeat count.

    Each pair is (higher-ranked, lower-ranked). Costs are integers ordered lexicographically:
    repeats, then the squared point differences (in half points), then the shape of step 4.
    """
    size = len(ranked)
    if size == 0:
        return [], 0
    halves = [records[player].halves for player in ranked]
    groups = _score_groups(halves)
    group_of = [g for g, group in enumerate(groups) for _ in range(group.count)]
    index = {player: i for i, player in enumerate(ranked)}
    met = {
        (i, index[opponent])
        for i, player in enumerate(ranked)
        for opponent in records[player].met
        if index.get(opponent, -1) > i
    }
    shape_scale = (size // 2) * size * size + 1  # more than any matching's total shape cost

    def cost(i: int, j: int) -> int:
        same_group = group_of[i] == group_of[j]
        gap = j - i - (groups[group_of[i]].count // 2 if same_group else 1)
        return (halves[i] - halves[j]) ** 2 * shape_scale + gap * gap

    # Widen the graph one score distance at a time, until the best perfect matching on it is
    # cheaper than any matching that uses a longer pair could be.
    links = sorted(
        ((groups[g].halves - groups[h].halves, g, h) for g, h in _group_pairs(len(groups))),
    )
    edges: list[tuple[int, int, int]] = []
    for position, (distance, g, h) in enumerate(links):
        edges.extend(
            (i, j, cost(i, j))
            for i in groups[g].members()
            for j in groups[h].members()
            if i < j and (i, j) not in met
        )
        if position + 1 < len(links) and links[position + 1][0] == distance:
            continue
        mates = _min_cost_matching(size, edges)
        if len(mates) < size // 2:
            continue
        total = sum(cost(i, j) for i, j in mates)
        if total <= _least_cost_beyond(groups, group_of, distance, met) * shape_scale:
            return [(ranked[i], ranked[j]) for i, j in mates], 0
    # No pairing without a repeat: the complete graph, each earlier meeting priced above all else.
    most = max(cost(i, j) for i, j in combinations(range(size), 2))
    repeat_price = most * (size // 2) + 1
    everyone = [
        (i, j, ((i, j) in met) * repeat_price + cost(i, j)) for i, j in combinations(range(size), 2)
    ]
    mates = _min_cost_matching(size, everyone)
    repeats = sum(1 for pair in mates if pair in met)
    return [(ranked[i], ranked[j]) for i, j in mates], repeats


@dataclass(frozen=True)
class _ScoreGroup:
    halves: int
    start: int
    count: int

    def members(self) -> range:
        return range(self.start, self.start + self.count)


def _score_groups(halves: Sequence[int]) -> list[_ScoreGroup]:
    """Runs of equal points in a list sorted by points, highest first."""
    groups: list[_ScoreGroup] = []
    for i, value in enumerate(halves):
        if groups and groups[-1].halves == value:
            last = groups[-1]
            groups[-1] = _ScoreGroup(value, last.start, last.count + 1)
        else:
            groups.append(_ScoreGroup(value, i, 1))
    return groups


def _group_pairs(count: int) -> list[tuple[int, int]]:
    return [(g, h) for g in range(count) for h in range(g, count)]


def _least_cost_beyond(
    groups: Sequence[_ScoreGroup],
    group_of: Sequence[int],
    distance: int,
    met: set[tuple[int, int]],
) -> float:
    """A lower bound on the squared-difference cost of any pairing with a pair past ``distance``.

    Such a pairing costs at least that pair plus the cheapest pairing of the others with no
    regard to repeats, which pairs them in order of points (optimal for a convex cost on a line).
    """
    met_between = Counter((group_of[i], group_of[j]) for i, j in met)
    counts = [group.count for group in groups]
    least = math.inf
    for g, h in _group_pairs(len(groups)):
        gap = groups[g].halves - groups[h].halves
        if gap <= distance or met_between[g, h] == counts[g] * counts[h]:
            continue
        counts[g] -= 1
        counts[h] -= 1
        least = min(least, gap * gap + _in_order_cost(groups, counts))
        counts[g] += 1
        counts[h] += 1
    return least


def _in_order_cost(groups: Sequence[_ScoreGroup], counts: Sequence[int]) -> int:
    """The cost of pairing players in order of points, ``counts[g]`` of them in group ``g``."""
    cost = 0
    carried: int | None = None  # the points of a player left over from a higher group
    for group, count in zip(groups, counts, strict=True):
        if carried is not None and count:
            cost += (carried - group.halves) ** 2
            count -= 1
            carried = None
        if count % 2:
            carried = group.halves
    return cost


def _min_cost_matching(size: int, edges: Sequence[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """A largest matching of nodes ``0..size-1`` and, among those, one of least total cost."""
    if not edges:
        return []
    ceiling = max(cost for _, _, cost in edges) + 1
    graph = rx.PyGraph()
    graph.add_nodes_from(range(size))
    graph.add_edges_from([(i, j, ceiling - cost) for i, j, cost in edges])
    mates = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    return sorted((min(pair), max(pair)) for pair in mates)


# --- Round robin ---------------------------------------------------------------------------


def round_robin_schedule(players: Sequence[Player]) -> list[Round]:
    """Every round of an all-play-all: each pair meets exactly once, odd counts get a bye a round.

    Players are numbered by rating; the schedule is the same whoever has withdrawn since, so it
    can be asked for again mid-event: a withdrawn player's games and byes are left out, and its
    opponent sits that round out without a point.

    Circle method: with ``m`` the odd count of rotating places, player ``i`` meets ``j`` in round
    ``r`` when ``i + j = r`` (mod ``m``), and the fixed place (or the bye) when ``2i = r``. Of
    ``i`` and ``j``, ``i`` takes seat 0 when ``j - i`` (mod ``m``) is odd: everyone alternates
    seats from round to round except on either side of their game against the fixed place, who
    alternates every round.
    """
    if len(players) < 2:
        return []
    entrants: list[Player | None] = [*sorted(players, key=lambda p: (-p.rating, p.id))]
    if len(entrants) % 2:
        entrants.append(None)
    withdrawn = {player.id for player in players if player.withdrawn}
    places = len(entrants) - 1
    fixed = entrants[places]
    rounds = []
    for r in range(places):
        pairings: list[Pairing] = []
        byes: list[int] = []
        for i in range(places):
            j = (r - i) % places
            player = entrants[i]
            assert player is not None  # only the fixed place can be the bye
            if j == i:
                if fixed is None:
                    byes.append(player.id)
                else:
                    both = (fixed.id, player.id)
                    pairings.append(Pairing(*both) if r % 2 == 0 else Pairing(*both[::-1]))
            elif i < j:
                other = entrants[j]
                assert other is not None
                first, second = (player, other) if (j - i) % places % 2 else (other, player)
                pairings.append(Pairing(first.id, second.id))
        rounds.append(
            Round(
                r + 1,
                tuple(p for p in pairings if not {p.seat0, p.seat1} & withdrawn),
                tuple(player for player in byes if player not in withdrawn),
            )
        )
    return rounds


# --- Knockout ------------------------------------------------------------------------------


def knockout_bracket(players: Sequence[Player]) -> tuple[int | None, ...]:
    """The first round's entrants in bracket order, None for a bye; pairs are adjacent slots.

    The active players are seeded by rating (then lower id); the bracket has the next power of
    two of slots, seed ``s`` meeting seed ``size + 1 - s`` in the first round, so the missing
    seeds at the bottom make the byes of the top seeds.
    """
    seeded = sorted((p for p in players if not p.withdrawn), key=lambda p: (-p.rating, p.id))
    if len(seeded) < 2:
        raise ValueError("a knockout needs at least two players")
    size = 1 << (len(seeded) - 1).bit_length()
    return tuple(seeded[s - 1].id if s <= len(seeded) else None for s in seed_order(size))


def seed_order(size: int) -> list[int]:
    """Seeds 1..size in bracket order: 1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11."""
    order = [1]
    while len(order) < size:
        order = [s for seed in order for s in (seed, 2 * len(order) + 1 - seed)]
    return order


def knockout_round(
    players: Sequence[Player],
    entrants: Sequence[int | None],
    history: Sequence[Game],
    number: int,
) -> Round:
    """The first games of the matches between adjacent entrants; a lone entrant has a bye.

    Seat 0 as in a Swiss round: to the player owed it by seat balance or last seat, else to the
    player placed first on the first, third, ... match of the bracket.
    """
    records = _records(players, history)
    pairings: list[Pairing] = []
    byes: list[int] = []
    for board, (first, second) in enumerate(_slot_pairs(entrants)):
        if first is not None and second is not None:
            pairings.append(_seated(first, second, records, board))
        elif first is not None or second is not None:
            byes.extend(player for player in (first, second) if player is not None)
    return Round(number, tuple(pairings), tuple(byes))


def knockout_winner(
    players: Sequence[Player], pairing: Pairing, games: Sequence[Game]
) -> int | None:
    """Who goes through: the winner of the first decisive game, or after two draws the higher
    rated (then the lower id); None while the match needs another game.

    ``games`` are the match's games in the order played; those without a result are not counted.
    """
    draws = 0
    for game in games:
        if game.score0 is None or game.is_bye:
            continue
        if game.score0 != 0.5:
            return game.seat0 if game.score0 == 1.0 else game.seat1
        draws += 1
        if draws == KNOCKOUT_DRAWS_BEFORE_RATING:
            ratings = {player.id: player.rating for player in players}
            return min((pairing.seat0, pairing.seat1), key=lambda p: (-ratings[p], p))
    return None


def knockout_next_game(pairing: Pairing, games: Sequence[Game]) -> Pairing | None:
    """The seats of the match's next game (seats swap after each draw); None once it is decided.

    ``games`` are the match's games in the order played; those without a result are not counted.
    """
    draws = 0
    for game in games:
        if game.score0 is None or game.is_bye:
            continue
        if game.score0 != 0.5:
            return None
        draws += 1
    if draws >= KNOCKOUT_DRAWS_BEFORE_RATING:
        return None
    return pairing.swapped() if draws % 2 else pairing


def knockout_next_entrants(
    players: Sequence[Player], entrants: Sequence[int | None], history: Sequence[Game]
) -> tuple[int | None, ...]:
    """Who goes through from each match of this round, in bracket order, from its results.

    A withdrawn player never goes through: its opponent does if the match was not decided at the
    board, else nobody (None: a bye for the next opponent). Raises ValueError while a match
    between two active players is undecided.
    """
    withdrawn = {player.id for player in players if player.withdrawn}
    advancing: list[int | None] = []
    for first, second in _slot_pairs(entrants):
        if first is None or second is None:
            alone = first if second is None else second
            advancing.append(None if alone in withdrawn else alone)
            continue
        both = {first, second}
        games = [
            game for game in history if game.seat1 is not None and {game.seat0, game.seat1} == both
        ]
        winner = knockout_winner(players, Pairing(first, second), games)
        if winner is None:
            active = both - withdrawn
            if len(active) == 2:
                raise ValueError(f"the match between {first} and {second} is not decided")
            winner = active.pop() if active else None
        advancing.append(None if winner in withdrawn else winner)
    return tuple(advancing)


def _slot_pairs(entrants: Sequence[int | None]) -> list[tuple[int | None, int | None]]:
    if len(entrants) < 2 or len(entrants) & (len(entrants) - 1):
        raise ValueError(f"a bracket round has a power of two of slots, not {len(entrants)}")
    return list(zip(entrants[::2], entrants[1::2], strict=True))
