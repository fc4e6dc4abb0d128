"""Open challenges through the fake Discord: ``/<game> challenge`` without an opponent, taken by
the first member to press Accept while another presses it at the same moment."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import pytest

from bot.chat.components import Press, Verb

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeMember

pytest_plugins = ("tests.e2e.bot_fixtures",)


async def test_two_accepts_at_once_start_one_match_and_tell_the_other(
    table: Table, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    answered = await table.slash(alice, "crystal challenge")
    (posted,) = answered.messages
    assert not posted.ephemeral and "posts an open challenge to Crystal Capture" in posted.text
    assert [p.verb for p in table.presses(posted)] == [Verb.ACCEPT, Verb.WITHDRAW]
    refusal = await table.refused(alice, posted, Verb.ACCEPT)
    assert "your own open challenge" in refusal

    fake = table.fake
    accept = next(c for c in posted.custom_ids if getattr(Press.parse(c), "verb", "") == "accept")
    presses = await asyncio.gather(*(fake.click(who, posted, accept) for who in (bob, carol)))
    await asyncio.gather(*(fake.wait_for_response(p) for p in presses))
    refused = [i for i, p in enumerate(presses) if p.messages and p.messages[0].ephemeral]
    assert len(refused) == 1
    loser = presses[refused[0]]
    winner = (bob, carol)[1 - refused[0]]
    assert f"<@{winner.id}> took this challenge first: it is taken." in table.answer(loser)
    board = await table.posted(lambda m: bool(m.embeds) and "Coin toss" in m.text, after=0)
    assert board is posted  # the challenge turned into the first board
    assert f"<@{winner.id}> accepted." in board.text
    assert table.board_of(1) is board and len(fake.messages(table.channel)) == 1


@pytest.mark.parametrize("verb", [Verb.WITHDRAW])
async def test_the_challenger_withdraws_an_open_challenge(
    table: Table, alice: FakeMember, bob: FakeMember, verb: str
) -> None:
    (posted,) = (await table.slash(alice, "crown challenge")).messages
    assert "Bob" not in posted.text
    refusal = await table.refused(bob, posted, verb)
    assert "Only" in refusal and "withdraw" in refusal
    await table.click(alice, posted, verb)
    await table.closed(posted)
    assert f"<@{alice.id}> posted an open challenge to Capture the Crown" in posted.text
    assert "withdrew the challenge" in posted.text
