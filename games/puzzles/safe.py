"""Safe Cracker puzzles, in the shapes the review judges exactly (the 27-code game): the guess
that finds the code in the fewest guesses.

Values are the review's (``games.review.safe``): a guess's value is the guesses still needed
on average, this one included, over the codes the guesser's own answers leave (nothing else
is known of the code), the solver guessing from there; the best guesses are the solver's,
and any other loses how many more guesses it needs. Larger shapes are judged by estimate, so
they give no puzzles. A position is a puzzle when one guess alone is best and every other
loses at least ``MARGIN``.
"""

from __future__ import annotations

import random
from functools import lru_cache

from games.base import AnyGame, Ask, Seat
from games.players.safe import EXACT_CODES, best_exact_guesses
from games.puzzles.choosing import Position, Scored
from games.review.codes import Possible
from games.review.judging import MOVES
from games.review.phrasing import _, decimal
from games.review.safe import guess_value
from games.safe import Guess, GuessRecord, Options, SafeState, code_text, exact_matches

MARGIN = 0.5
"""Every other guess needs at least half a guess more on average."""


def position(game: AnyGame, state: SafeState, seat: Seat, ask: Ask) -> Position | None:
    """Every guess ``seat`` may make in ``state``, scored from its own answers so far."""
    options = state.options
    digits, length = options.digits, options.length
    if ask is not Ask.ACTION or digits**length > EXACT_CODES:
        return None
    records = state.guesses[seat]
    possible = _possible(options, records)
    codes = possible.bits.codes
    values = [guess_value(digits, length, possible.mask, g) for g in range(len(codes))]
    best = best_exact_guesses(digits, length, possible.mask)
    top = min(values[g] for g in best)
    return Position(
        question=_("Which guess finds the code in the fewest guesses?"),
        unit=MOVES.unit,
        moves=tuple(
            Scored(
                str(Guess(code)),
                values[g],
                0.0 if g in best else max(0.0, values[g] - top),
                code,
                tempting=sum(exact_matches(r.code, code) == r.exact for r in records),
            )
            for g, code in enumerate(codes)
        ),
        words=_words,
        margin=MARGIN,
        knowledge=possible.mask,
    )


@lru_cache(maxsize=1024)
def _possible(options: Options, records: tuple[GuessRecord, ...]) -> Possible:
    """The codes ``records`` (a guesser's answers) leave, from those one answer fewer leave."""
    rng = random.Random(0)  # unused: a shape this small is followed code by code
    if not records:
        return Possible.start(options, rng)
    return _possible(options, records[:-1]).after(records, rng)


def _words(move: Scored) -> tuple[str, str]:
    average = _("{average} guesses on average", average=decimal(move.value, 2))
    return _("guess {code}", code=code_text(move.detail)), average
