"""How a member's request ended, in words the client and the request watch share
(``bot.chat.request_watch``), and when its handling began: kept on the interaction's own
``extras``."""

from __future__ import annotations

import time
from typing import Any

import discord

OK, REFUSED, FAILED_OUTCOME = "ok", "refused", "failed"
"""How a request ended: answered, refused (told privately why), or failed (logged)."""
COMMAND_ENDED = "app_command_ended"
"""The client's event for a command its error handler answered, with the outcome."""
BEGAN = "parlor.began"
TOLD = "parlor.told"
"""Keys of ``Interaction.extras``: when handling began, and whether it was told."""


def began(interaction: discord.Interaction[Any]) -> float:
    """When handling ``interaction`` began (``time.perf_counter``): noted the first time."""
    started: float = interaction.extras.setdefault(BEGAN, time.perf_counter())
    return started
