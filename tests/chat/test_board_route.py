"""The board route: every branch of ``plan``, and a valid plan for every combination of facts."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.chat.boards.route import BY_TOKEN, POSTING, RIDING, Facts, Plan, Route, plan

BOARD = 900

PRESS = Facts(BOARD, public=True, on_board=True, response_free=True)
"""A button pressed on the board, its response still free."""
SLASH = Facts(BOARD, public=True, response_free=True)
"""A slash command in the board's channel."""
ELSEWHERE = Facts(BOARD)
"""No interaction of the update's own in the channel: a DM, a deadline, another channel."""


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        # No board yet (or it was deleted): a new one, in the response where there is one.
        (replace(SLASH, board=None), Plan(Route.POST_IN_RESPONSE)),
        (replace(ELSEWHERE, board=None), Plan(Route.POST_BY_BOT)),
        (replace(SLASH, board=None, response_free=False), Plan(Route.POST_BY_BOT)),
        (replace(ELSEWHERE, board=None, budget=True, handle=True), Plan(Route.POST_BY_BOT)),
        # A press on the board edits it in the press's own response.
        (PRESS, Plan(Route.EDIT_IN_RESPONSE, BOARD)),
        (replace(PRESS, handle=True), Plan(Route.EDIT_IN_RESPONSE, BOARD)),
        # ... unless the response is used already: then the token or the bot token edits it.
        (replace(PRESS, response_free=False), Plan(Route.EDIT_BY_BOT, BOARD)),
        (replace(PRESS, response_free=False, handle=True), Plan(Route.EDIT_BY_HANDLE, BOARD)),
        # A slash command's response is not the board: the board is edited by token.
        (SLASH, Plan(Route.EDIT_BY_BOT, BOARD)),
        (replace(SLASH, handle=True), Plan(Route.EDIT_BY_HANDLE, BOARD)),
        (replace(ELSEWHERE, handle=True), Plan(Route.EDIT_BY_HANDLE, BOARD)),
        (ELSEWHERE, Plan(Route.EDIT_BY_BOT, BOARD)),
        # A buried board comes back to the bottom: in the response where there is one ...
        (replace(PRESS, buried=True), Plan(Route.REPOST_IN_RESPONSE, BOARD)),
        (replace(SLASH, buried=True, handle=True), Plan(Route.REPOST_IN_RESPONSE, BOARD)),
        # ... else by bot token within the channel's budget ...
        (replace(ELSEWHERE, buried=True, budget=True), Plan(Route.REPOST_BY_BOT, BOARD)),
        (
            replace(SLASH, buried=True, budget=True, response_free=False),
            Plan(Route.REPOST_BY_BOT, BOARD),
        ),
        # ... and with the budget spent it is edited in place, for a later update to re-post.
        (replace(ELSEWHERE, buried=True), Plan(Route.EDIT_BY_BOT, BOARD)),
        (replace(ELSEWHERE, buried=True, handle=True), Plan(Route.EDIT_BY_HANDLE, BOARD)),
        # A board re-posted by the previous update is edited in place this time.
        (replace(PRESS, buried=True, reposted=True), Plan(Route.EDIT_IN_RESPONSE, BOARD)),
        (
            replace(ELSEWHERE, buried=True, budget=True, reposted=True),
            Plan(Route.EDIT_BY_BOT, BOARD),
        ),
        # A budget unused by a board that is not buried.
        (replace(ELSEWHERE, budget=True), Plan(Route.EDIT_BY_BOT, BOARD)),
    ],
)
def test_each_case_has_its_route(facts: Facts, expected: Plan) -> None:
    assert plan(facts) == expected


def test_the_plan_says_what_it_does() -> None:
    riding = plan(PRESS)
    assert riding.rides_on_response and not riding.posts and not riding.spends_budget
    reposting = plan(replace(ELSEWHERE, buried=True, budget=True))
    assert not reposting.rides_on_response and reposting.posts and reposting.spends_budget
    first = plan(replace(SLASH, board=None))
    assert first.rides_on_response and first.posts and not first.spends_budget


