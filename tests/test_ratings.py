"""Glicko-2: the worked example from the paper, draws, symmetry, the cap, the provisional flag."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.service.ratings import (
    DEFAULT,
    MAX_DEVIATION,
    Rating,
    display,
    rate,
    rate_match,
)

ratings = st.builds(
    Rating,
    rating=st.floats(800, 2800),
    deviation=st.floats(30, MAX_DEVIATION),
    volatility=st.floats(0.03, 0.12),
)
scores = st.sampled_from([0.0, 0.5, 1.0])


def test_glickmans_worked_example() -> None:
    # "Example of the Glicko-2 system" (Glickman, 2013), section 3, with tau = 0.5.
    player = Rating(1500, 200, 0.06)
    results = [
        (Rating(1400, 30, 0.06), 1.0),
        (Rating(1550, 100, 0.06), 0.0),
        (Rating(1700, 300, 0.06), 0.0),
    ]

    after = rate(player, results, tau=0.5)

    # The paper rounds its intermediate steps, hence the tolerances.
    assert after.rating == pytest.approx(1464.06, abs=0.05)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)


def test_first_game_between_newcomers_moves_both_by_the_same_amount() -> None:
    winner, loser = rate_match(DEFAULT, DEFAULT, 1.0)

    assert winner.rating > 1700
    assert winner.rating - 1500 == pytest.approx(1500 - loser.rating)
    assert winner.deviation == pytest.approx(loser.deviation)
    assert winner.deviation < DEFAULT.deviation


def test_a_draw_between_equals_keeps_ratings_and_shrinks_deviations() -> None:
    a, b = rate_match(Rating(1620, 80, 0.06), Rating(1620, 80, 0.06), 0.5)

    assert a.rating == pytest.approx(1620)
    assert b.rating == pytest.approx(1620)
    assert a.deviation < 80


def test_a_draw_moves_the_favourite_down_and_the_underdog_up() -> None:
    favourite, underdog = rate_match(Rating(1900, 60, 0.06), Rating(1500, 60, 0.06), 0.5)

    assert favourite.rating < 1900
    assert underdog.rating > 1500


def test_an_upset_is_worth_more_than_the_expected_win() -> None:
    strong, weak = Rating(1900, 80, 0.06), Rating(1500, 80, 0.06)

    expected_win, _ = rate_match(strong, weak, 1.0)
    upset, _ = rate_match(weak, strong, 1.0)

    assert upset.rating - weak.rating > expected_win.rating - strong.rating


@settings(max_examples=150, deadline=None)
@given(a=ratings, b=ratings, score=scores)
def test_rate_match_is_symmetric(a: Rating, b: Rating, score: float) -> None:
    new_a, new_b = rate_match(a, b, score)
    mirrored_b, mirrored_a = rate_match(b, a, 1.0 - score)

    assert new_a == mirrored_a
    assert new_b == mirrored_b


@settings(max_examples=150, deadline=None)
@given(a=ratings, b=ratings, score=scores)
def test_results_move_ratings_the_right_way(a: Rating, b: Rating, score: float) -> None:
    new_a, new_b = rate_match(a, b, score)

    if score == 1.0:
        assert new_a.rating > a.rating and new_b.rating < b.rating
    elif score == 0.0:
        assert new_a.rating < a.rating and new_b.rating > b.rating
    for new in (new_a, new_b):
        assert 0 < new.deviation <= MAX_DEVIATION
        assert new.volatility > 0


def test_deviation_is_capped_at_the_starting_value() -> None:
    uncertain = Rating(1500, MAX_DEVIATION, 0.2)

    assert rate(uncertain, []).deviation == MAX_DEVIATION
    assert rate(uncertain, [(Rating(1500, 400, 0.09), 0.5)]).deviation <= MAX_DEVIATION


def test_a_period_without_games_only_widens_the_deviation() -> None:
    idle = Rating(1700, 60, 0.06)

    after = rate(idle, [])

    assert after.rating == idle.rating
    assert after.volatility == idle.volatility
    assert after.deviation == pytest.approx((60**2 + (0.06 * 173.7178) ** 2) ** 0.5)


def test_scores_outside_zero_to_one_are_refused() -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        rate(DEFAULT, [(DEFAULT, 2.0)])


def test_provisional_while_deviation_is_110_or_more() -> None:
    assert DEFAULT.provisional
    assert Rating(1500, 110, 0.09).provisional
    assert not Rating(1500, 109.9, 0.09).provisional


def test_display_marks_provisional_ratings() -> None:
    assert display(DEFAULT) == "1500?"
    assert display(Rating(1623.4, 110, 0.06)) == "1623?"
    assert display(Rating(1623.6, 60, 0.06)) == "1624"


def test_steady_play_makes_a_rating_established() -> None:
    player, opponent = DEFAULT, Rating(1500, 60, 0.06)
    games = 0
    while player.provisional:
        player, _ = rate_match(player, opponent, 0.5)
        games += 1

    assert 2 <= games <= 20
    assert display(player) == str(round(player.rating))
