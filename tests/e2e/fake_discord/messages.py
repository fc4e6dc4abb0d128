"""Message writes checked against Discord's limits before they touch the state.

``embeds_allowed=False`` is a bot without EMBED_LINKS: Discord drops its embeds instead of
refusing them, so a message left with nothing else is refused as empty (50006).
"""

from __future__ import annotations

from typing import Any

from .errors import JSON, FormErrors
from .limits import check_message, check_not_empty
from .records import FakeMessage
from .state import DiscordState


def checked_fields(fields: JSON, *, embeds_allowed: bool = True) -> dict[str, Any]:
    """The fields of a new message, refused (50035, or 50006 if empty) as Discord would."""
    errors = FormErrors()
    if not isinstance(fields, dict):
        errors.add((), "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        errors.raise_if_any()
    assert isinstance(fields, dict)
    checked: dict[str, Any] = fields
    check_message(checked, errors)
    errors.raise_if_any()
    if not embeds_allowed and checked.get("embeds"):
        checked = {**checked, "embeds": []}
    check_not_empty(checked)
    return checked


def checked_edit(
    state: DiscordState, message: FakeMessage, fields: JSON, *, embeds_allowed: bool = True
) -> None:
    """Apply a partial edit, refused as Discord would (including an edit that empties it)."""
    errors = FormErrors()
    if not isinstance(fields, dict):
        errors.add((), "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        errors.raise_if_any()
    assert isinstance(fields, dict)
    check_message(fields, errors, flags=message.flags)
    errors.raise_if_any()
    if not embeds_allowed and fields.get("embeds"):
        fields = {**fields, "embeds": []}
    check_not_empty({**message.fields(), **fields})
    state.edit_message(message, fields)
