"""Glicko-2 ratings, as Lichess uses them: start 1500 ± 500, volatility 0.09, τ 0.75.

Follows Glickman's "Example of the Glicko-2 system" (2013), with the Illinois algorithm for the
new volatility. Each match is one rating period: both players are rated against each other's
rating from before the game. Between matches the deviation grows as Glicko-2's periods without
games make it grow, in fractional periods of time as Lichess counts them
(``RATING_PERIODS_PER_DAY``): ``as_of`` gives a rating at a moment, ``listing_of`` classes it
for a leaderboard.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

SCALE = 173.7178
"""Glicko-2's conversion factor between the displayed scale and its internal one (400 / ln 10)."""

BASE_RATING = 1500.0
MAX_DEVIATION = 500.0
PROVISIONAL_DEVIATION = 110.0
"""A rating is provisional (shown ``1500?``) while its deviation is this or more."""

TAU = 0.75
"""How much the volatility may change in one period."""

CONVERGENCE = 1e-6

RATING_PERIODS_PER_DAY = 0.21436
"""Glicko-2 rating periods per day away, as Lichess counts them (lila's ``ratingPeriodsPerDay``,
chosen there so a typical deviation grows from 60 to 110 in a year without games)."""

INACTIVE_AFTER = timedelta(days=30)
"""A member without a rated match of a game for this long is listed apart as inactive."""

_DAY_SECONDS = 86_400.0


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating on the displayed scale: rating, deviation (RD) and volatility."""

    rating: float
    deviation: float
    volatility: float

    @property
    def provisional(self) -> bool:
        """Whether the rating is still too uncertain to be taken at face value."""
        return self.deviation >= PROVISIONAL_DEVIATION


DEFAULT = Rating(BASE_RATING, MAX_DEVIATION, 0.09)
"""Everybody's rating before their first rated game."""


