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

Every function takes and gives the event's own values: ``Entrant`` and ``Pairing`` (one game of
a round); a round is its pairings, board by board, then its byes. Knockouts are ``knockout.py``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import rustworkx as rx

SCORES = (0.0, 0.5, 1.0)


@dataclass(frozen=True)
class Entrant:
    """A member in the event and the rating it is seeded by. ``withdrawn`` says why it is paired
    no more, if it is not; a withdrawn entrant keeps the results it has. A ``provisional``
    entrant (its rating still uncertain when the event started) is seeded after every settled
    one, whatever its rating."""

    user_id: int
    rating: float
    withdrawn: str | None = None
    provisional: bool = False

    @property
    def seeding(self) -> tuple[bool, float]:
        """Sorts entrants from the first seed: settled ratings first, each part by rating."""
        return (self.provisional, -self.rating)

    @property
    def active(self) -> bool:
        return self.withdrawn is None


Seats = tuple[int, int]
"""Two entrants as they sit down to a game: the first moves first."""


@dataclass(frozen=True)
class Pairing:
    """One game of a round: two entrants (seat 0 moves first) or a bye (no ``seat1``).

    ``score0`` is seat 0's points (1, 0.5 or 0), None while the game has no result; a bye is
    worth 1 point whatever it says. ``board`` orders the round's games (its byes come last),
    ``replay`` counts the earlier games of the same knockout match. Once ``ended``, ``lapsed``
    says which seats ran out of time. ``match_id`` is the match that plays it, ``id`` its row.
    """

    round: int
    seat0: int
    seat1: int | None
    score0: float | None = None
    board: int = 0
    replay: int = 0
    ended: bool = False
    lapsed: tuple[bool, bool] = (False, False)
    match_id: int | None = None
    id: int | None = None

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

    def seat_of(self, user_id: int) -> int | None:
        return 0 if user_id == self.seat0 else 1 if user_id == self.seat1 else None


def numbered(number: int, seats: Sequence[Seats], byes: Sequence[int]) -> list[Pairing]:
    """Round ``number``: its games board by board, then its byes (each ended: a win)."""
    played = [Pairing(number, first, second, board=b) for b, (first, second) in enumerate(seats)]
    start = len(played)
    return played + [
        Pairing(number, player, None, 1.0, board=start + i, ended=True)
        for i, player in enumerate(byes)
    ]


# --- What the history says about each player -------------------------------------------------


@dataclass
class Record:
    """What the games so far say about one player."""

    halves: int = 0  # points, in half points
    byes: int = 0
    balance: int = 0  # seat-0 games minus seat-1 games
    last_seat: int | None = None
    met: Counter[int] = field(default_factory=Counter)


def records_of(players: Sequence[Entrant], history: Iterable[Pairing]) -> dict[int, Record]:
    records = {player.user_id: Record() for player in players}
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


def points(players: Sequence[Entrant], history: Iterable[Pairing]) -> dict[int, float]:
    """Each player's points: 1 a win or a bye, 0.5 a draw; games without a result count nothing."""
    return {player: record.halves / 2 for player, record in records_of(players, history).items()}


def _ranked(players: Iterable[Entrant], records: Mapping[int, Record]) -> list[Entrant]:
    return sorted(players, key=lambda p: (-records[p.user_id].halves, *p.seeding, p.user_id))


def seated(higher: int, lower: int, records: Mapping[int, Record], board: int) -> Seats:
    """Seat 0 to the player owed it: by seat balance, then last seat, then alternately by board."""

    def owed(player: int) -> tuple[int, int]:
        record = records[player]
        last = {None: 0, 0: -1, 1: 1}[record.last_seat]
        return (-record.balance, last)

    if owed(higher) != owed(lower):
        first = higher if owed(higher) > owed(lower) else lower
    else:
        first = higher if board % 2 == 0 else lower
    return (first, lower if first == higher else higher)


# --- Swiss ---------------------------------------------------------------------------------


def swiss_round_count(player_count: int) -> int:
    """The usual number of Swiss rounds for so many players: ceil(log2(players))."""
    return math.ceil(math.log2(player_count)) if player_count > 1 else 0


def swiss_round(
    players: Sequence[Entrant], history: Sequence[Pairing], number: int
) -> list[Pairing]:
    """Round ``number`` of a Swiss: the active players paired, or one of them given the bye."""
    records = records_of(players, history)
    ranked = [player.user_id for player in _ranked((p for p in players if p.active), records)]
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
    seats = [seated(higher, lower, records, board) for board, (higher, lower) in enumerate(pairs)]
    return numbered(number, seats, byes)


def _min_cost_pairs(
    ranked: Sequence[int], records: Mapping[int, Record]
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


def round_robin_schedule(players: Sequence[Entrant]) -> list[list[Pairing]]:
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
    entrants: list[Entrant | None] = [*sorted(players, key=lambda p: (*p.seeding, p.user_id))]
    if len(entrants) % 2:
        entrants.append(None)
    withdrawn = {player.user_id for player in players if not player.active}
    places = len(entrants) - 1
    fixed = entrants[places]
    rounds = []
    for r in range(places):
        pairings: list[Seats] = []
        byes: list[int] = []
        for i in range(places):
            j = (r - i) % places
            player = entrants[i]
            assert player is not None  # only the fixed place can be the bye
            if j == i:
                if fixed is None:
                    byes.append(player.user_id)
                else:
                    both = (fixed.user_id, player.user_id)
                    pairings.append(both if r % 2 == 0 else (both[1], both[0]))
            elif i < j:
                other = entrants[j]
                assert other is not None
                first, second = (player, other) if (j - i) % places % 2 else (other, player)
                pairings.append((first.user_id, second.user_id))
        rounds.append(
            numbered(
                r + 1,
                [pair for pair in pairings if not set(pair) & withdrawn],
                [player for player in byes if player not in withdrawn],
            )
        )
    return rounds
