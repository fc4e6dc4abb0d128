"""Translatable text: every sentence a member reads is written as ``_("English")``.

The English text is the message id of a gettext catalog; ``{name}`` placeholders are filled
from keyword arguments after translation, so a translation may put them in any order. Which
language ``_`` answers in is the current context's catalog (``reading``), set by whoever
knows the reader: the bot sets the server's language around a public post and the member's
around a private answer. With no catalog set, ``_`` answers in English, which is what the
games, the terminal and the tests of the engines read.
"""

from __future__ import annotations

import gettext
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from babel.numbers import format_decimal, format_percent

__all__ = ["N_", "_", "current", "decimal", "language", "n_", "percent", "read_on", "reading"]

_ENGLISH = gettext.NullTranslations()
_catalog: ContextVar[gettext.NullTranslations] = ContextVar("catalog", default=_ENGLISH)


def _(message: str, /, **params: object) -> str:
    """``message`` in the reader's language, with its ``{placeholders}`` filled."""
    text = _catalog.get().gettext(message)
    return text.format(**params) if params else text


def n_(singular: str, plural: str, n: int, /, **params: object) -> str:
    """The form of a message that fits the number ``n`` (``{n}`` is filled with it)."""
    return _catalog.get().ngettext(singular, plural, n).format(n=n, **params)


def N_(message: str, /) -> str:
    """Marks a message for the catalogs where it is defined; it is translated where shown,
    with ``_(value)``."""
    return message


@contextmanager
def reading(catalog: gettext.NullTranslations) -> Iterator[None]:
    """Within the block, ``_`` and ``n_`` answer from ``catalog``."""
    token = _catalog.set(catalog)
    try:
        yield
    finally:
        _catalog.reset(token)


def read_on(catalog: gettext.NullTranslations) -> None:
    """``_`` and ``n_`` answer from ``catalog`` for the rest of the current context: a task that
    serves one reader alone (the bot's handling of one interaction)."""
    _catalog.set(catalog)


def current() -> gettext.NullTranslations:
    """The catalog ``_`` answers from here."""
    return _catalog.get()


def language() -> str:
    """The language ``_`` answers in here, as its catalog's header names it (``de``,
    ``pt_BR``); ``en`` outside any catalog."""
    return str(_catalog.get().info().get("language") or "en").replace("-", "_")


def decimal(value: float, places: int) -> str:
    """``value`` with ``places`` decimals, as the reader writes it: ``2.50``, ``2,50``."""
    return format_decimal(value, format="0." + "0" * places, locale=language())


def percent(share: float) -> str:
    """A share as a whole percentage, as the reader writes it: ``62%``, ``62 %``."""
    return format_percent(share, locale=language())
