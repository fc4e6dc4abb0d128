"""English left over in a translated text: the one check the language tests share.

A word is English left over in ``locale`` when an English message (a msgid) of the catalogs a
test reads uses it and no translation of ``locale`` does (``Herausforderung`` is German,
``challenge`` is not). A message copied into its msgstr, or a clause of it left in English,
still reads as English (``own_words``). A word a language keeps from English on purpose in one
translation only is named by the test that reads it (``Leftover.shared``).

What the reader did not get from a catalog is left out before the words are read: mentions,
timestamps, command mentions, code spans (commands, typed answers), links and placeholders, and
where a test asks, quoted inputs (``'9 9'``, ``'row'``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from babel.messages.catalog import Message
from babel.messages.pofile import read_po

from bot.i18n import LOCALES_DIR, po_files

MARKUP = re.compile(
    r"<(?:@[!&]?|#)\d+>"  # a member, role or channel mention
    r"|<t:[^>]*>"  # a timestamp
    r"|</[^>]+>"  # a command mention: Discord shows it in each member's language
    r"|`[^`]*`"  # a code span: a command, an answer to type
    r"|<?https?://[^\s>)]+>?"  # a link
    r"|\{[^{}]*\}"  # a placeholder
)
QUOTED = re.compile(r"(?<!\w)'[^']*'(?!\w)")
"""A quoted input or word the games read: ``'9 9'``, ``'row'``, ``'MOVE r c'``."""
WORD = re.compile(r"[^\W\d_]{2,}")


def words(text: str, *, quoted: bool = False) -> set[str]:
    """The words of ``text`` in lower case, Discord markup (and quoted inputs) left out, and
    those in capitals: the commands the games read (``MOVE``, ``TRAP``) and abbreviations."""
    bare = MARKUP.sub(" ", text)
    if quoted:
        bare = QUOTED.sub(" ", bare)
    return {word.lower() for word in WORD.findall(bare) if not word.isupper()}


def _forms(text: str | tuple[str, ...] | list[str] | None) -> set[str]:
    forms = text if isinstance(text, tuple | list) else (text or "",)
    return {word for form in forms for word in words(str(form))}


def _messages(path: Path, locale: str) -> list[Message]:
    with path.open("rb") as handle:
        return [m for m in read_po(handle, locale=locale.replace("-", "_")) if m.id]


@cache
def own_words(locale: str) -> frozenset[str]:
    """The words the translations of ``locale`` use in any of its catalogs.

    A word a translation shares with its own msgid (``Bot``, ``Server``) is the language's
    where two translations or more keep it: one alone may be a clause left in English. A msgstr
    that is its msgid again, or a fuzzy one, is no translation."""
    own: set[str] = set()
    kept: Counter[str] = Counter()
    for path in po_files(locale):
        for message in _messages(path, locale):
            if not message.fuzzy and message.string != message.id:
                said, english = _forms(message.string), _forms(message.id)
                own |= said - english
                kept.update(said & english)
    return frozenset(own | {word for word, times in kept.items() if times >= 2})


@cache
def english_only(locale: str, domains: tuple[str, ...]) -> frozenset[str]:
    """The words of the English messages of ``domains`` that ``locale`` does not use."""
    paths = [LOCALES_DIR / locale / f"{domain}.po" for domain in domains]
    english = {w for path in paths for m in _messages(path, locale) for w in _forms(m.id)}
    return frozenset(english - own_words(locale))


@dataclass(frozen=True)
class Leftover:
    """The check for the texts worded from ``domains`` (the ``.po`` files' names).

    ``shared`` holds, per locale, the words it keeps from English in one translation only
    (French's "classement final"), which ``own_words`` cannot tell from a slip; ``quoted``
    leaves out quoted inputs."""

    domains: tuple[str, ...]
    shared: Mapping[str, frozenset[str]] = field(default_factory=dict)
    quoted: bool = False

    def english(self, text: str, locale: str) -> set[str]:
        """The words of ``text`` that are English left over in ``locale``."""
        left = words(text, quoted=self.quoted) & english_only(locale, self.domains)
        return left - self.shared.get(locale, frozenset())

    def assert_none(self, locale: str, texts: Iterable[str | None]) -> None:
        for text in texts:
            left = self.english(text or "", locale)
            assert not left, f"English in {locale}: {sorted(left)} in {text!r}"
