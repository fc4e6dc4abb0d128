"""Which language ``parlor play`` speaks: ``--language``, else the locale of the environment as
gettext reads it (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``), else English.

Locales are read as Discord names them (``de``, ``pt-BR``) or as the environment writes them
(``de_DE.UTF-8``, ``pt_BR``, ``fr_CA@euro``); a language Parlor does not ship reads English.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.locales import DEFAULT, LOCALES, normalise

ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
"""Read in this order, as gettext does; ``LANGUAGE`` may list several, ``de:fr``."""


def shipped(tag: str) -> str | None:
    """The shipped locale ``tag`` names, or ``None``: ``de_DE.UTF-8`` is ``de``, ``pt_BR`` is
    ``pt-BR``, ``es_MX`` is ``es-ES``, ``en_GB`` is English, ``ja_JP`` and ``C`` are none."""
    name = tag.split(".", 1)[0].split("@", 1)[0].replace("_", "-").strip()
    if not name or name.upper() in ("C", "POSIX"):
        return None
    language, _, region = name.partition("-")
    exact = f"{language.lower()}-{region.upper()}" if region else language.lower()
    for candidate in (exact, language.lower()):
        if candidate in LOCALES:
            return candidate
        if candidate == "en" or candidate.startswith("en-"):
            return DEFAULT
        if (found := normalise(candidate)) != DEFAULT:
            return found
    return None


def from_environment(environ: Mapping[str, str]) -> str:
    """The shipped locale the environment asks for, English when it asks for none."""
    for variable in ENVIRONMENT:
        value = environ.get(variable, "")
        if not value:
            continue
        if variable == "LANGUAGE":
            found = next((s for s in map(shipped, value.split(":")) if s is not None), None)
            if found is not None:
                return found
            continue
        return shipped(value) or DEFAULT
    return DEFAULT
