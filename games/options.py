"""Checking the options a challenge gives a game."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from games.base import JSON, InvalidOptions
from games.words import _


def unknown_option(options: Mapping[str, JSON], known: Collection[str]) -> str | None:
    """The first option name, alphabetically, that is not ``known``; ``None`` if all are."""
    unknown = sorted(set(options) - set(known))
    return unknown[0] if unknown else None


def check_no_options(options: Mapping[str, JSON], title: str, fixed: str) -> None:
    """Raise ``InvalidOptions`` if a game without options (``title``) was given any.

    ``fixed`` says, in the reader's language, what the options would have changed, e.g.
    "the grid is always 5x5".
    """
    name = unknown_option(options, ())
    if name is not None:
        raise InvalidOptions(
            _(
                "{title} has no options (got {option}): {fixed}.",
                title=title,
                option=repr(name),
                fixed=fixed,
            )
        )
