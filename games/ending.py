"""The end of a game: its announcement, the reveal of its secrets, and its outcome as stored."""

from __future__ import annotations

from games.base import JSON, Event, Outcome


def end_event(game: str, outcome: Outcome, **facts: JSON) -> Event:
    """The public ``end`` event of ``game``: the outcome and any ``facts`` as its data."""
    return Event("end", data={**outcome.dump(), **facts}, game=game)


def reveal_event(game: str, **secrets: JSON) -> Event:
    """The public ``reveal`` event of ``game``: the ``secrets`` as its data."""
    return Event("reveal", data=secrets, game=game)


def dump_outcome(outcome: Outcome | None) -> JSON:
    """The outcome as stored: ``None`` while the game goes on."""
    return None if outcome is None else outcome.dump()


def load_outcome(data: JSON) -> Outcome | None:
    """The outcome ``dump_outcome`` stored."""
    return None if data is None else Outcome.load(data)
