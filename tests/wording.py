"""The match service's public lines as the Discord side words them, for tests that read
them as text: in the language of the moment (``speaking``), English otherwise."""

from __future__ import annotations

from bot.chat.boards.lines import said, said_all
from bot.service.notices import Report

__all__ = ["public_said", "said", "said_all"]


def public_said(report: Report) -> list[str]:
    """``report``'s public lines in words."""
    return said_all(report.public_lines())
