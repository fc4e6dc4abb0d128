"""No secret reaches a log line when an interaction cannot be acknowledged.

A press or a form answered too late (or already answered by another process) still plays: the
bot logs that its answer failed, naming the match and the HTTP status only. A press whose
callback fails all the same (its refusal cannot be sent either) is logged by discord.py with
the button: its label may be a Crown cell, a trap cell or a hint sentence, so the log must name
the button without it. Checked at INFO for discord.py's loggers (their DEBUG payload logging
stays off unless the host turns it on) and at DEBUG for Parlor's own.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bot.chat.components import Verb

from .bot_process import READY, bot_process

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeDiscord, FakeGuild, FakeInteraction, FakeMember

pytest_plugins = ("tests.e2e.bot_fixtures",)

PARLOR_LOGGERS = ("bot", "db", "games")
FORMAT = logging.Formatter("%(levelname)s %(name)s: %(message)s")
ANSWER_FAILED = "could not deliver the answer: HTTP 404"
"""The bot's warning when a press's private answer (or a DM picker's update) was too late."""
BOARD_ANSWER_FAILED = "answering with the board failed: 404"
"""The bot's warning when the answer that carried the board was too late."""
BOT_EDIT = "PATCH /channels/{channel_id}/messages/{message_id}"


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Capture discord.py's loggers at INFO and Parlor's at DEBUG."""
    caplog.set_level(logging.INFO)
    for name in PARLOR_LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)
    return caplog


def log_text(caplog: pytest.LogCaptureFixture) -> str:
    """Every captured line, tracebacks included."""
    return "\n".join(FORMAT.format(record) for record in caplog.records)


def lines_with(caplog: pytest.LogCaptureFixture, text: str) -> int:
    return sum(1 for record in caplog.records if text in record.getMessage())


def discord_errors(caplog: pytest.LogCaptureFixture) -> int:
    """How many errors discord.py itself logged (a callback that raised)."""
    return sum(
        1 for r in caplog.records if r.name.startswith("discord.") and r.levelno >= logging.ERROR
    )


async def too_late(
    table: Table, caplog: pytest.LogCaptureFixture, act: Awaitable[FakeInteraction], logs: str
) -> None:
    """Run ``act`` (a press or a form sent) with every acknowledgement refused as too late.

    Waits until one more line containing ``logs`` has been logged: the bot's warning, or
    discord.py's "Ignoring exception" for a callback that raised.
    """
    before = lines_with(caplog, logs)
    table.fake.interaction_deadline = 0
    try:
        interaction = await act
        await table.fake.wait_until(
            lambda: lines_with(caplog, logs) > before, what=f"a line with {logs!r}"
        )
        assert not interaction.acknowledged
    finally:
        table.fake.interaction_deadline = 3.0


def assert_not_logged(caplog: pytest.LogCaptureFixture, *secrets: str) -> None:
    text = log_text(caplog)
    assert "label=" not in text, "a button was logged with its label"
    for secret in secrets:
        # Not inside a longer number: logs carry Discord ids.
        pattern = rf"(?<![\d,]){re.escape(secret)}(?![\d,])"
        assert not re.search(pattern, text, re.IGNORECASE), f"{secret!r} was logged"


def item_logged(caplog: pytest.LogCaptureFixture, item: str) -> None:
    """discord.py logged a callback of ``item`` that raised, naming it by match and verb."""
    assert f"Ignoring exception in dynamic item callback for {item}" in log_text(caplog)


async def start(table: Table, challenger: FakeMember, opponent: FakeMember, game: str) -> None:
    mark = table.checkpoint()
    await table.slash(challenger, f"{game} challenge", opponent=opponent)
    challenge = await table.posted("challenges you", after=mark)
    await table.click(opponent, challenge, Verb.ACCEPT)
    await table.posted("Coin toss", after=mark)


@pytest.mark.parametrize("game", ["claim", "crystal"])
async def test_an_accept_too_late_still_starts_the_match_and_logs_no_button(
    table: Table, alice: FakeMember, bob: FakeMember, logged: pytest.LogCaptureFixture, game: str
) -> None:
    mark = table.checkpoint()
    await table.slash(alice, f"{game} challenge", opponent=bob)
    challenge = await table.posted("challenges you", after=mark)
    custom_id = next(c for c in challenge.custom_ids if c.endswith(":accept"))
    requests = table.request_mark()
    await too_late(table, logged, table.fake.click(bob, challenge, custom_id), BOARD_ANSWER_FAILED)
    # The board shows the match all the same, edited in place with the bot token.
    board = await table.posted("Coin toss", after=mark)
    assert board.id == challenge.id == table.board_of(1).id
    assert table.bot_calls(requests).board == {BOT_EDIT: 1}
    assert "match 1: answering with the board failed: 404" in log_text(logged)
    assert discord_errors(logged) == 0  # the bot dealt with it: nothing escaped a callback
    assert_not_logged(logged)


async def test_crown_cells_and_hints_are_not_logged(
    table: Table, alice: FakeMember, bob: FakeMember, logged: pytest.LogCaptureFixture
) -> None:
    mark = table.checkpoint()
    await start(table, alice, bob, "crown")
    prompt = await table.posted("Choose your secret", after=mark, where=alice)
    custom_id = next(c for c in prompt.custom_ids if c.endswith(":secret:3 2"))
    # The choice is saved though its answer fails; the prompt keeps its buttons, and pressing
    # the same cell again is refused, whose answer fails too: discord.py logs that button.
    await too_late(table, logged, table.fake.click(alice, prompt, custom_id), ANSWER_FAILED)
    await too_late(table, logged, table.fake.click(alice, prompt, custom_id), "Ignoring exception")
    await table.dm(bob, "1 1")
    placed = await table.posted("Both Crowns are placed", after=mark)

    mark = table.checkpoint()
    await table.click(alice, placed, Verb.PLAY, "2 2")
    hint_prompt = await table.posted("missed", after=mark, where=bob)
    hints = [str(b["label"]) for b in hint_prompt.buttons]
    given = next(c for c in hint_prompt.custom_ids if c.endswith(":play:row"))
    other = next(c for c in hint_prompt.custom_ids if c != given)
    await too_late(table, logged, table.fake.click(bob, hint_prompt, given), ANSWER_FAILED)
    # The board shows the hint given all the same, and Bob's turn to attack.
    await table.posted(lambda m: f"**Last:** <@{bob.id}>'s hint" in m.text, after=mark)
    # Another hint pressed on the prompt the failed answer left: refused as out of date, and
    # its refusal fails too. That button's label is a hint Bob did not give.
    await too_late(table, logged, table.fake.click(bob, hint_prompt, other), "Ignoring exception")
    assert_not_logged(logged, "3,2", "3 2", "1,1", "1 1", *hints)
    item_logged(logged, "ActionButton (match 1, secret)")
    item_logged(logged, "ActionButton (match 1, play)")


async def test_flag_trap_cells_are_not_logged(
    table: Table, alice: FakeMember, bob: FakeMember, logged: pytest.LogCaptureFixture
) -> None:
    await start(table, alice, bob, "flag")
    opened = await table.click(alice, table.board(), Verb.TRAP)
    await table.fake.wait_for_response(opened)
    (picker,) = opened.ephemeral_messages
    custom_id = next(c for c in picker.custom_ids if c.endswith(":play:TRAP 4 4"))
    await too_late(table, logged, table.fake.click(alice, picker, custom_id), ANSWER_FAILED)
    # The trap is set; pressing the same cell again on the picker is refused, and fails.
    await too_late(table, logged, table.fake.click(alice, picker, custom_id), "Ignoring exception")
    assert_not_logged(logged, "4,4", "4 4")
    item_logged(logged, "ActionButton (match 1, play)")


async def test_safe_codes_are_not_logged(
    table: Table, alice: FakeMember, bob: FakeMember, logged: pytest.LogCaptureFixture
) -> None:
    mark = table.checkpoint()
    await start(table, alice, bob, "safe")
    prompt = await table.posted("Choose your secret", after=mark, where=bob)
    forms: list[FakeInteraction] = []
    for _ in range(2):  # the form opened twice, as from two devices
        opened = await table.click(bob, prompt, Verb.CODE)
        forms.append(await table.fake.wait_for_response(opened))
    for opened, logs in zip(forms, (ANSWER_FAILED, "Ignoring exception"), strict=True):
        (field,) = opened.modal_text_inputs
        assert opened.modal is not None
        form = table.fake.submit_modal(
            bob, opened, str(opened.modal["custom_id"]), {str(field["custom_id"]): "312"}
        )
        # The first is saved though its answer fails; the second is refused, and fails.
        await too_late(table, logged, form, logs)
    assert_not_logged(logged, "312", "3-1-2")
    assert "Ignoring exception in on_interaction" in log_text(logged)


# ---------------------------------------------------------------------- the host's settings


async def test_debug_logging_leaves_out_discord_payloads_unless_asked(
    fake_discord: FakeDiscord, guild: FakeGuild, tmp_path: Path
) -> None:
    async with bot_process(tmp_path, fake_discord, LOG_LEVEL="DEBUG") as bot:
        await bot.wait_for_line(READY)
        assert "WebSocket Event" not in bot.output
        assert not re.search(r"DEBUG +discord\.", bot.output)

    async with bot_process(
        tmp_path, fake_discord, LOG_LEVEL="DEBUG", DISCORD_DEBUG_LOGGING="true"
    ) as bot:
        await bot.wait_for_line(READY)
        await bot.wait_for_line("WebSocket Event")
