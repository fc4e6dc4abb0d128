"""What a failure tells the member; the log's line is ``bot.service.failures.log_failure``."""

from __future__ import annotations

from bot.i18n import N_

FAILED = N_("Something went wrong on my side and nothing was played. Please try again.")
"""Translated where it is shown: ``_(FAILED)``."""
