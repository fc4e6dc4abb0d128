"""After a whole Crown match through the fake Discord: the board's Review, its Details, a replay
stepped to its end, the record downloaded, ``/history``, and ``/stats`` with its PNG charts.
Review, replay and record are refused while a match is in play, without a word of its secrets."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from PIL import Image

from bot.chat.components import Verb
from bot.service.charts import SIZE
from tests.e2e.test_bot_games import assert_no_secret_leaked, start

if TYPE_CHECKING:
    import pytest

    from .bot_fixtures import Table
    from .fake_discord import FakeInteraction, FakeMember, FakeMessage

pytest_plugins = ("tests.e2e.bot_fixtures",)


async def press(table: Table, who: FakeMember, message: FakeMessage, label: str) -> FakeInteraction:
    """Press the button labelled ``label`` and wait for its answer."""
    found = [str(b["custom_id"]) for b in message.buttons if b.get("label") == label]
    assert len(found) == 1, f"no {label!r} button: {[b.get('label') for b in message.buttons]}"
    custom_id = found[0]
    interaction = await table.fake.click(who, message, custom_id)
    return await table.fake.wait_for_response(interaction)


def png(table: Table, message: FakeMessage) -> Image.Image:
    [attachment] = message.attachments
    assert attachment["filename"].endswith(".png")
    data = table.fake.state.uploads[int(attachment["id"])]
    assert len(data) < 150_000
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


async def test_review_replay_record_history_and_charts_after_a_crown_match(
    table: Table,
    alice: FakeMember,
    bob: FakeMember,
    carol: FakeMember,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # While the match is in play nothing of it opens, and no secret is told.
    board = await start(table, alice, bob, "crown challenge")
    await table.dm(alice, "3 1")
    refused = await table.slash(carol, "replay", match=1)
    assert "still in play" in table.answer(refused) and refused.messages[0].ephemeral
    assert "(3,1)" not in table.answer(refused)
    assert Verb.REVIEW not in {p.verb for p in table.presses(board)}
    mark = table.checkpoint()
    await table.dm(bob, "2 3")
    placed = await table.posted("Both Crowns are placed", after=mark)
    for who, move, hint in ((alice, "2 2", (bob, "row")), (bob, "1 1", (alice, "column"))):
        mark = table.checkpoint()
        await table.click(who, placed, Verb.PLAY, move)
        await table.posted("missed", after=mark, where=hint[0])
        await table.dm(*hint)
        placed = await table.posted("your move.", after=mark)
    assert_no_secret_leaked(table, caplog, "(3,1)", "(2,3)", typed=("3 1", "2 3"))
    mark = table.checkpoint()
    await table.click(alice, placed, Verb.PLAY, "2 3")
    end = await table.posted("Hit", after=mark)
    assert [p.verb for p in table.presses(end)] == [Verb.REMATCH, Verb.REVIEW]

    # Anyone in the channel may open the review: a private summary, then each move.
    opened = await table.click(carol, end, Verb.REVIEW)
    await table.fake.wait_for_response(opened)
    [summary] = opened.messages
    assert summary.ephemeral and "Review · Capture the Crown · match #1" in summary.text
    assert "Skill" in summary.text and "luck" in summary.text and "Best move" in summary.text
    assert f"<@{alice.id}> won (capture)" in summary.text
    details = await press(table, carol, summary, "Details")
    assert details.original is summary and "Move 1 of " in summary.text
    assert "What they knew" in summary.text and "Best" in summary.text
    assert "attack (2,2)" in summary.text
    while any(b.get("label") == "Next" and not b.get("disabled") for b in summary.buttons):
        await press(table, carol, summary, "Next")
    assert "attack (2,3)" in summary.text and "✅ best" in summary.text
    await press(table, carol, summary, "Summary")
    assert "Review · Capture the Crown" in summary.text

    # The replay steps to its end, where both Crowns show; the record downloads as text.
    answered = await table.slash(bob, "replay", match=1)
    [stepper] = answered.messages
    assert stepper.ephemeral and "step 0 of 7" in stepper.text
    assert "Secrets:" in stepper.text and "(3,1)" in stepper.text
    await press(table, bob, stepper, "Next")
    assert "step 1 of 7" in stepper.text and "Crown at (3,1)" in stepper.text
    await press(table, bob, stepper, "Last")
    assert "step 7 of 7" in stepper.text and "attack (2,3)" in stepper.text
    assert stepper.text.count("👑") + stepper.text.count("💥") >= 2
    assert [b.get("disabled", False) for b in stepper.buttons][:4] == [False, False, True, True]
    downloaded = await press(table, bob, stepper, "Download")
    [file_message] = downloaded.messages
    [attachment] = file_message.attachments
    assert attachment["filename"] == "parlor-match-1-crown.txt"
    record = table.fake.state.uploads[int(attachment["id"])].decode()
    assert "Parlor · Capture the Crown · match #1" in record
    assert "attack (2,2)" in record and ("[best]" in record or "[inaccuracy]" in record)
    assert "Result: " in record and " won (capture)" in record

    # History: the match, the opponent, the result and the rating change, with a board link.
    listed = await table.slash(alice, "history")
    [page] = listed.messages
    assert page.ephemeral and "**#1** Capture the Crown vs" in page.text
    assert f"<@{bob.id}>" in page.text and "won (capture) · +" in page.text
    assert f"/{table.channel.id}/{end.id})" in page.text

    # /stats user: the record with a chart of the rating; /stats game: the top ten's chart.
    stats = await table.slash(carol, "stats", user=alice)
    [shown] = stats.messages
    assert not shown.ephemeral and "Record" in shown.text
    assert png(table, shown).size == SIZE
    top = await table.slash(carol, "stats", game="crown")
    image = png(table, top.messages[0])
    assert image.size == SIZE and image.format == "PNG"
