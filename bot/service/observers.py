"""What the match service tells an observer of its own workings (the host's metrics), without
knowing who listens: the composition root passes one in, or none."""

from __future__ import annotations

from typing import Protocol


class TransactionObserver(Protocol):
    """Hears how long each use case's transaction took."""

    def transaction(self, kind: str, outcome: str, seconds: float) -> None:
        """A transaction ended: ``kind`` is ``core`` (a match's use case) or ``session`` (the
        queue's, a pairing's); ``outcome`` is ``commit`` or ``rollback``."""
