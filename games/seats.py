"""Pairs held one entry per seat (codes, Crowns, traps, records): changing and showing them."""

from __future__ import annotations

from typing import TypeVar

from games.base import Seat

T = TypeVar("T")


def with_seat(pair: tuple[T, T], seat: Seat, value: T) -> tuple[T, T]:
    """``pair`` with ``seat``'s entry replaced by ``value``."""
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def seen_by(pair: tuple[T, T], viewer: Seat | None, over: bool) -> tuple[T | None, T | None]:
    """Each seat's secret as ``viewer`` may know it: only its own, or both once ``over``."""
    return (
        pair[0] if over or viewer == 0 else None,
        pair[1] if over or viewer == 1 else None,
    )
