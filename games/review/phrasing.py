"""A review's words as data: each text a review holds remembers how it was written, so a review
is judged once and worded in any reader's language afterwards, cheaply (``worded``).

The judges write with this module's ``_``, ``n_``, ``decimal`` and ``percent``, which answer a
``Phrase``: a ``str`` holding the English text (what the games' tests and the terminal read), with
the message id and its values beside it. ``Phrase.word`` writes it again in the current
catalog's language (``games.words``), its values worded first; ``dump`` and ``load`` keep it as
plain JSON in a stored review.
"""

from __future__ import annotations

import gettext
import importlib
from collections.abc import Callable, Mapping
from typing import Any

from games import words
from games.base import JSON

__all__ = ["N_", "Phrase", "_", "call", "decimal", "dump", "load", "n_", "percent", "word"]

N_ = words.N_

_CALLABLE_FROM = "games."
"""Only a function of the games may word a ``call`` phrase (a stored review names it)."""


class Phrase(str):
    """English text, and how to write it in another language.

    ``kind`` is ``text`` (``msgid`` with ``params``), ``plural`` (``msgid``, ``plural``, ``n``),
    ``decimal`` / ``percent`` (a number in ``params["value"]``, ``params["places"]``), or
    ``call`` (``msgid`` names a function of the games, ``params["args"]`` its arguments).
    """

    kind: str
    msgid: str
    plural: str | None
    n: int | None
    params: dict[str, Any]

    def __new__(
        cls,
        english: str,
        kind: str,
        msgid: str,
        params: Mapping[str, Any],
        plural: str | None = None,
        n: int | None = None,
    ) -> Phrase:
        made = super().__new__(cls, english)
        made.kind, made.msgid, made.plural, made.n = kind, msgid, plural, n
        made.params = dict(params)
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (Phrase, (str(self), self.kind, self.msgid, self.params, self.plural, self.n))

    def word(self) -> str:
        """The text in the current catalog's language."""
        if self.kind == "decimal":
            return words.decimal(self.params["value"], self.params["places"])
        if self.kind == "percent":
            return words.percent(self.params["value"])
        if self.kind == "call":
            return str(_function(self.msgid)(*self.params["args"]))
        params = {name: word(value) for name, value in self.params.items()}
        if self.kind == "plural":
            assert self.plural is not None and self.n is not None
            return words.n_(self.msgid, self.plural, self.n, **params)
        return words._(self.msgid, **params)


def _english(function: Callable[..., object], *args: Any, **params: Any) -> str:
    """What ``function`` writes with no catalog: the English every phrase holds."""
    with words.reading(_ENGLISH):
        return str(function(*args, **params))


_ENGLISH = gettext.NullTranslations()


def _(message: str, /, **params: object) -> Phrase:
    """``message`` with its ``{placeholders}`` filled, in English, kept for wording later."""
    english = _english(words._, message, **params)
    return Phrase(english, "text", message, params)


def n_(singular: str, plural: str, n: int, /, **params: object) -> Phrase:
    """The form of a message that fits ``n``, in English, kept for wording later."""
    english = _english(words.n_, singular, plural, n, **params)
    return Phrase(english, "plural", singular, params, plural, n)


def decimal(value: float, places: int) -> Phrase:
    """``value`` with ``places`` decimals: ``2.50`` in English, ``2,50`` in German."""
    return Phrase(
        _english(words.decimal, value, places), "decimal", "", {"value": value, "places": places}
    )


def percent(share: float) -> Phrase:
    """A share as a whole percentage: ``62%`` in English."""
    return Phrase(_english(words.percent, share), "percent", "", {"value": share})


def call(function: Callable[..., str], *args: JSON) -> Phrase:
    """What ``function(*args)`` of the games writes in the reader's language (``hint_words``)."""
    path = f"{function.__module__}:{function.__qualname__}"
    if not path.startswith(_CALLABLE_FROM):
        raise ValueError(f"{path} is not a function of the games")
    return Phrase(_english(function, *args), "call", path, {"args": list(args)})


def _function(path: str) -> Callable[..., Any]:
    if not path.startswith(_CALLABLE_FROM):
        raise ValueError(f"{path} is not a function of the games")
    module, name = path.split(":")
    found: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return found


def word(text: object) -> str:
    """``text`` in the current catalog's language, if it is a ``Phrase``; as it is otherwise."""
    return text.word() if isinstance(text, Phrase) else str(text)


def dump(text: str) -> JSON:
    """``text`` as JSON: a plain string, or a phrase's parts."""
    if not isinstance(text, Phrase):
        return text
    return {
        "en": str(text),
        "kind": text.kind,
        "msgid": text.msgid,
        "plural": text.plural,
        "n": text.n,
        "params": {
            name: dump(value) if isinstance(value, str) else value
            for name, value in text.params.items()
        },
    }


def load(data: JSON) -> str:
    """The text ``dump`` made."""
    if isinstance(data, str):
        return data
    params = {
        name: load(value) if isinstance(value, dict | str) else value
        for name, value in data["params"].items()
    }
    return Phrase(data["en"], data["kind"], data["msgid"], params, data["plural"], data["n"])