def rate(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after one period with these ``(opponent, score)`` results.

    A score is 1 for a win, 0.5 for a draw and 0 for a loss. With no results only the deviation
    grows. The deviation never exceeds ``MAX_DEVIATION``.
    """
    for _, score in results:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a score is between 0 and 1, not {score}")
    mu = (player.rating - BASE_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        return _from_internal(mu, math.sqrt(phi**2 + sigma**2), sigma)

    inverse_variance = 0.0
    improvement = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - BASE_RATING) / SCALE
        g_j = _g(opponent.deviation / SCALE)
        expected = 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))
        inverse_variance += g_j**2 * expected * (1.0 - expected)
        improvement += g_j * (score - expected)
    variance = 1.0 / inverse_variance
    delta = variance * improvement

    new_sigma = _new_volatility(phi, sigma, variance, delta, tau)
    phi_star = math.sqrt(phi**2 + new_sigma**2)
    new_phi = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / variance)
    new_mu = mu + new_phi**2 * improvement
    return _from_internal(new_mu, new_phi, new_sigma)


def rate_match(a: Rating, b: Rating, score_a: float) -> tuple[Rating, Rating]:
    """Both players' ratings after one game; ``score_a`` is a's score (1, 0.5 or 0)."""
    return rate(a, [(b, score_a)]), rate(b, [(a, 1.0 - score_a)])


def display(r: Rating) -> str:
    """The rating as shown to members: ``"1500?"`` while provisional, else ``"1623"``."""
    shown = str(round(r.rating))
    return f"{shown}?" if r.provisional else shown


def periods_between(since: datetime, moment: datetime) -> float:
    """The rating periods (fractional) from ``since`` to ``moment``; none when ``moment`` is
    not later."""
    seconds = (moment - since).total_seconds()
    return max(seconds, 0.0) / _DAY_SECONDS * RATING_PERIODS_PER_DAY


def grown(rating: Rating, periods: float) -> Rating:
    """The rating after ``periods`` rating periods without games: Glicko-2's
    ``phi' = sqrt(phi^2 + n * sigma^2)``, capped at ``MAX_DEVIATION``; rating and volatility
    stay."""
    phi = rating.deviation / SCALE
    phi_now = math.sqrt(phi**2 + max(periods, 0.0) * rating.volatility**2)
    return Rating(rating.rating, min(SCALE * phi_now, MAX_DEVIATION), rating.volatility)


def as_of(rating: Rating, since: datetime | None, moment: datetime) -> Rating:
    """A stored rating as it stands at ``moment``, its deviation grown since ``since`` (the
    moment the stored deviation was reached; ``None`` for a rating never stored, which stays)."""
    if since is None:
        return rating
    return grown(rating, periods_between(since, moment))


def provisional_from(rating: Rating, since: datetime) -> datetime:
    """The moment the stored rating, growing from ``since``, becomes provisional (``since``
    itself when it already is; a far future moment when its volatility is zero)."""
    if rating.provisional:
        return since
    gap = (PROVISIONAL_DEVIATION / SCALE) ** 2 - (rating.deviation / SCALE) ** 2
    per_period = rating.volatility**2
    if per_period <= 0.0:
        return datetime.max.replace(tzinfo=since.tzinfo)
    days = gap / per_period / RATING_PERIODS_PER_DAY
    try:
        return since + timedelta(days=days)
    except OverflowError:
        return datetime.max.replace(tzinfo=since.tzinfo)


class Listing(StrEnum):
    """Where a member is listed on a leaderboard."""

    RANKED = "ranked"
    PROVISIONAL = "provisional"
    """Active, but the deviation (as grown) is ``PROVISIONAL_DEVIATION`` or more."""
    INACTIVE = "inactive"
    """No rated match of the game for ``INACTIVE_AFTER``."""


def ranked_until(rating: Rating, since: datetime, rated_at: datetime) -> datetime:
    """The moment a member stops being ranked, unless they play again: their deviation growing
    from ``since`` turns provisional, or ``INACTIVE_AFTER`` passes since ``rated_at``, whichever
    comes first. Kept on the record, so a leaderboard asks only ``ranked_until > now``."""
    return min(provisional_from(rating, since), rated_at + INACTIVE_AFTER)


def listing_of(
    rating: Rating, since: datetime | None, rated_at: datetime | None, moment: datetime
) -> Listing:
    """How a member's rating is listed at ``moment``: inactive without a rated match for
    ``INACTIVE_AFTER`` (or ever), else provisional while the grown deviation is 110 or more,
    else ranked."""
    if rated_at is None or moment - rated_at >= INACTIVE_AFTER:
        return Listing.INACTIVE
    if as_of(rating, since, moment).provisional:
        return Listing.PROVISIONAL
    return Listing.RANKED


def _g(phi: float) -> float:
    """How much a result counts, given the opponent's uncertainty."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi**2 / math.pi**2)


def _new_volatility(phi: float, sigma: float, variance: float, delta: float, tau: float) -> float:
    """Step 5 of the paper: solve f(x) = 0 for x = ln(sigma'^2) by the Illinois algorithm."""
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (
            ex * (delta**2 - phi**2 - variance - ex) / (2.0 * (phi**2 + variance + ex) ** 2)
            - (x - a) / tau**2
        )

    # The paper's A and B bracket the root; C is the regula falsi step, halving f(A) when the
    # bracket's same end would move twice (the Illinois change that guarantees convergence).
    x_a = a
    if delta**2 > phi**2 + variance:
        x_b = math.log(delta**2 - phi**2 - variance)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        x_b = a - k * tau
    f_a, f_b = f(x_a), f(x_b)
    while abs(x_b - x_a) > CONVERGENCE:
        x_c = x_a + (x_a - x_b) * f_a / (f_b - f_a)
        f_c = f(x_c)
        if f_c * f_b <= 0:
            x_a, f_a = x_b, f_b
        else:
            f_a /= 2.0
        x_b, f_b = x_c, f_c
    return math.exp(x_a / 2.0)


def _from_internal(mu: float, phi: float, sigma: float) -> Rating:
    return Rating(
        rating=BASE_RATING + SCALE * mu,
        deviation=min(SCALE * phi, MAX_DEVIATION),
        volatility=sigma,
    )
