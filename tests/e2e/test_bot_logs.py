"""No secret reaches a log line when an interaction cannot be acknowledged.

A press answered too late (or already answered by another process) makes discord.py log the
failing button or form. Its label may be a Crown cell, a trap cell or a hint sentence: the bot's
log must name the button without it. Checked at INFO for discord.py's loggers (their DEBUG
payload logging stays off unless the host turns it on) and at DEBUG for Parlor's own.
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


def ui_errors(caplog: pytest.LogCaptureFixture) -> int:
    return sum(
        1 for r in caplog.records if r.name.startswith("discord.ui") and r.levelno >= logging.ERROR
    )


async def fails(
    table: Table, caplog: pytest.LogCaptureFixture, act: Awaitable[FakeInteraction]
) -> None:
    """Run ``act`` (a press or a form sent) with every acknowledgement refused as too late.

    Waits until the refused acknowledgement has been logged by discord.py.
    """
    before = ui_errors(caplog)
    table.fake.interaction_deadline = 0
    try:
        interaction = await act
        await table.fake.wait_until(
            lambda: ui_errors(caplog) > before, what="the failed acknowledgement to be logged"
        )
        assert not interaction.acknowledged
    finally:
        table.fake.interaction_deadline = 3.0


def assert_not_logged(caplog: pytest.LogCaptureFixture, *secrets: str) -> None:
    text = log_text(caplog)
    assert "Ignoring exception" in text  # the failure itself is logged
    assert "label=" not in text, "a button was logged with its label"
    for secret in secrets:
        # Not inside a longer number: logs carry Discord ids.
        pattern = rf"(?<![\d,]){re.escape(secret)}(?![\d,])"
        assert not re.search(pattern, text, re.IGNORECASE), f"{secret!r} was logged"


async def start(table: Table, challenger: FakeMember, opponent: FakeMember, game: str) -> None:
    mark = table.checkpoint()
    await table.slash(challenger, f"{game} challenge", opponent=opponent)
    challenge = await table.posted("challenges you", after=mark)
    await table.click(opponent, challenge, Verb.ACCEPT)
    await table.posted("Coin toss", after=mark)


@pytest.mark.parametrize("game", ["claim", "crystal"])
async def test_an_accept_too_late_is_logged_without_the_button(
    table: Table, alice: FakeMember, bob: FakeMember, logged: pytest.LogCaptureFixture, game: str
) -> None:
    mark = table.checkpoint()
    await table.slash(alice, f"{game} challenge", opponent=bob)
    challenge = await table.posted("challenges you", after=mark)
    custom_id = next(c for c in challenge.custom_ids if c.endswith(":accept"))
    await fails(table, logged, table.fake.click(bob, challenge, custom_id))
    assert_not_logged(logged)
    # The challenge is still open: the press can be made again.
    await table.click(bob, challenge, Verb.ACCEPT)
    await table.posted("Coin toss", after=mark)


async def test_crown_cells_and_hints_are_not_logged(
    table: Table, alice: FakeMember, bob: FakeMember, logged: pytest.LogCaptureFixture
) -> None:
    mark = table.checkpoint()
    await start(table, alice, bob, "crown")
    prompt = await table.posted("Choose your secret", after=mark, where=alice)
    custom_id = next(c for c in prompt.custom_ids if c.endswith(":secret:3 2"))
    await fails(table, logged, table.fake.click(alice, prompt, custom_id))
    chosen = await table.click(alice, prompt, Verb.SECRET, "3 2")
    await table.fake.wait_for_response(chosen)
    await table.dm(bob, "1 1")
    placed = await table.posted("Both Crowns are placed", after=mark)

    mark = table.checkpoint()
    await table.click(alice, placed, Verb.PLAY, "2 2")
    hint_prompt = await table.posted("missed", after=mark, where=bob)
    hints = [str(b["label"]) for b in hint_prompt.buttons]
    custom_id = next(c for c in hint_prompt.custom_ids if c.endswith(":play:row"))
    await fails(table, logged, table.fake.click(bob, hint_prompt, custom_id))
    assert_not_logged(logged, "3,2", "3 2", "1,1", "1 1", *hints)


async def test_flag_trap_cells_are_not_logged(
    table: Table, alice: FakeMember, bob: FakeMember, logged: pytest.LogCaptureFixture
) -> None:
    await start(table, alice, bob, "flag")
    opened = await table.click(alice, table.board(), Verb.TRAP)
    await table.fake.wait_for_response(opened)
    (picker,) = opened.ephemeral_messages
    custom_id = next(c for c in picker.custom_ids if c.endswith(":play:TRAP 4 4"))
    await fails(table, logged, table.fake.click(alice, picker, custom_id))
    assert_not_logged(logged, "4,4", "4 4")


async def test_safe_codes_are_not_logged(
    table: Table, alice: FakeMember, bob: FakeMember, logged: pytest.LogCaptureFixture
) -> None:
    mark = table.checkpoint()
    await start(table, alice, bob, "safe")
    prompt = await table.posted("Choose your secret", after=mark, where=bob)
    opened = await table.click(bob, prompt, Verb.CODE)
    await table.fake.wait_for_response(opened)
    (field,) = opened.modal_text_inputs
    assert opened.modal is not None
    form = table.fake.submit_modal(
        bob, opened, str(opened.modal["custom_id"]), {str(field["custom_id"]): "312"}
    )
    await fails(table, logged, form)
    assert_not_logged(logged, "312", "3-1-2")


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
