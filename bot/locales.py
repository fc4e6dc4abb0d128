"""The languages Parlor ships, as Discord names its locales, and which one a reader gets.

No words here, so the match service may ask; ``bot.i18n`` holds the catalogs and hands these on.
"""

from __future__ import annotations

__all__ = ["DEFAULT", "LOCALES", "normalise", "server_language"]

DEFAULT = "en-US"
LOCALES: tuple[str, ...] = ("en-US", "de", "es-ES", "fr", "pt-BR")
"""The languages shipped, as Discord names its locales; English first."""

_FALLBACKS = {"es-419": "es-ES", "en-GB": "en-US", "pt": "pt-BR", "es": "es-ES"}
"""Discord locales read as a shipped one: Latin American Spanish reads Spain's."""


def normalise(locale: object | None) -> str:
    """The shipped language for a Discord locale (``discord.Locale`` or its value), English
    for any other."""
    value = str(getattr(locale, "value", locale or ""))
    if value in LOCALES:
        return value
    return _FALLBACKS.get(value, DEFAULT)


def server_language(chosen: str | None, preferred: str | None) -> str:
    """A server's language for public posts: ``/settings language:`` when set, else the
    preferred locale Discord reports for the server, else English."""
    return normalise(chosen or preferred)
