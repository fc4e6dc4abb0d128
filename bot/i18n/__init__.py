"""The languages Parlor speaks: its catalogs, and which reader gets which language.

Catalogs are the ``.po`` files under ``locales/<locale>/``, one file per part of the bot
(``games.po``, ``matches.po``, ...), read with Babel when first needed: nothing is compiled
ahead, so an edited catalog is what the next start reads. English is the message ids
themselves and needs no catalog.

``speaking(locale)`` sets the language of the texts built inside it (``games.words._``).
Public posts use the server's language (``server_language``), private answers the member's
own locale (``normalise(interaction.locale)``).
"""

from __future__ import annotations

import gettext
import io
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from bot.locales import DEFAULT, LOCALES, normalise, server_language
from games.words import N_, _, language, n_, reading

__all__ = [
    "DEFAULT",
    "LANGUAGE_NAMES",
    "LOCALES",
    "N_",
    "_",
    "catalog",
    "current_locale",
    "n_",
    "name_in",
    "normalise",
    "server_language",
    "speaking",
]

LOCALES_DIR = Path(__file__).with_name("locales")
LANGUAGE_NAMES: dict[str, str] = {
    "en-US": N_("English"),
    "de": N_("German"),
    "es-ES": N_("Spanish"),
    "fr": N_("French"),
    "pt-BR": N_("Brazilian Portuguese"),
}
"""Each shipped language's name, translated where it is shown (``_(LANGUAGE_NAMES[x])``)."""


def name_in(names: Mapping[str, str], key: str) -> str:
    """``key``'s name from a table of ``N_``-marked names, in the reader's language; a key the
    table lacks (a value stored by another release) as it is."""
    return _(names[key]) if key in names else key


def po_files(locale: str) -> list[Path]:
    return sorted((LOCALES_DIR / locale).glob("*.po"))


def read_catalog(locale: str) -> Catalog:
    """Every ``.po`` file of ``locale`` as one Babel catalog."""
    merged = Catalog(locale=locale.replace("-", "_"))
    for path in po_files(locale):
        with path.open("rb") as handle:
            part = read_po(handle, locale=locale.replace("-", "_"))
        for message in part:
            if message.id:
                merged[message.id] = message
    return merged


@cache
def catalog(locale: str) -> gettext.NullTranslations:
    """The translations of a shipped locale, read from its ``.po`` files once per process.

    Fuzzy and empty entries are left out, so they read as English."""
    locale = normalise(locale)
    if locale == DEFAULT:
        return gettext.NullTranslations()
    merged = read_catalog(locale)
    buffer = io.BytesIO()
    write_mo(buffer, merged, use_fuzzy=False)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


@contextmanager
def speaking(locale: object | None) -> Iterator[None]:
    """Texts built inside the block are in ``locale`` (normalised)."""
    with reading(catalog(normalise(locale))):
        yield


def current_locale() -> str:
    """The shipped locale texts are built in here (English outside ``speaking``)."""
    return normalise(language().replace("_", "-"))
