"""The Safe Cracker codes a guesser still has to consider, as bits, for the review.

Codes are listed once and each is a bit, so that a guess's feedback splits the whole list
in a few integer operations (per position and digit, a mask of the codes with that digit
there; the exact matches of a guess with every code are a sum of such masks, kept as bit
planes). Shapes of up to ``LISTED_SPACE`` codes list every code, so the codes still possible
and how a guess splits them are exact; larger shapes follow a uniform sample of the codes
still possible, drawn again when too few of it are left.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import product

from games.players.safe import ConsistentCodes
from games.safe import Code, GuessRecord, Options

LISTED_SPACE = 4096
"""Shapes with at most this many codes are followed code by code."""
SAMPLE = 128
"""Codes followed in larger shapes."""
LEAST_SAMPLE = 16
"""A sample with fewer codes left is drawn again from the codes still possible."""
REDRAWN = 24
"""Codes drawn when a sample is drawn again."""
LISTED_LEFT = 64
"""In larger shapes, the codes still possible are listed in full once this few are left."""


class CodeBits:
    """``codes`` as bits (bit ``i`` is ``codes[i]``), split by exact matches at once."""

    def __init__(self, codes: Sequence[Code], digits: int, length: int) -> None:
        self.codes = tuple(codes)
        self.length = length
        self.all = (1 << len(self.codes)) - 1
        self._planes = length.bit_length()
        self._with_digit = [[0] * (digits + 1) for _ in range(length)]
        for i, code in enumerate(self.codes):
            for position, digit in enumerate(code):
                self._with_digit[position][digit] |= 1 << i

    def split(self, guess: Code) -> list[int]:
        """The codes (as a mask) answering ``guess`` with 0, 1, ... ``length`` exact matches."""
        planes = [0] * self._planes
        for position, digit in enumerate(guess):
            carry = self._with_digit[position][digit]
            for plane in range(self._planes):
                planes[plane], carry = planes[plane] ^ carry, planes[plane] & carry
        masks = []
        for exact in range(self.length + 1):
            codes = self.all
            for plane in range(self._planes):
                codes &= planes[plane] if exact >> plane & 1 else ~planes[plane]
            masks.append(codes)
        return masks


@lru_cache(maxsize=16)
def every_code(digits: int, length: int) -> CodeBits:
    """Every code of a shape, in sorted order, as bits."""
    return CodeBits(list(product(range(1, digits + 1), repeat=length)), digits, length)


def members(bits: int) -> list[int]:
    """The indices of the set bits of ``bits``."""
    found = []
    while bits:
        low = bits & -bits
        found.append(low.bit_length() - 1)
        bits ^= low
    return found


@dataclass(frozen=True)
class Possible:
    """The codes still possible after some guesses: ``count`` of them exactly, followed
    through ``mask`` over ``bits`` (all of them, or a uniform sample)."""

    options: Options
    bits: CodeBits
    mask: int
    count: int

    @property
    def followed(self) -> int:
        return self.mask.bit_count()

    @property
    def exact(self) -> bool:
        """Whether every code still possible is followed, not a sample of them."""
        return self.followed == self.count

    @property
    def scale(self) -> float:
        """Codes still possible per code followed."""
        return self.count / self.followed

    def codes(self) -> list[Code]:
        return [self.bits.codes[i] for i in members(self.mask)]

    def pick(self, most: int, rng: random.Random) -> list[Code]:
        """Up to ``most`` of the codes followed, chosen at random."""
        if self.followed <= 8 * most:  # dense enough to list, or too sparse to hit at random
            codes = self.codes()
            return codes if len(codes) <= most else rng.sample(codes, most)
        chosen: set[int] = set()
        size = len(self.bits.codes)
        while len(chosen) < most:
            index = rng.randrange(size)
            if self.mask >> index & 1:
                chosen.add(index)
        return [self.bits.codes[i] for i in sorted(chosen)]

    @classmethod
    def start(cls, options: Options, rng: random.Random) -> Possible:
        """Every code, before any guess."""
        digits, length = options.digits, options.length
        space = digits**length
        if space <= LISTED_SPACE:
            bits = every_code(digits, length)
        else:
            sample = {tuple(rng.randint(1, digits) for _ in range(length)) for _ in range(SAMPLE)}
            bits = CodeBits(sorted(sample), digits, length)
        return cls(options, bits, bits.all, space)

    def after(self, records: Sequence[GuessRecord], rng: random.Random) -> Possible:
        """The codes still possible once the last of ``records`` (every guess so far, this
        set having followed all but the last) is answered."""
        last = records[-1]
        mask = self.mask & self.bits.split(last.code)[last.exact]
        if self.exact:  # every code still possible is followed: so are those left now
            return Possible(self.options, self.bits, mask, mask.bit_count())
        consistent = ConsistentCodes(self.options, records)
        count = len(consistent)
        if mask.bit_count() >= min(count, LEAST_SAMPLE):
            return Possible(self.options, self.bits, mask, count)
        if count <= LISTED_LEFT:
            codes = sorted(consistent)
        else:
            codes = sorted({consistent.draw(rng) for _ in range(REDRAWN)})
        bits = CodeBits(codes, self.options.digits, self.options.length)
        return Possible(self.options, bits, bits.all, count)
