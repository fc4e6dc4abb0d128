"""Safe Cracker, played by minimax over the codes still consistent with the feedback.

For the default shape (3 digits, 1-3: 27 codes) the guesser plays the exact game: every
guess keeps the number of guesses that surely crack the code at its least, which is 5 from
the start (docs/rules.md *computed*). Larger shapes are too big for that within a decision's
time, so the guesser plays Knuth's one-step minimax: the guess whose worst feedback leaves
the fewest codes, over every code when that is cheap, else over a sample of candidates.

With a guess limit the game may be decided by the best single guess, so the guesser then
only guesses codes that may be right. Its own code is uniform over all codes: with only
exact matches as feedback no code is harder to crack than another.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Final

from games.base import Ask
from games.players.base import random_action
from games.safe import Code, Guess, GuessRecord, Options, SafeAction, SafeView, exact_matches

EXACT_CODES: Final = 32
"""Code spaces up to this size are played by exact minimax."""
ENUMERATED_CODES: Final = 1000
"""Consistent codes are listed in full up to this many, else sampled."""
SAMPLED_CODES: Final = 400
"""Consistent codes drawn at random when there are too many to list."""
GUESS_POOL: Final = 800
"""Candidate guesses scored per decision by the one-step minimax."""


# --- exact play, for small shapes ----------------------------------------------------------


@cache
def all_codes(digits: int, length: int) -> tuple[Code, ...]:
    """Every code of a shape, in sorted order."""
    return tuple(itertools.product(range(1, digits + 1), repeat=length))


@cache
def _feedback_masks(digits: int, length: int) -> tuple[tuple[int, ...], ...]:
    """``masks[g][f]``: the codes (as a mask) that answer ``f`` exact matches to guess ``g``."""
    codes = all_codes(digits, length)
    masks = []
    for guess in codes:
        by_feedback = [0] * (length + 1)
        for i, code in enumerate(codes):
            by_feedback[exact_matches(guess, code)] |= 1 << i
        masks.append(tuple(by_feedback))
    return tuple(masks)


def _crackable_within(guesses: int, length: int) -> int:
    """The most codes any strategy can surely crack in ``guesses`` guesses.

    A guess either is the code or answers one of ``length`` other feedbacks.
    """
    return 1 if guesses <= 1 else 1 + length * _crackable_within(guesses - 1, length)


def _least_guesses(codes: int, length: int) -> int:
    guesses = 1
    while _crackable_within(guesses, length) < codes:
        guesses += 1
    return guesses


Split = tuple[tuple[int, ...], bool]
"""How a guess splits the candidates: what each other feedback leaves (masks, largest first),
and whether the guess itself may be the code."""


@cache
def _splits(digits: int, length: int, candidates: int) -> dict[Split, tuple[int, ...]]:
    """Every informative split of ``candidates`` with the guesses making it, most even first.

    Guesses that split alike need the same number of guesses after them, so the search
    looks at each split once.
    """
    guesses: dict[Split, list[int]] = {}
    for guess, masks in enumerate(_feedback_masks(digits, length)):
        parts = [candidates & mask for mask in masks[:length] if candidates & mask]
        cracks = bool(candidates >> guess & 1)
        if parts == [candidates]:
            continue  # learns nothing: never part of an optimal line
        split = (tuple(sorted(parts, key=int.bit_count, reverse=True)), cracks)
        guesses.setdefault(split, []).append(guess)

    def evenness(split: Split) -> tuple[int, bool]:
        parts, cracks = split
        return (parts[0].bit_count() if parts else 0), not cracks

    return {split: tuple(guesses[split]) for split in sorted(guesses, key=evenness)}


@cache
def guesses_needed(digits: int, length: int, candidates: int) -> int:
    """The fewest guesses that surely crack a code known to be in ``candidates`` (a mask)."""
    count = candidates.bit_count()
    if count <= 1:
        return count
    splits = _splits(digits, length, candidates)
    if count == digits**length:
        # Relabelling each position's digits maps any code to any other and keeps every
        # exact-match count, so before any feedback all first guesses are equally good.
        return _split_cost(digits, length, next(iter(splits)), count + 1)
    floor = _least_guesses(count, length)
    best = count + 1
    for split in splits:
        best = min(best, _split_cost(digits, length, split, best))
        if best == floor:
            break
    return best


def _split_cost(digits: int, length: int, split: Split, bound: int) -> int:
    """Guesses needed in the worst case after a guess making ``split``; counting stops once
    it reaches ``bound``."""
    parts, cracks = split
    cost = 1 if cracks else 0
    for left in parts:
        cost = max(cost, 1 + guesses_needed(digits, length, left))
        if cost >= bound:
            break
    return cost


@cache
def best_exact_guesses(digits: int, length: int, candidates: int) -> tuple[int, ...]:
    """The optimal guesses: those that may crack the code now if any is optimal, and of
    those the ones leaving the fewest codes on average."""
    if candidates.bit_count() == digits**length:
        return tuple(range(digits**length))  # all alike: see guesses_needed
    least = guesses_needed(digits, length, candidates)
    optimal = [
        (sum(part.bit_count() ** 2 for part in split[0]), split[1], guesses)
        for split, guesses in _splits(digits, length, candidates).items()
        if _split_cost(digits, length, split, least + 1) == least
    ]
    if any(cracks for _, cracks, _ in optimal):
        optimal = [choice for choice in optimal if choice[1]]
    evenest = min(spread for spread, _, _ in optimal)
    return tuple(guess for spread, _, guesses in optimal if spread == evenest for guess in guesses)


# --- consistent codes ----------------------------------------------------------------------


class ConsistentCodes:
    """The codes agreeing with every feedback, counted position by position.

    A digit at a position matters only through which earlier guesses it agrees with there,
    so digits agreeing with the same guesses are counted together. The counts make the set
    cheap to size, to list, and to draw from uniformly, even among 9**6 codes.
    """

    def __init__(self, options: Options, records: Sequence[GuessRecord]) -> None:
        self._length = options.length
        self._needed = tuple(record.exact for record in records)
        self._choices: list[list[tuple[tuple[int, ...], tuple[int, ...]]]] = []
        for position in range(options.length):
            digits_by_agreement: dict[tuple[int, ...], list[int]] = {}
            for digit in range(1, options.digits + 1):
                agreeing = tuple(
                    i for i, record in enumerate(records) if record.code[position] == digit
                )
                digits_by_agreement.setdefault(agreeing, []).append(digit)
            self._choices.append(
                [(agreeing, tuple(digits)) for agreeing, digits in digits_by_agreement.items()]
            )
        self._counts: dict[tuple[int, tuple[int, ...]], int] = {}

    def __len__(self) -> int:
        return self._count(0, self._needed) if max(self._needed, default=0) <= self._length else 0

    def __iter__(self) -> Iterator[Code]:
        """Every consistent code, in no particular order."""
        if len(self):
            yield from self._codes(0, self._needed, ())

    def draw(self, rng: random.Random) -> Code:
        """A consistent code, each equally likely. Raises ``ValueError`` when there is none."""
        if not len(self):
            raise ValueError("no code agrees with every feedback")
        code: list[int] = []
        needed = self._needed
        for position in range(self._length):
            pick = rng.randrange(self._count(position, needed))
            for agreeing, digits in self._choices[position]:
                after = self._after(position, needed, agreeing)
                if after is None:
                    continue
                ways = len(digits) * self._count(position + 1, after)
                if pick < ways:
                    code.append(digits[pick % len(digits)])
                    needed = after
                    break
                pick -= ways
        return tuple(code)

    def _after(
        self, position: int, needed: tuple[int, ...], agreeing: tuple[int, ...]
    ) -> tuple[int, ...] | None:
        """The matches still needed after a digit agreeing with ``agreeing`` at ``position``,
        or ``None`` if the remaining positions could no longer supply them."""
        after = list(needed)
        for i in agreeing:
            after[i] -= 1
            if after[i] < 0:
                return None
        room = self._length - position - 1
        return None if any(n > room for n in after) else tuple(after)

    def _count(self, position: int, needed: tuple[int, ...]) -> int:
        if position == self._length:
            return 1
        key = (position, needed)
        if key not in self._counts:
            total = 0
            for agreeing, digits in self._choices[position]:
                after = self._after(position, needed, agreeing)
                if after is not None:
                    total += len(digits) * self._count(position + 1, after)
            self._counts[key] = total
        return self._counts[key]

    def _codes(self, position: int, needed: tuple[int, ...], prefix: Code) -> Iterator[Code]:
        if position == self._length:
            yield prefix
            return
        for agreeing, digits in self._choices[position]:
            after = self._after(position, needed, agreeing)
            if after is not None and self._count(position + 1, after):
                for digit in digits:
                    yield from self._codes(position + 1, after, (*prefix, digit))


def consistent_codes(
    options: Options, records: Sequence[GuessRecord], rng: random.Random
) -> list[Code]:
    """Codes agreeing with every feedback: all of them, sorted, while there are at most
    ``ENUMERATED_CODES``, else ``SAMPLED_CODES`` drawn uniformly."""
    consistent = ConsistentCodes(options, records)
    if len(consistent) <= ENUMERATED_CODES:
        return sorted(consistent)
    return sorted({consistent.draw(rng) for _ in range(SAMPLED_CODES)})


# --- choosing a guess ----------------------------------------------------------------------


class _Splitter:
    """How any guess splits a fixed list of codes, by feedback, counted with bit operations.

    Each code is a bit; per position and digit a mask holds the codes with that digit
    there. A guess's exact matches with every code at once are then a sum of masks, kept
    as bit planes.
    """

    def __init__(self, options: Options, codes: Sequence[Code]) -> None:
        self._all = (1 << len(codes)) - 1
        self._length = options.length
        self._planes = self._length.bit_length()
        self._with_digit = [[0] * (options.digits + 1) for _ in range(options.length)]
        for i, code in enumerate(codes):
            for position, digit in enumerate(code):
                self._with_digit[position][digit] |= 1 << i

    def sizes(self, guess: Code) -> list[int]:
        """How many of the codes answer each feedback, 0 to ``length`` exact matches."""
        planes = [0] * self._planes
        for position, digit in enumerate(guess):
            carry = self._with_digit[position][digit]
            for plane in range(self._planes):
                planes[plane], carry = planes[plane] ^ carry, planes[plane] & carry
        sizes = []
        for exact in range(self._length + 1):
            codes = self._all
            for plane in range(self._planes):
                codes &= planes[plane] if exact >> plane & 1 else ~planes[plane]
            sizes.append(codes.bit_count())
        return sizes


def _knuth_guess(
    options: Options, candidates: Sequence[Code], pool: Sequence[Code], rng: random.Random
) -> Code:
    """The guess of ``pool`` whose worst feedback leaves the fewest ``candidates``.

    Ties go to a guess that may be right, then to the fewest codes left on average.
    """
    splitter = _Splitter(options, candidates)
    may_be_right = set(candidates)
    best: tuple[int, bool, int, float] | None = None
    choice = pool[0]
    for guess in pool:
        sizes = splitter.sizes(guess)
        key = (
            max(sizes),
            guess not in may_be_right,
            sum(n * n for n in sizes),
            rng.random(),
        )
        if best is None or key < best:
            best, choice = key, guess
    return choice


def _guess(view: SafeView, rng: random.Random) -> Code:
    assert view.seat is not None
    options = view.options
    records = view.guesses[view.seat]
    limited = options.max_guesses is not None
    space = options.digits**options.length
    if space <= EXACT_CODES and not limited:
        codes = all_codes(options.digits, options.length)
        mask = sum(1 << i for i, code in enumerate(codes) if _agrees(code, records))
        return codes[rng.choice(best_exact_guesses(options.digits, options.length, mask))]
    candidates = consistent_codes(options, records, rng)
    if not candidates:  # feedback that no code agrees with: nothing left to reason from
        return _random_code(options, rng)
    pool: Sequence[Code]
    if limited or len(candidates) <= 2:
        pool = candidates
    elif space <= GUESS_POOL:
        pool = all_codes(options.digits, options.length)
    else:
        pool = _sample(candidates, GUESS_POOL // 2, rng)
        pool += [_random_code(options, rng) for _ in range(GUESS_POOL - len(pool))]
    return _knuth_guess(options, candidates, pool, rng)


def _agrees(code: Code, records: Sequence[GuessRecord]) -> bool:
    return all(exact_matches(record.code, code) == record.exact for record in records)


def _sample(codes: Sequence[Code], size: int, rng: random.Random) -> list[Code]:
    return list(codes) if len(codes) <= size else rng.sample(list(codes), size)


def _random_code(options: Options, rng: random.Random) -> Code:
    return tuple(rng.randint(1, options.digits) for _ in range(options.length))


def strategy(
    view: SafeView, ask: Ask, legal: Sequence[SafeAction], rng: random.Random
) -> SafeAction:
    """The best action for the seat whose ``view`` this is (see the module docstring)."""
    if ask is Ask.SECRET:
        return random_action(legal, rng)
    guess = Guess(_guess(view, rng))
    return guess if guess in legal else random_action(legal, rng)
