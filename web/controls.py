"""What the player to act could play in a replayed position: the game's controls for its public
move (``Game.controls``), drawn from the public view as the board is, so they hold no secret, and
the one the player went on to choose marked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.base import AnyGame, Seat
from games.controls import Control, Typed


@dataclass(frozen=True)
class ShownControl:
    label: str
    enabled: bool
    played: bool


@dataclass(frozen=True)
class Offered:
    """What ``seat`` could press, row by row, or type whole."""

    seat: Seat
    rows: list[list[ShownControl]]
    typed: Typed | None


def offered(engine: AnyGame, state: Any, played: tuple[Seat | None, str]) -> Offered | None:
    """The public move to be made in ``state``, if one is, with the control of ``played`` (the
    next step's seat and action) marked; ``None`` while only private choices are awaited."""
    public = engine.view(state, None)
    for seat in sorted(engine.to_act(state)):
        controls = engine.controls(public, seat)
        if controls.rows or controls.typed is not None:
            chosen = played[1] if played[0] == seat else ""
            rows = [[_shown(control, chosen) for control in row] for row in controls.rows]
            return Offered(seat, rows, controls.typed)
    return None


def _shown(control: Control, played: str) -> ShownControl:
    """A control opening private choices counts as played when one of them was (a trap)."""
    chosen = played == control.action or (
        control.opens and played.split(maxsplit=1)[:1] == [control.action]
    )
    return ShownControl(control.label, control.enabled, bool(played) and chosen)
