"""Safe Cracker reviewed: exactly for the 27-code game, by estimate beyond.

A guesser knows the codes still consistent with its answers (``games.review.codes``). A
position's value is the guesses still needed on average, this one included, over those codes.

- Shapes the solver plays exactly (at most ``EXACT_CODES`` codes: the 3-digit, 1-3 game):
  the value is exact, the solver guessing from there (uniformly among
  ``best_exact_guesses``), and the worst case is its ``guesses_needed``. The best guesses
  are the solver's own.
- Larger shapes: the codes still possible are counted exactly, and each guess splits them
  exactly up to ``LISTED_SPACE`` codes (by a uniform sample beyond). The guesses still needed
  after the split are estimated as ``1 + log(n) / log(length + 1)`` for ``n`` codes left,
  so the values are estimates. The best guesses are the solver's rule (Knuth's: the fewest
  codes left by the worst answer, then a guess that may be right, then the fewest on
  average) over the codes still possible (up to ``POOL``) and a few others; a guess as good
  as those by the rule's first criterion loses nothing, any other the estimated guesses it
  adds.

Luck is where the answer stands among the answers every code still possible would give,
each counted as the guesses still needed after it.
"""

from __future__ import annotations

import math
import random
from functools import cache

from games.base import Seat
from games.players.safe import EXACT_CODES, best_exact_guesses, guesses_needed
from games.review.codes import CodeBits, Possible, every_code, members
from games.review.judging import MOVES, Judged, Judgement, luck_among
from games.review.model import Knowledge
from games.review.phrasing import _, decimal, n_
from games.review.replay import Replay, Step
from games.safe import Code, Guess, Options, SafeState, code_text, exact_matches

POOL = 16
"""Codes still possible scored as guesses per move, in larger shapes."""
OTHERS = 4
"""Codes that cannot be right scored beside them (they may split the rest better)."""
LISTED = 10
"""The codes still possible are listed when there are at most this many."""


def estimated_guesses(codes: float, length: int) -> float:
    """An estimate of the guesses needed for ``codes`` codes still possible (0 for none)."""
    return 0.0 if codes < 1 else 1 + math.log(codes) / math.log(length + 1)


def judge(replay: Replay) -> Judgement:
    state: SafeState = replay.final
    options = state.options
    rng = random.Random(f"review:{replay.seed}")
    known: dict[Seat, Possible] = {}
    moves = []
    for step in replay.steps:
        if not isinstance(step.action, Guess):
            continue
        seat = step.seat
        records = step.after.guesses[seat]
        before = known.get(seat) or Possible.start(options, rng)
        known[seat] = before.after(records, rng)
        if options.digits**options.length <= EXACT_CODES:
            moves.append(_exact(step, before))
        else:
            moves.append(_estimated(step, before, rng))
    return Judgement(tuple(moves), MOVES)


# --- exact, for the shapes the solver plays exactly -----------------------------------------


@cache
def _classes(digits: int, length: int, guess: int) -> tuple[int, ...]:
    bits = every_code(digits, length)
    return tuple(bits.split(bits.codes[guess]))


def _answer(bits: CodeBits, guess: int, code: int) -> int:
    return exact_matches(bits.codes[guess], bits.codes[code])


@cache
def solver_guesses(digits: int, length: int, candidates: int, code: int) -> float:
    """The guesses the solver needs on average to crack ``code`` among ``candidates``."""
    bits = every_code(digits, length)
    choices = best_exact_guesses(digits, length, candidates)
    total = 0.0
    for guess in choices:
        total += 1
        if guess != code:
            left = candidates & _classes(digits, length, guess)[_answer(bits, guess, code)]
            total += solver_guesses(digits, length, left, code)
    return total / len(choices)


@cache
def position_value(digits: int, length: int, candidates: int) -> float:
    """The guesses the solver needs on average over the codes in ``candidates``."""
    codes = members(candidates)
    return sum(solver_guesses(digits, length, candidates, c) for c in codes) / len(codes)


@cache
def guess_value(digits: int, length: int, candidates: int, guess: int) -> float:
    """The guesses needed on average, this one included, when the next guess is ``guess``."""
    bits = every_code(digits, length)
    classes = _classes(digits, length, guess)
    total = 0.0
    for code in members(candidates):
        total += 1
        if code != guess:
            left = candidates & classes[_answer(bits, guess, code)]
            total += solver_guesses(digits, length, left, code)
    return total / candidates.bit_count()


def _exact(step: Step, possible: Possible) -> Judged:
    options = possible.options
    digits, length = options.digits, options.length
    bits = possible.bits
    mask = possible.mask
    assert isinstance(step.action, Guess)
    played = bits.codes.index(step.action.code)
    values = [guess_value(digits, length, mask, g) for g in range(len(bits.codes))]
    best = best_exact_guesses(digits, length, mask)
    top = min(values[g] for g in best)
    losses = [0.0 if g in best else max(0.0, value - top) for g, value in enumerate(values)]
    classes = _classes(digits, length, played)
    outcomes = [
        0.0 if c == played else position_value(digits, length, mask & classes[answer])
        for c in members(mask)
        if (answer := _answer(bits, played, c)) is not None
    ]
    exact = step.after.guesses[step.seat][-1].exact
    actual = 0.0 if exact == length else position_value(digits, length, mask & classes[exact])
    return _judged(
        step,
        possible,
        best=[bits.codes[g] for g in best],
        loss=losses[played],
        typical=sum(losses) / len(losses),
        values=(top, values[played]),
        expected=position_value(digits, length, mask),
        worst=guesses_needed(digits, length, mask),
        luck=luck_among(outcomes, actual, higher_is_better=False),
    )


