"""Numbers, dates and command names as the current reader writes them.

Each function reads the language texts are being built in (``current_locale``), so it is
called where the text is made, inside ``speaking``, like ``_``.
"""

from __future__ import annotations

from datetime import datetime

from babel import Locale
from babel.dates import format_datetime
from babel.numbers import format_decimal

from bot.i18n import current_locale, mentions

__all__ = ["command", "decimal", "moment", "number", "signed"]


def _locale() -> Locale:
    return Locale.parse(current_locale().replace("-", "_"))


def number(value: float) -> str:
    """``value`` as the reader writes it, up to two decimals: ``1.5``, ``1,5``, ``1 500``."""
    return format_decimal(value, format="#,##0.##", locale=_locale())


def decimal(value: float) -> str:
    """A rating or score without digit grouping: ``1500``, ``2,5``."""
    return format_decimal(value, format="0.##", locale=_locale())


def signed(value: float) -> str:
    """A change, always with its sign and as a whole number: ``+12``, ``-7``."""
    return format_decimal(value, format="+0;-0", locale=_locale())


def moment(at: datetime) -> str:
    """A date and time in UTC, in the reader's medium style: ``Nov 26, 2026, 9:42 PM``."""
    return format_datetime(at, format="medium", tzinfo=None, locale=_locale())


def command(path: str) -> str:
    """How a text names the slash command ``path`` (``"tournament start"``).

    Every text names a command through a ``{command}`` placeholder filled here, so the
    command mention Discord shows in each member's language (``</tournament start:ID>``) can
    replace it in one place: before the commands are synced it is `` `/tournament start` ``."""
    return mentions.command(path)
