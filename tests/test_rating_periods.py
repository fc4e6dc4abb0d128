"""Deviation growing with time away, and how a rating is listed: ranked, provisional, inactive."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.service.ratings import (
    INACTIVE_AFTER,
    MAX_DEVIATION,
    RATING_PERIODS_PER_DAY,
    SCALE,
    Listing,
    Rating,
    as_of,
    grown,
    listing_of,
    periods_between,
    provisional_from,
    ranked_until,
    rate,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)

ratings = st.builds(
    Rating,
    rating=st.floats(800, 2800),
    deviation=st.floats(30, MAX_DEVIATION),
    volatility=st.floats(0.03, 0.12),
)
days = st.floats(0, 2000)


def test_one_whole_period_grows_as_glicko2_rates_a_period_without_games() -> None:
    idle = Rating(1700, 60, 0.06)

    assert grown(idle, 1.0) == pytest.approx(rate(idle, []))


def test_a_day_is_a_fraction_of_a_period_as_lichess_counts_it() -> None:
    assert periods_between(T0, T0 + timedelta(days=1)) == pytest.approx(RATING_PERIODS_PER_DAY)
    assert periods_between(T0, T0 + timedelta(days=10)) == pytest.approx(2.1436)
    assert periods_between(T0, T0 - timedelta(days=3)) == 0.0


def test_a_typical_deviation_becomes_provisional_after_about_a_year_away() -> None:
    # lila chose 0.21436 periods a day so that a deviation of 60 reaches 110 in a year.
    typical = Rating(1800, 60, 0.06)

    year_later = as_of(typical, T0, T0 + timedelta(days=365))

    assert year_later.deviation == pytest.approx(110, abs=3)
    assert year_later.rating == typical.rating


def test_growth_follows_the_formula_and_stops_at_the_cap() -> None:
    r = Rating(1500, 80, 0.09)
    n = periods_between(T0, T0 + timedelta(days=40))

    expected = SCALE * math.sqrt((80 / SCALE) ** 2 + n * 0.09**2)

    assert as_of(r, T0, T0 + timedelta(days=40)).deviation == pytest.approx(expected)
    assert as_of(r, T0, T0 + timedelta(days=100_000)).deviation == MAX_DEVIATION


def test_a_rating_never_stored_does_not_grow() -> None:
    r = Rating(1500, 500, 0.09)

    assert as_of(r, None, T0) == r


@settings(max_examples=200, deadline=None)
@given(r=ratings, first=days, more=days)
def test_growth_never_shrinks_and_composes(r: Rating, first: float, more: float) -> None:
    a = grown(r, first)
    b = grown(a, more)

    assert r.deviation <= a.deviation + 1e-9 <= b.deviation + 2e-9
    assert b.deviation <= MAX_DEVIATION
    if b.deviation < MAX_DEVIATION:
        assert b.deviation == pytest.approx(grown(r, first + more).deviation)
    assert (b.rating, b.volatility) == (r.rating, r.volatility)


@settings(max_examples=200, deadline=None)
@given(r=ratings, away=days)
def test_the_provisional_moment_is_where_the_grown_deviation_reaches_110(
    r: Rating, away: float
) -> None:
    turn = provisional_from(r, T0)
    moment = T0 + timedelta(days=away)
    if abs((moment - turn).total_seconds()) < 1:
        return  # the boundary itself, to the rounding of a float
    assert as_of(r, T0, moment).provisional == (moment >= turn)


@settings(max_examples=200, deadline=None)
@given(r=ratings, played_days_ago=st.floats(0, 400), grown_days_ago=st.floats(0, 400))
def test_ranked_until_agrees_with_the_standing(
    r: Rating, played_days_ago: float, grown_days_ago: float
) -> None:
    now = T0 + timedelta(days=800)
    rated_at = now - timedelta(days=played_days_ago)
    since = now - timedelta(days=grown_days_ago)
    until = ranked_until(r, since, rated_at)
    if abs((now - until).total_seconds()) < 1:
        return
    assert (listing_of(r, since, rated_at, now) is Listing.RANKED) == (now < until)


def test_standings_ranked_provisional_inactive() -> None:
    settled = Rating(1600, 60, 0.06)
    one_win = Rating(1742, 290, 0.09)

    assert listing_of(settled, T0, T0, T0 + timedelta(days=1)) is Listing.RANKED
    assert listing_of(one_win, T0, T0, T0 + timedelta(days=1)) is Listing.PROVISIONAL
    assert listing_of(settled, T0, T0, T0 + INACTIVE_AFTER) is Listing.INACTIVE
    assert listing_of(settled, T0, None, T0) is Listing.INACTIVE


def test_a_settled_rating_turns_provisional_only_after_long_absence() -> None:
    near_the_line = Rating(1600, 105, 0.09)

    turn = provisional_from(near_the_line, T0)

    assert T0 < turn < T0 + INACTIVE_AFTER
    assert ranked_until(near_the_line, T0, T0) == turn
    assert ranked_until(Rating(1600, 50, 0.06), T0, T0) == T0 + INACTIVE_AFTER
    assert provisional_from(Rating(1600, 200, 0.09), T0) == T0
