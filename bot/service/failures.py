"""The one way a failure is logged: its type at ERROR, its text and traceback at DEBUG only.

An exception's text may quote a secret: a database error quotes its statement's parameters, and
a match's state holds the match's secrets. So the line a host reads at ERROR names what failed
and the exception's type, never its message.
"""

from __future__ import annotations

import logging
import sys


def log_failure(
    log: logging.Logger, what: str, *args: object, error: BaseException | None = None
) -> None:
    """Log ``error`` (default: the exception being handled) under ``what % args``."""
    error = error or sys.exc_info()[1]
    log.error(f"{what}: %s", *args, type(error).__name__)
    log.debug("%s", what % args, exc_info=error)