facts = st.builds(
    Facts,
    board=st.none() | st.just(BOARD),
    public=st.booleans(),
    on_board=st.booleans(),
    response_free=st.booleans(),
    handle=st.booleans(),
    buried=st.booleans(),
    reposted=st.booleans(),
    budget=st.booleans(),
)


@given(facts)
def test_every_combination_gives_a_valid_plan(given_facts: Facts) -> None:
    decided = plan(given_facts)
    riding_possible = given_facts.public and given_facts.response_free
    # A board re-posted by the previous update is edited in place, buried or not.
    due = given_facts.buried and not given_facts.reposted
    # It acts on the board there is, and posts one where there is none.
    assert decided.board == given_facts.board
    if given_facts.board is None:
        assert decided.posts and decided.route in (Route.POST_IN_RESPONSE, Route.POST_BY_BOT)
    else:
        assert decided.route not in (Route.POST_IN_RESPONSE, Route.POST_BY_BOT)
    # Only an interaction whose response is free carries the board, and one that can always
    # does when the board is new, buried, or the one pressed.
    if decided.rides_on_response:
        assert riding_possible
    if riding_possible and (given_facts.board is None or due or given_facts.on_board):
        assert decided.rides_on_response
    # A board that is not buried is never posted again; the budget is spent only on a
    # buried board, and only within it; a token is used only when there is one.
    if given_facts.board is not None and not due:
        assert not decided.posts
    if decided.spends_budget:
        assert given_facts.budget and due and not riding_possible
    if decided.route is Route.EDIT_BY_HANDLE:
        assert given_facts.handle
    if decided.route is Route.EDIT_IN_RESPONSE:
        assert given_facts.on_board
    assert decided.rides_on_response == (decided.route in RIDING)
    assert decided.posts == (decided.route in POSTING)


@given(facts)
def test_a_fallback_is_a_bot_token_route_on_the_same_board(given_facts: Facts) -> None:
    decided = plan(given_facts)
    fallback = decided.fallback
    if decided.route in BY_TOKEN or decided.spends_budget:
        assert fallback is not None
    if fallback is None:
        assert decided.route in (Route.POST_BY_BOT, Route.EDIT_BY_BOT)
        return
    # It never rides on the response, spends no budget, and posts only where there is no board.
    assert fallback.board == decided.board
    assert not fallback.rides_on_response and not fallback.spends_budget
    assert fallback.route in (Route.POST_BY_BOT, Route.EDIT_BY_BOT)
    assert fallback.posts == (decided.board is None)


BOT_TOKEN_ROUTES = frozenset(
    {Route.POST_BY_BOT, Route.EDIT_BY_BOT, Route.REPOST_BY_BOT, Route.REPOST_IN_RESPONSE}
)
"""Every route that makes a bot-token call (a re-post deletes the old board by bot token)."""


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        # The challenge is the command's response; a press on the message edits it there.
        (replace(SLASH, board=None), Route.POST_IN_RESPONSE),
        (PRESS, Route.EDIT_IN_RESPONSE),
        (replace(PRESS, buried=True, budget=True), Route.EDIT_IN_RESPONSE),
        # Without a press on it, a fresh token edits it; else it waits for the next press.
        (replace(ELSEWHERE, handle=True), Route.EDIT_BY_HANDLE),
        (replace(SLASH, handle=True, buried=True), Route.EDIT_BY_HANDLE),
        (replace(ELSEWHERE, budget=True), Route.WAIT),
        (SLASH, Route.WAIT),
        (replace(ELSEWHERE, board=None), Route.WAIT),
    ],
)
def test_a_match_reached_only_through_interactions_has_its_route(
    facts: Facts, expected: Route
) -> None:
    assert plan(replace(facts, bot_token=False)).route is expected


@given(facts)
def test_no_plan_uses_the_bot_token_where_it_does_not_reach(given_facts: Facts) -> None:
    decided = plan(replace(given_facts, bot_token=False))
    assert decided.route not in BOT_TOKEN_ROUTES
    assert decided.fallback is None
    if decided.route is Route.EDIT_BY_HANDLE:
        assert given_facts.handle
    if decided.rides_on_response:
        assert given_facts.public and given_facts.response_free
