"""After a whole Crown match on SimCord: the board's Review and its Details, a replay stepped to
its last step, the downloaded record, and ``/stats`` with its PNG chart. While the match is in
play, its review, replay and record are refused."""

from __future__ import annotations

import io

import discord
from PIL import Image

from bot.service.charts import SIZE

from .table import Member, Table, as_message, buttons, embed_text, labels, start


async def attachment_bytes(message: discord.Message) -> tuple[str, bytes]:
    [attachment] = message.attachments
    return attachment.filename, await attachment.read()


async def test_review_replay_record_and_chart_after_a_crown_match(
    table: Table, alice: Member, bob: Member, carol: Member
) -> None:
    board = await start(table, alice, bob, "crown")
    await alice.type_dm("3 1")
    refused = await carol.ask("replay", match=1)
    assert "still in play" in refused and "(3,1)" not in refused
    await bob.type_dm("2 3")
    await alice.press(table.now(board), "2,2")
    await bob.press(bob.latest_dm("missed"), "Row is equal to 2")
    await bob.play("crown attack", row=1, col=1)
    await alice.type_dm("column")
    await alice.press(table.now(board), "2,3")
    end = table.now(board)
    assert labels(end) == ["Rematch", "Review"]

    # Carol, who did not play, opens the review privately and walks through its moves.
    opened = await carol.press(end, "Review")
    assert opened.response is not None and opened.response.ephemeral
    summary = embed_text(opened.response)
    assert "Review · Capture the Crown · match #1" in summary
    assert f"{alice.mention} won (capture)" in summary and "Skill" in summary
    step = await carol.press(opened.response, "Details")
    assert step.response is not None and step.response.id == opened.response.id
    assert "Move 1 of " in embed_text(step.response)
    page = step.response
    assert "What they knew" in embed_text(page)
    while "Next" in labels(page):
        pressed = await carol.press(page, "Next")
        assert pressed.response is not None
        page = pressed.response
    assert "attack (2,3)" in embed_text(page)

    # Bob replays the match to its last step, then downloads its record.
    replay = await bob.command("replay", match=1)
    assert replay.response is not None and replay.response.ephemeral
    assert "step 0 of 7" in embed_text(replay.response)
    last = await bob.press(replay.response, "Last")
    assert last.response is not None
    shown = embed_text(last.response)
    assert "step 7 of 7" in shown and "attack (2,3)" in shown and "💥" in shown
    assert [b.label for b in buttons(last.response) if b.disabled] == ["Next", "Last"]
    download = await bob.press(last.response, "Download")
    assert download.response is not None and download.response.ephemeral
    name, data = await attachment_bytes(as_message(download.response))
    record = data.decode()
    assert name == "parlor-match-1-crown.txt"
    assert "Capture the Crown · match #1" in record and " won (capture)" in record

    # /history lists it with the rating change; /stats user: attaches the rating chart.
    listed = await alice.command("history")
    assert listed.response is not None and listed.response.ephemeral
    assert "**#1** Capture the Crown vs" in embed_text(listed.response)
    assert "won (capture) · +" in embed_text(listed.response)
    stats = await carol.command("stats", user=alice)
    assert stats.response is not None and not stats.response.ephemeral
    name, data = await attachment_bytes(as_message(stats.response))
    image = Image.open(io.BytesIO(data))
    image.load()
    assert name == "rating.png" and image.format == "PNG" and image.size == SIZE
