"""What every review promises, whatever the game: scores in range, marks that follow the
losses, a round trip through JSON, and nothing used but the match's own log."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.review import VARIANTS
from games.base import Outcome, Reason
from games.review import FORMAT_VERSION, Mark, Review, review
from games.review.judging import CHANCE, MOVES, OUTCOME
from tests.games.review_helpers import finished_match, match_log, turn_moves

SCALES = {scale.unit: scale for scale in (MOVES, OUTCOME, CHANCE)}
variants = st.sampled_from(VARIANTS)
seeds = st.integers(min_value=0, max_value=2**20)


@settings(max_examples=60, deadline=None)
@given(variants, seeds)
def test_a_review_has_a_move_per_turn_scores_from_0_to_99_and_survives_json(
    variant: tuple[str, dict[str, Any]], seed: int
) -> None:
    name, options = variant
    log, ended = finished_match(name, options, seed)
    done = review(name, options, seed, log, outcome=ended)
    assert len(done.moves) == turn_moves(log)
    assert [move.number for move in done.moves] == list(range(1, len(done.moves) + 1))
    for player in done.players:
        for score in (player.skill, player.luck):
            assert score is None or 0 <= score <= 99
        assert (player.skill is None) == (player.skill_note is not None)
        assert (player.luck is None) == (player.luck_note is not None)
        assert player.moves == sum(1 for m in done.moves if m.seat == player.seat)
        assert sum(player.count(mark) for mark in Mark) == player.moves
    for move in done.moves:
        assert move.loss >= 0 and move.typical_loss >= 0
        assert move.luck is None or 0 <= move.luck <= 1
        assert move.best_count >= 1 and len(move.best) == min(move.best_count, 8)
        assert move.mark is SCALES[done.unit].mark(move.loss)
        assert move.knowledge.text
    assert done.exact == all(move.exact for move in done.moves)
    stored = json.loads(json.dumps(done.dump()))
    assert stored["version"] == FORMAT_VERSION
    assert Review.load(stored) == done


def test_a_review_of_another_format_is_refused() -> None:
    stored = review("crystal", {}, 1, finished_match("crystal", {}, 1)[0]).dump()
    with pytest.raises(ValueError, match="format"):
        Review.load({**stored, "version": FORMAT_VERSION + 1})


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v[0]}{v[1]}")
def test_the_built_in_player_at_its_best_plays_only_best_moves_where_exact(
    variant: tuple[str, dict[str, Any]],
) -> None:
    name, options = variant
    for seed in range(4):
        log, ended = finished_match(name, options, seed, ("hard", "hard"))
        done = review(name, options, seed, log, outcome=ended)
        for player in done.players:
            if player.exact and player.skill is not None:
                assert player.skill == 99, (seed, player)
            if player.exact:
                assert player.count(Mark.BEST) == player.moves


@pytest.mark.parametrize("options", [{}, {"size": 4}])
def test_games_with_nothing_hidden_have_no_luck_score(options: dict[str, Any]) -> None:
    for name in ("crystal", "claim"):
        done = review(
            name,
            options if name == "claim" else {},
            5,
            match_log(name, {} if name == "crystal" else options, 5),
        )
        for player in done.players:
            assert player.luck is None and player.luck_note
        assert all(move.luck is None for move in done.moves)


def test_hidden_claim_has_a_luck_score_and_no_skill_to_show() -> None:
    options = {"hidden": True}
    done = review("claim", options, 9, match_log("claim", options, 9))
    for player in done.players:
        assert player.luck is not None
        assert player.skill is None and player.skill_note


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v[0]}{v[1]}")
def test_a_review_is_the_same_each_time_and_leaves_global_random_alone(
    variant: tuple[str, dict[str, Any]],
) -> None:
    name, options = variant
    log, ended = finished_match(name, options, 3)
    random.seed(11)
    expected = random.random()
    random.seed(11)
    first = review(name, options, 3, log, outcome=ended)
    assert random.random() == expected
    stored = [(seat, ask, text) for seat, ask, text in json.loads(json.dumps(log))]
    assert review(name, dict(options), 3, stored, outcome=ended) == first


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v[0]}{v[1]}")
def test_a_match_ended_by_resignation_is_reviewed_up_to_it(
    variant: tuple[str, dict[str, Any]],
) -> None:
    name, options = variant
    full, _ = finished_match(name, options, 8)
    log = full[: max(1, len(full) // 2)]
    if len(log) == len(full):
        pytest.skip("a one-action match")
    resigned = Outcome(1, Reason.RESIGN)
    done = review(name, options, 8, log, outcome=resigned)
    assert done.outcome == resigned
    assert len(done.moves) == turn_moves(log)
    with pytest.raises(ValueError, match="has not ended"):
        review(name, options, 8, log)


def test_an_outcome_the_rules_contradict_is_refused() -> None:
    log, _ = finished_match("crystal", {}, 2)
    with pytest.raises(ValueError, match="not"):
        review("crystal", {}, 2, log, outcome=Outcome(None, Reason.TIMEOUT))


def test_an_action_out_of_turn_is_refused() -> None:
    log, _ = finished_match("crystal", {}, 2)
    seat, ask, text = log[0]
    with pytest.raises(ValueError, match="was not asked"):
        review("crystal", {}, 2, [(1 - seat, ask, text), *log[1:]])


def test_an_unknown_game_is_refused_with_the_valid_names() -> None:
    with pytest.raises(KeyError, match="crown"):
        review("chess", {}, 1, [])
