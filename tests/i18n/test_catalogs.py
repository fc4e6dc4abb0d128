"""Every message the source marks with ``_``/``n_``/``N_`` is translated in every shipped
language, not fuzzy, with the same placeholders as the English."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir

from bot.i18n import LOCALES, po_files, read_catalog

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("games", "bot", "web")
KEYWORDS = {"_": None, "n_": (1, 2), "N_": None}
METHODS = [("**.py", "python"), ("templates/**.html", "jinja2.ext:babel_extract")]
"""Python modules, and the site's Jinja2 templates (``{{ _("...") }}``)."""
PLACEHOLDER = re.compile(r"(?<!\{)\{(\w+)[^{}]*\}")


@cache
def marked() -> dict[str | tuple[str, ...], str]:
    """Each marked message id, with where it was first seen."""
    found: dict[str | tuple[str, ...], str] = {}
    for source in SOURCES:
        for filename, lineno, message, _comments, _context in extract_from_dir(
            ROOT / source, method_map=METHODS, keywords=KEYWORDS
        ):
            found.setdefault(message, f"{source}/{filename}:{lineno}")
    return found


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


def test_the_source_marks_messages() -> None:
    assert len(marked()) > 0


@pytest.mark.parametrize("locale", LOCALES[1:])
def test_every_message_is_translated(locale: str) -> None:
    assert po_files(locale), f"no catalog for {locale}"
    catalog = read_catalog(locale)
    problems = []
    for message_id, where in marked().items():
        key = message_id if isinstance(message_id, str) else message_id[0]
        entry = catalog.get(key)
        if (
            entry is None
            or not entry.string
            or (isinstance(entry.string, tuple) and not all(entry.string))
        ):
            problems.append(f"missing: {key!r} ({where})")
        elif entry.fuzzy:
            problems.append(f"fuzzy: {key!r} ({where})")
        else:
            english = placeholders(" ".join(message_id) if isinstance(message_id, tuple) else key)
            forms = entry.string if isinstance(entry.string, tuple) else (entry.string,)
            if isinstance(message_id, tuple) and len(forms) != catalog.num_plurals:
                # Babel's plural rule for the language decides which form a number reads.
                problems.append(
                    f"{len(forms)} plural forms, {locale} has {catalog.num_plurals}: {key!r}"
                )
            for form in map(str, forms):
                # A singular form may say "one" instead of "{n}".
                got = placeholders(form)
                if got | {"n"} != english | {"n"} or not got <= english:
                    problems.append(f"placeholders differ: {key!r} -> {form!r} ({where})")
    assert not problems, "\n".join(problems[:40]) + f"\n({len(problems)} in all)"


@pytest.mark.parametrize("locale", LOCALES[1:])
def test_catalogs_read_as_translations(locale: str) -> None:
    from bot.i18n import catalog

    translations = catalog(locale)
    for message_id in list(marked())[:50]:
        key = message_id if isinstance(message_id, str) else message_id[0]
        assert translations.gettext(key)
