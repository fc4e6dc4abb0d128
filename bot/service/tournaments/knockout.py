"""Knockout pairings: pure functions over the event's ``Entrant`` and ``Pairing`` values.

Seeded by rating into a bracket of the next power of two, byes to the top seeds, seeds placed so
that the top seeds meet as late as possible (1 v 16, 8 v 9, ...). A drawn game is replayed with
seats swapped; after two draws the higher-rated player goes through.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.service.tournaments.pairing import Entrant, Pairing, Seats, numbered, records_of, seated

KNOCKOUT_DRAWS_BEFORE_RATING = 2
"""Drawn games a knockout match replays before the higher-rated player goes through."""


def knockout_bracket(players: Sequence[Entrant]) -> tuple[int | None, ...]:
    """The first round's entrants in bracket order, None for a bye; pairs are adjacent slots.

    The active players are seeded by rating (then lower id); the bracket has the next power of
    two of slots, seed ``s`` meeting seed ``size + 1 - s`` in the first round, so the missing
    seeds at the bottom make the byes of the top seeds.
    """
    seeded = sorted((p for p in players if p.active), key=lambda p: (*p.seeding, p.user_id))
    if len(seeded) < 2:
        raise ValueError("a knockout needs at least two players")
    size = 1 << (len(seeded) - 1).bit_length()
    return tuple(seeded[s - 1].user_id if s <= len(seeded) else None for s in seed_order(size))


def seed_order(size: int) -> list[int]:
    """Seeds 1..size in bracket order: 1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11."""
    order = [1]
    while len(order) < size:
        order = [s for seed in order for s in (seed, 2 * len(order) + 1 - seed)]
    return order


def knockout_round(
    players: Sequence[Entrant],
    entrants: Sequence[int | None],
    history: Sequence[Pairing],
    number: int,
) -> list[Pairing]:
    """The first games of the matches between adjacent entrants; a lone entrant has a bye.

    Seat 0 as in a Swiss round: to the player owed it by seat balance or last seat, else to the
    player placed first on the first, third, ... match of the bracket.
    """
    records = records_of(players, history)
    pairings: list[Seats] = []
    byes: list[int] = []
    for board, (first, second) in enumerate(_slot_pairs(entrants)):
        if first is not None and second is not None:
            pairings.append(seated(first, second, records, board))
        elif first is not None or second is not None:
            byes.extend(player for player in (first, second) if player is not None)
    return numbered(number, pairings, byes)


def knockout_winner(
    players: Sequence[Entrant], seats: Seats, games: Sequence[Pairing]
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
            seeding = {player.user_id: player.seeding for player in players}
            return min(seats, key=lambda p: (*seeding[p], p))
    return None


def knockout_next_game(seats: Seats, games: Sequence[Pairing]) -> Seats | None:
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
    return (seats[1], seats[0]) if draws % 2 else seats


def knockout_next_entrants(
    players: Sequence[Entrant], entrants: Sequence[int | None], history: Sequence[Pairing]
) -> tuple[int | None, ...]:
    """Who goes through from each match of this round, in bracket order, from its results.

    A withdrawn player never goes through: its opponent does if the match was not decided at the
    board, else nobody (None: a bye for the next opponent). Raises ValueError while a match
    between two active players is undecided.
    """
    withdrawn = {player.user_id for player in players if not player.active}
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
        winner = knockout_winner(players, (first, second), games)
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
