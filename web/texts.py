"""The pages' texts in the reader's language: ``{{ _("English {x}", x=...) }}`` in a template
reads the same catalogs as ``_`` in Python (``bot.i18n``), in the language ``speaking`` set.

The translated text is HTML-escaped and its placeholders filled with escaped values (a
member's name stays text), while markup passed in (``Markup``, a macro's output) stays markup.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from games.words import current


def gettext(message: str, /, **params: object) -> Markup:
    return escape(current().gettext(message)).format(**params)


def ngettext(singular: str, plural: str, n: int, /, **params: object) -> Markup:
    return escape(current().ngettext(singular, plural, n)).format(n=n, **params)
