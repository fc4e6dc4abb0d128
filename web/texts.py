"""The pages' texts in the reader's language: ``{{ _("English {x}", x=...) }}`` in a template
reads the same catalogs as ``_`` in Python (``bot.i18n``), in the language ``speaking`` set.

The translated text is HTML-escaped and its placeholders filled with escaped values (a
member's name stays text), while markup passed in (``Markup``, a macro's output) stays markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

from babel import Locale
from babel.dates import format_date, format_time
from babel.lists import format_list
from markupsafe import Markup, escape

from bot.i18n import current_locale
from games.words import current


def gettext(message: str, /, **params: object) -> Markup:
    return escape(current().gettext(message)).format(**params)


def ngettext(singular: str, plural: str, n: int, /, **params: object) -> Markup:
    return escape(current().ngettext(singular, plural, n)).format(n=n, **params)


def when(at: datetime) -> str:
    """When a match finished (UTC), short enough for a phone's table: ``Jan 1, 2026, 12:30 PM``."""
    locale = Locale.parse(current_locale().replace("-", "_"))
    pattern = str(locale.datetime_formats["medium"])  # "{1}, {0}": the date, then the time
    time = format_time(at, "short", tzinfo=None, locale=locale)
    return pattern.format(time, format_date(at, "medium", locale=locale))


def days(each: Sequence[date]) -> str:
    """Days as the season pages write them (``2026-04-01``), listed as the reader's language
    lists things: ``2026-02-01, 2026-03-01, and 2026-04-01``."""
    locale = Locale.parse(current_locale().replace("-", "_"))
    return format_list([day.isoformat() for day in each], locale=locale)
