"""What a player may press: each game's controls, drawn from a view, for every screen.

A game offers the controls of a seat's public move (``Game.controls``, drawn from any view, so the
public one serves a board everyone sees) and of what the seat is asked privately
(``Game.choices``, from its own view: a secret, a hint, a trap's cell). A control's ``action`` is
the text ``Game.parse`` reads, so a screen (Discord's buttons, the terminal's prompt, the web's
replay) draws them and decides no rule itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["NONE", "Control", "Controls", "Row", "Typed"]


@dataclass(frozen=True)
class Control:
    """One thing a player may press, or a disabled one that shows why not."""

    action: str
    """The text ``Game.parse`` reads; for a control that ``opens``, the word that starts what
    it opens (``TRAP``)."""
    label: str
    """What the control says, in the reader's language: ``2,3``, ``4 · taken``."""
    enabled: bool = True
    opens: bool = False
    """Pressing it asks for the rest privately: the choices are the seat's ``Game.choices``."""


Row = tuple[Control, ...]


@dataclass(frozen=True)
class Typed:
    """A move typed whole rather than pressed (a code): what asks for it, and how it is typed."""

    label: str
    """What the control that asks for it says: ``Guess``."""
    shape: str
    """What a valid answer is, in words: ``3 digits, each 1-3``."""
    example: str
    """A valid answer: ``213``."""


@dataclass(frozen=True)
class Controls:
    """A seat's controls for one ask: rows of them (as a board lays them out), and a typed
    answer where the choices are too many to press."""

    rows: tuple[Row, ...] = ()
    typed: Typed | None = None

    def __iter__(self) -> Iterator[Control]:
        """Every control, row by row."""
        for row in self.rows:
            yield from row

    @property
    def actions(self) -> tuple[str, ...]:
        """The actions of the enabled controls that play at once (not the ones that open)."""
        return tuple(c.action for c in self if c.enabled and not c.opens)


NONE = Controls()
"""No controls: the seat is asked nothing of this kind now."""
