"""One wave of the quick-pair queue, as a pure function: examples and properties."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.service.queue_pairing import (
    GAP_PER_SECOND,
    GAP_START,
    Waiting,
    allowed_gap,
    bot_level,
    pair_wave,
)


def test_the_gap_starts_small_and_widens_with_the_wait() -> None:
    assert allowed_gap(0) == GAP_START == 100
    assert allowed_gap(5) == GAP_START + 5 * GAP_PER_SECOND == 400
    assert allowed_gap(-1) == GAP_START


def test_six_members_are_paired_with_their_rating_neighbours() -> None:
    waiting = [
        Waiting(1, 1210, 0),
        Waiting(2, 1500, 0),
        Waiting(3, 1830, 0),
        Waiting(4, 1250, 0),
        Waiting(5, 1790, 0),
        Waiting(6, 1480, 0),
    ]
    assert pair_wave(waiting) == [(1, 4), (6, 2), (5, 3)]


def test_members_too_far_apart_wait_until_their_gap_covers_them() -> None:
    assert pair_wave([Waiting(1, 1300, 0), Waiting(2, 1500, 0)]) == []
    assert pair_wave([Waiting(1, 1300, 2), Waiting(2, 1500, 0)]) == [(1, 2)]


def test_an_outlier_is_left_with_its_nearest_neighbour_not_across_the_server() -> None:
    # 2100 is alone: the wave keeps 1900 waiting with it, so the next wave pairs them close.
    waiting = [Waiting(i, r, 0) for i, r in enumerate([1000, 1050, 1500, 1520, 1900, 2100])]
    assert pair_wave(waiting) == [(0, 1), (2, 3)]
    later = [Waiting(4, 1900, 5), Waiting(5, 2100, 5)]
    assert pair_wave(later) == [(4, 5)]


def test_the_same_two_are_not_paired_again_while_others_wait() -> None:
    waiting = [Waiting(1, 1500, 0, last_opponent=2), Waiting(2, 1500, 0, last_opponent=1)]
    assert pair_wave(waiting) == [(1, 2)]  # nobody else waits
    waiting.append(Waiting(3, 1510, 0))
    assert pair_wave(waiting) in ([(1, 3)], [(2, 3)])


def test_the_bot_level_follows_the_rating() -> None:
    assert [bot_level(r) for r in (1100, 1399, 1400, 1500, 1649, 1650, 2000)] == [
        "easy", "easy", "normal", "normal", "normal", "hard", "hard",
    ]  # fmt: skip


members = st.lists(
    st.tuples(
        st.integers(700, 2300),
        st.floats(0, 30, allow_nan=False),
        st.none() | st.integers(0, 30),
    ),
    max_size=30,
).map(lambda rows: [Waiting(i, float(r), w, last) for i, (r, w, last) in enumerate(rows)])


@settings(max_examples=300, deadline=None)
@given(members, st.randoms(use_true_random=False))
def test_a_wave_pairs_neighbours_within_their_gap_once_each(
    waiting: list[Waiting], rng: object
) -> None:
    pairs = pair_wave(waiting)
    by_id = {m.user_id: m for m in waiting}
    paired = [user for pair in pairs for user in pair]
    assert len(paired) == len(set(paired))
    for low, high in pairs:
        a, b = by_id[low], by_id[high]
        assert a.rating <= b.rating
        assert b.rating - a.rating <= allowed_gap(max(a.waited, b.waited))
        if len(waiting) > 2:
            assert a.last_opponent != high and b.last_opponent != low
        between = [m for m in waiting if a.rating < m.rating < b.rating]
        assert between == []  # rating neighbours
    shuffled = list(waiting)
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    assert pair_wave(shuffled) == pairs


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(700, 2300), max_size=40))
def test_when_every_gap_covers_the_spread_all_but_one_are_paired(ratings: list[int]) -> None:
    waiting = [Waiting(i, float(r), 30.0) for i, r in enumerate(ratings)]
    assert len(pair_wave(waiting)) == len(ratings) // 2


def test_a_provisional_member_is_paired_across_their_deviation() -> None:
    settled = [Waiting(1, 1500, 0, deviation=60), Waiting(2, 1800, 0, deviation=60)]
    newcomer = [Waiting(1, 1500, 0, deviation=60), Waiting(2, 1800, 0, deviation=250)]

    assert pair_wave(settled) == []  # 300 apart: the gap of 100 holds them
    assert pair_wave(newcomer) == [(1, 2)]  # 1800 ± 250 might well be 1500
    assert pair_wave([Waiting(1, 1500, 0), Waiting(2, 2200, 0, deviation=500)]) == []
