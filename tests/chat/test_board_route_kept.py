"""A route decides once per match version: the plan the service was told about is the plan the
delivery carries out, whatever happens in the channel in between."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

import games
from bot.chat.boards.live import BURIED_AFTER, CHANNEL_POSTS, Boards
from bot.chat.boards.route import Route

from .helpers import CHANNEL, snapshot

BOARD = 900


def _boards() -> Boards:
    return Boards(cast(Any, None), cast(Any, None))


def _bury(boards: Boards) -> None:
    for message_id in range(BOARD + 1, BOARD + 1 + BURIED_AFTER):
        boards.activity.saw(CHANNEL, message_id)


def test_the_route_keeps_what_it_decided_for_a_version() -> None:
    boards = _boards()
    snap = snapshot("crown", games.get("crown").new({}, 1), message_id=BOARD)
    route = boards.route()
    assert not route.rides_on_response(snap)
    _bury(boards)  # the channel moves on before the delivery carries the plan out
    assert route.decide(snap).route is Route.EDIT_BY_BOT
    # The next version is decided anew: the buried board comes back with a bot-token post.
    later = replace(snap, version=snap.version + 1)
    assert route.decide(later).route is Route.REPOST_BY_BOT


def test_deciding_a_re_post_spends_nothing() -> None:
    """The budget is spent when a re-post is carried out, not when a route is asked about it."""
    boards = _boards()
    _bury(boards)
    snap = snapshot("crown", games.get("crown").new({}, 1), message_id=BOARD)
    route = boards.route()
    for _ in range(3):
        assert route.decide(snap).route is Route.REPOST_BY_BOT
        assert boards.route().rides_on_response(snap) is False
    for _ in range(CHANNEL_POSTS):
        assert boards.budget.take(CHANNEL)
    assert not boards.budget.allows(CHANNEL)
