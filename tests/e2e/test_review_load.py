"""Reviews through the fake Discord: computed in the bot's review process pool, the press
deferred first and answered when the review is ready, and a member over the fair-use limit
answered privately with when to ask again, while the others are served as before."""

from __future__ import annotations

import multiprocessing
import os
import re
from typing import TYPE_CHECKING

import pytest

from bot.chat.components import Verb
from bot.settings import Settings
from tests.e2e.test_bot_games import play_crystal, start

if TYPE_CHECKING:
    from bot.service.replays import Replays

    from .bot_fixtures import Table
    from .fake_discord import FakeMember

pytest_plugins = ("tests.e2e.bot_fixtures",)


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """One review a minute per member, computed in one worker process."""
    return settings.model_copy(update={"reviews_per_minute": 1, "review_workers": 1})


def replays(table: Table) -> Replays:
    assert table.app is not None
    return table.app.after_game.replays


async def test_a_review_is_computed_in_the_pool_and_a_second_one_a_minute_is_refused(
    idle_table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    table = idle_table
    async with table.running():
        await computed_once_and_refused(table, alice, bob, carol)
    # The bot closed its pool with it: no worker process is left behind.
    assert multiprocessing.active_children() == []


async def computed_once_and_refused(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    await start(table, alice, bob, "crystal challenge")
    await play_crystal(table, alice, bob)
    first = table.board_of(1)
    await start(table, alice, bob, "crystal challenge")
    await play_crystal(table, alice, bob)
    second = table.board_of(2)

    opened = await table.click(carol, first, Verb.REVIEW)
    await table.fake.wait_for_response(opened)
    [summary] = opened.messages
    assert opened.response_type == 5  # deferred first ("thinking"), then answered
    assert summary.ephemeral and "Review · Crystal Capture · match #1" in summary.text
    reviewer = replays(table).reviewer
    assert reviewer.computed == 1 and os.getpid() not in reviewer.pids

    refused = await table.refused(carol, second, Verb.REVIEW)
    assert "1 new review in the last minute" in refused
    assert re.search(r"ask again <t:\d+:R>", refused)
    assert reviewer.computed == 1 and not replays(table).kept(2)

    # What is made is shown to her at once; Bob has a minute of his own.
    again = await table.click(carol, first, Verb.REVIEW)
    await table.fake.wait_for_response(again)
    assert again.response_type == 4 and "match #1" in again.messages[0].text
    theirs = await table.click(bob, second, Verb.REVIEW)
    await table.fake.wait_for_response(theirs)
    assert "Review · Crystal Capture · match #2" in theirs.messages[0].text
    assert reviewer.computed == 2
