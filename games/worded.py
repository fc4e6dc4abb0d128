"""Texts worded for their reader: once for whoever first asks and again for each reader
(``Worded``), or each time they are read (``Translated``)."""

from __future__ import annotations

from collections.abc import Callable

from games.words import _

__all__ = ["Translated", "TranslatedHelp", "Worded", "again"]


class Worded(str):
    """A text worded now, in the current language, that can be worded again in another.

    The match service words what happened while it saves a move, before anyone knows who
    will read it; a screen that knows its reader calls ``again`` on the texts it is handed,
    inside its reader's ``reading`` block. As a ``str`` it reads as it was first worded, so a
    caller that never asks again (a log line, a test) keeps working.
    """

    words: Callable[[], str]

    def __new__(cls, words: Callable[[], str]) -> Worded:
        text = super().__new__(cls, words())
        text.words = words
        return text

    def again(self) -> str:
        """The text worded now, in the current context's language."""
        return self.words()


def again(text: str) -> str:
    """``text`` in the current language when it is ``Worded``; any other text as it is."""
    return text.again() if isinstance(text, Worded) else text


class Translated:
    """A class attribute read in the reader's language: ``title = Translated(N_("Flag Chase"))``
    reads as ``_("Flag Chase")`` wherever and whenever it is read."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __get__(self, instance: object, owner: type | None = None) -> str:
        return _(self.message)


class TranslatedHelp:
    """Pairs of (what to type, what it does) read with the second in the reader's language:
    ``commands = TranslatedHelp(("TRAP", N_("hide a trap")))``."""

    def __init__(self, *pairs: tuple[str, str]) -> None:
        self.pairs = pairs

    def __get__(self, instance: object, owner: type | None = None) -> tuple[tuple[str, str], ...]:
        return tuple((typed, _(does)) for typed, does in self.pairs)
