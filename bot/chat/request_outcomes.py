"""How a member's request ended, in words the client and the request watch share
(``bot.chat.request_watch``), and when its handling began: kept on the interaction's own
``extras``.

A slash command that answers a refusal itself (a private answer saying what is wrong) rather
than raising ``settle``s it: the request watch tells that outcome when discord.py reports the
command completed."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import discord

OK, REFUSED, FAILED_OUTCOME = "ok", "refused", "failed"
"""How a request ended: answered, refused (told privately why), or failed (logged)."""
COMMAND_ENDED = "app_command_ended"
"""The client's event for a command its error handler answered, with the outcome."""
BEGAN = "parlor.began"
TOLD = "parlor.told"
OUTCOME = "parlor.outcome"
"""Keys of ``Interaction.extras``: when handling began, whether it was told, and how the
command settled it (``settle``)."""


@dataclass
class Ended:
    """How a request ended, set as it is handled."""

    outcome: str = FAILED_OUTCOME


def began(interaction: discord.Interaction[Any]) -> float:
    """When handling ``interaction`` began (``time.perf_counter``): noted the first time."""
    started: float = interaction.extras.setdefault(BEGAN, time.perf_counter())
    return started


def settle(interaction: discord.Interaction[Any], outcome: str) -> str:
    """Note that ``interaction``'s request ended with ``outcome`` (``REFUSED`` once a refusal
    has been answered, ``FAILED_OUTCOME`` once a failure has); ``outcome`` back."""
    interaction.extras[OUTCOME] = outcome
    return outcome


def settled(interaction: discord.Interaction[Any]) -> str:
    """How ``interaction``'s request was settled: ``OK`` unless ``settle`` said otherwise."""
    outcome: str = interaction.extras.get(OUTCOME, OK)
    return outcome