# --- estimated, for larger shapes -----------------------------------------------------------


def _estimated(step: Step, possible: Possible, rng: random.Random) -> Judged:
    options = possible.options
    assert isinstance(step.action, Guess)
    played = step.action.code
    if possible.count == 1:
        return _known(step, possible)
    candidates = possible.pick(POOL, rng)
    pool = list(dict.fromkeys([played, *candidates, *_random_codes(options, OTHERS, rng)]))
    splits = {guess: _split(possible, guess) for guess in pool}
    values = {guess: _estimate(possible, parts) for guess, parts in splits.items()}
    consistent = set(possible.codes()) if possible.followed <= 8 * POOL else set(candidates)

    def knuth(guess: Code) -> tuple[int, bool, int]:
        parts = splits[guess]
        return (max(parts), guess not in consistent, sum(n * n for n in parts))

    least = min(knuth(guess) for guess in pool)
    best = [guess for guess in pool if knuth(guess) == least]
    top = min(values[guess] for guess in best)
    # A guess leaving no more codes in its worst answer than the best found is as good by the
    # solver's own rule: the pool is a sample of the solver's, so only worse ones lose.
    losses = {g: 0.0 if knuth(g)[0] <= least[0] else max(0.0, values[g] - top) for g in pool}
    parts = splits[played]
    length = options.length
    outcomes = [
        0.0 if exact == length else estimated_guesses(n * possible.scale, length)
        for exact, n in enumerate(parts)
    ]
    answer = step.after.guesses[step.seat][-1].exact
    luck = luck_among(
        [outcome for outcome, n in zip(outcomes, parts, strict=True) if n],
        outcomes[answer] if parts[answer] else estimated_guesses(possible.scale, length),
        higher_is_better=False,
        weights=[n for n in parts if n],
    )
    return _judged(
        step,
        possible,
        best=sorted(best),
        loss=losses[played],
        typical=sum(losses.values()) / len(losses),
        values=(top, values[played]),
        expected=top,
        worst=None,
        luck=luck,
    )


def _known(step: Step, possible: Possible) -> Judged:
    """A guess once the code is known: guessing it is best, anything else loses a guess."""
    (code,) = possible.codes()
    assert isinstance(step.action, Guess)
    right = step.action.code == code
    return _judged(
        step,
        possible,
        best=[code],
        loss=0.0 if right else 1.0,
        typical=1.0 - 1.0 / possible.options.digits**possible.options.length,
        values=(1.0, 1.0 if right else 2.0),
        expected=1.0,
        worst=None,
        luck=None,
    )


def _random_codes(options: Options, count: int, rng: random.Random) -> list[Code]:
    return [
        tuple(rng.randint(1, options.digits) for _ in range(options.length)) for _ in range(count)
    ]


def _split(possible: Possible, guess: Code) -> list[int]:
    """How many followed codes answer ``guess`` with 0, 1, ... exact matches."""
    return [(possible.mask & part).bit_count() for part in possible.bits.split(guess)]


def _estimate(possible: Possible, parts: list[int]) -> float:
    """The guesses needed on average, this one included, after a guess splitting ``parts``."""
    length = possible.options.length
    followed = possible.followed
    return 1 + sum(
        n / followed * estimated_guesses(n * possible.scale, length) for n in parts[:length] if n
    )


# --- both -----------------------------------------------------------------------------------


def _judged(
    step: Step,
    possible: Possible,
    *,
    best: list[Code],
    loss: float,
    typical: float,
    values: tuple[float, float],
    expected: float,
    worst: int | None,
    luck: float | None,
) -> Judged:
    count = possible.count
    listed = tuple(code_text(code) for code in possible.codes()) if count <= LISTED else ()
    shown = f": {', '.join(listed)}" if listed else ""
    assert isinstance(step.action, Guess)
    return Judged(
        seat=step.seat,
        ask=step.ask,
        action=step.text,
        move=_("guess {code}", code=code_text(step.action.code)),
        knowledge=Knowledge(
            text=_knowledge_words(count, shown, expected, worst),
            possible=count,
            listed=listed,
            expected=expected,
            worst=worst,
        ),
        best=tuple(_("guess {code}", code=code_text(code)) for code in best),
        loss=loss,
        typical_loss=typical,
        before=values[0],
        after=values[1],
        exact=worst is not None,
        luck=luck,
    )


def _knowledge_words(count: int, shown: str, expected: float, worst: int | None) -> str:
    """What the guesser knew: the codes still possible and how fast best play cracks it."""
    if worst is None:
        return n_(
            "{n} code still possible{listed}; best play cracks it in {expected} guesses "
            "on average (estimated).",
            "{n} codes still possible{listed}; best play cracks it in {expected} guesses "
            "on average (estimated).",
            count,
            listed=shown,
            expected=decimal(expected, 2),
        )
    return n_(
        "{n} code still possible{listed}; best play cracks it in at most {worst}, "
        "{expected} guesses on average.",
        "{n} codes still possible{listed}; best play cracks it in at most {worst}, "
        "{expected} guesses on average.",
        count,
        listed=shown,
        expected=decimal(expected, 2),
        worst=worst,
    )
