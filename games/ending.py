"""The end of a game: its announcement, the reveal of its secrets, and its outcome as stored."""

from __future__ import annotations

from collections.abc import Iterable

from games.base import JSON, Event, Outcome


def end_event(outcome: Outcome, text: str, **facts: JSON) -> Event:
    """The public ``end`` event: ``text``, with the outcome and any ``facts`` as its data."""
    return Event("end", text, data={**outcome.dump(), **facts})


def reveal_event(facts: Iterable[str], **secrets: JSON) -> Event:
    """The public ``reveal`` event: ``facts`` in one sentence, with the ``secrets`` as its data."""
    return Event("reveal", f"{'; '.join(facts)}.", data=secrets)


def dump_outcome(outcome: Outcome | None) -> JSON:
    """The outcome as stored: ``None`` while the game goes on."""
    return None if outcome is None else outcome.dump()


def load_outcome(data: JSON) -> Outcome | None:
    """The outcome ``dump_outcome`` stored."""
    return None if data is None else Outcome.load(data)
