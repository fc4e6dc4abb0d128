"""What a failure tells the member and the log, without quoting what may be a secret."""

from __future__ import annotations

import logging
import sys

from bot.i18n import N_

log = logging.getLogger("bot.chat")

FAILED = N_("Something went wrong on my side and nothing was played. Please try again.")
"""Translated where it is shown: ``_(FAILED)``."""


def log_failure(what: str, *args: object, error: BaseException | None = None) -> None:
    """Log ``error`` (default: the exception being handled) without its text.

    The text may quote a secret: a database error quotes its statement's parameters, and a
    match's state holds the match's secrets. The full traceback goes to DEBUG only.
    """
    error = error or sys.exc_info()[1]
    log.error(f"{what}: %s", *args, type(error).__name__)
    log.debug("%s", what % args, exc_info=error)
