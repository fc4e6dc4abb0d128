"""Application commands: Discord's rules for registering them, the registry, and invocations.

Registration is checked the way Discord checks it (names, descriptions, 25 options and choices per
level, where subcommands and groups may sit, which option types take choices, ranges or lengths,
and the same for every localised name and description; ``integration_types`` and ``contexts``
as ``installs.py`` reads them), and an invocation is only built if
Discord's own client would let a user send it. Listing the commands gives the localisation
dictionaries only with ``with_localizations=true``, as Discord does.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import regex

from .errors import (
    JSON,
    UNKNOWN_APPLICATION_COMMAND,
    FormErrors,
    InvalidInvocation,
    not_found,
)
from .installs import DEFAULT_INTEGRATION_TYPES, check_install_fields
from .limits import LOCALES, check_length, check_list

# Command types.
CHAT_INPUT = 1
USER_COMMAND = 2
MESSAGE_COMMAND = 3

# Option types.
SUB_COMMAND = 1
SUB_COMMAND_GROUP = 2
STRING = 3
INTEGER = 4
BOOLEAN = 5
USER = 6
CHANNEL = 7
ROLE = 8
MENTIONABLE = 9
NUMBER = 10
ATTACHMENT = 11
SNOWFLAKE_TYPES = frozenset({USER, CHANNEL, ROLE, MENTIONABLE, ATTACHMENT})
CHOICE_TYPES = frozenset({STRING, INTEGER, NUMBER})

NAME_PATTERN = regex.compile(r"^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$")
"""Discord's rule for a chat-input command's or option's name, localised ones included."""
NAME_MAX = 32
DESCRIPTION_MAX = 100
OPTIONS_MAX = 25
CHOICES_MAX = 25
CHOICE_NAME_MAX = 100
STRING_CHOICE_VALUE_MAX = 100
STRING_OPTION_MAX = 6000
COMMAND_TEXT_MAX = 4000
CHAT_INPUT_COMMANDS_MAX = 100
CONTEXT_MENU_COMMANDS_MAX = 5
SAFE_INTEGER = 2**53

SnowflakeResolver = Callable[[int, object, Mapping[str, JSON]], str]
"""Turns a user/channel/role value given by a test into its id, adding it to ``resolved``."""


def check_name(errors: FormErrors, path: Sequence[str | int], name: object) -> None:
    """A chat-input command or option name: 1-32 word characters or dashes, lower case."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name) or name != name.lower():
        errors.add(path, "APPLICATION_COMMAND_INVALID_NAME", f"Command name is invalid: {name!r}")


def check_localizations(
    errors: FormErrors,
    path: Sequence[str | int],
    value: object,
    check: Callable[[FormErrors, Sequence[str | int], object], None],
) -> None:
    """A ``name_localizations`` or ``description_localizations`` dictionary: known locales
    only, each text checked as the field it localises (``check``)."""
    if value is None:
        return
    if not isinstance(value, dict):
        errors.add(path, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        return
    for locale, text in value.items():
        where = (*path, locale)
        if locale not in LOCALES:
            errors.add(where, "BASE_TYPE_CHOICES", f"Value must be one of {sorted(LOCALES)}.")
        else:
            check(errors, where, text)


def _check_description(errors: FormErrors, path: Sequence[str | int], text: object) -> None:
    check_length(errors, path, text, minimum=1, maximum=DESCRIPTION_MAX, required=True)


def _check_choice_name(errors: FormErrors, path: Sequence[str | int], text: object) -> None:
    check_length(errors, path, text, minimum=1, maximum=CHOICE_NAME_MAX, required=True)


def _check_menu_name(errors: FormErrors, path: Sequence[str | int], text: object) -> None:
    check_length(errors, path, text, minimum=1, maximum=NAME_MAX, required=True)


def _check_localized_duplicates(
    siblings: Sequence[object],
    errors: FormErrors,
    path: tuple[str | int, ...],
    code: str,
    *,
    by_type: bool = False,
) -> None:
    """No two siblings (of one command type, ``by_type``) share a name in any locale; a sibling
    without a localisation is read by its default name there."""
    nodes = [(i, n) for i, n in enumerate(siblings) if isinstance(n, dict)]
    locales = {
        locale
        for _index, node in nodes
        if isinstance(node.get("name_localizations"), dict)
        for locale in node["name_localizations"]
    }
    for locale in sorted(locales):
        seen: set[tuple[object, object]] = set()
        for index, node in nodes:
            names = node.get("name_localizations") or {}
            kind = node.get("type", CHAT_INPUT) if by_type else None
            key = (kind, names.get(locale, node.get("name")))
            if key in seen:
                where = (*path, index, "name_localizations", locale)
                errors.add(where, code, "Duplicate name")
            seen.add(key)


def check_commands(commands: object) -> FormErrors:
    """Check a bulk overwrite (a list of commands); return the errors found, keyed by index."""
    errors = FormErrors()
    if not isinstance(commands, list):
        errors.add((), "BASE_TYPE_LIST", "Must be an array.")
        return errors
    seen: set[tuple[object, object]] = set()
    counts = {CHAT_INPUT: 0, USER_COMMAND: 0, MESSAGE_COMMAND: 0}
    for index, command in enumerate(commands):
        if not isinstance(command, dict):
            errors.add((index,), "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        check_command(command, errors, (index,))
        key = (command.get("type", CHAT_INPUT), command.get("name"))
        if key in seen:
            errors.add((index, "name"), "APPLICATION_COMMANDS_DUPLICATE_NAME", "Duplicate name")
        seen.add(key)
        kind = command.get("type", CHAT_INPUT)
        if kind in counts:
            counts[kind] += 1
    duplicate = "APPLICATION_COMMANDS_DUPLICATE_NAME"
    _check_localized_duplicates(commands, errors, (), duplicate, by_type=True)
    too_many = counts[CHAT_INPUT] > CHAT_INPUT_COMMANDS_MAX or any(
        counts[kind] > CONTEXT_MENU_COMMANDS_MAX for kind in (USER_COMMAND, MESSAGE_COMMAND)
    )
    if too_many:
        errors.add((), "APPLICATION_COMMAND_TOO_MANY", "Maximum number of application commands")
    return errors


def check_command(
    command: Mapping[str, JSON], errors: FormErrors, path: tuple[str | int, ...]
) -> None:
    """Check one command (chat input or context menu) and everything under it."""
    kind = command.get("type", CHAT_INPUT)
    check_install_fields(command, errors, path)
    if kind == CHAT_INPUT:
        check_name(errors, (*path, "name"), command.get("name"))
        check_length(
            errors,
            (*path, "description"),
            command.get("description"),
            minimum=1,
            maximum=DESCRIPTION_MAX,
            required=True,
        )
        _check_texts(command, errors, path)
        _check_options(command.get("options"), errors, (*path, "options"), depth=0)
        if command_text_length(command) > COMMAND_TEXT_MAX:
            message = f"Command exceeds maximum size ({COMMAND_TEXT_MAX})"
            errors.add(path, "APPLICATION_COMMAND_TOO_LARGE", message)
    elif kind in (USER_COMMAND, MESSAGE_COMMAND):
        check_length(
            errors, (*path, "name"), command.get("name"), minimum=1, maximum=NAME_MAX, required=True
        )
        check_localizations(
            errors,
            (*path, "name_localizations"),
            command.get("name_localizations"),
            _check_menu_name,
        )
        if command.get("description"):
            message = "Context menu commands cannot have a description"
            errors.add(
                (*path, "description"), "APPLICATION_COMMAND_CONTEXT_MENU_DESCRIPTION", message
            )
        if command.get("options"):
            message = "Context menu commands cannot have options"
            errors.add((*path, "options"), "APPLICATION_COMMAND_CONTEXT_MENU_OPTIONS", message)
    else:
        errors.add((*path, "type"), "BASE_TYPE_CHOICES", "Value must be one of (1, 2, 3).")


def _check_texts(node: Mapping[str, JSON], errors: FormErrors, path: Sequence[str | int]) -> None:
    """A chat-input command's or option's localised name and description."""
    names, descriptions = node.get("name_localizations"), node.get("description_localizations")
    check_localizations(errors, (*path, "name_localizations"), names, check_name)
    check_localizations(
        errors, (*path, "description_localizations"), descriptions, _check_description
    )


def _longest(node: Mapping[str, JSON], key: str) -> int:
    """A text's length toward the size limit: its longest localisation, the default included."""
    localized = node.get(f"{key}_localizations")
    texts = [node.get(key) or "", *(localized.values() if isinstance(localized, dict) else ())]
    return max(len(str(text)) for text in texts)


def command_text_length(node: Mapping[str, JSON]) -> int:
    """Characters of names, descriptions and choices that count toward a command's 4000 (each
    text counted in its longest language)."""
    total = _longest(node, "name") + _longest(node, "description")
    for choice in node.get("choices") or []:
        total += _longest(choice, "name") + len(str(choice.get("value", "")))
    return total + sum(command_text_length(option) for option in node.get("options") or [])


def _check_options(
    options: object, errors: FormErrors, path: tuple[str | int, ...], *, depth: int
) -> None:
    checked = check_list(errors, path, options, maximum=OPTIONS_MAX)
    names: set[object] = set()
    nested = [o for o in checked if isinstance(o, dict) and o.get("type") in (1, 2)]
    if nested and len(nested) != len(checked):
        message = "Sub-commands and groups cannot be mixed with other option types"
        errors.add(path, "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", message)
    optional_seen = False
    for index, option in enumerate(checked):
        where = (*path, index)
        if not isinstance(option, dict):
            errors.add(where, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        if option.get("name") in names:
            errors.add(
                (*where, "name"), "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS", "Duplicate"
            )
        names.add(option.get("name"))
        if option.get("type") not in (SUB_COMMAND, SUB_COMMAND_GROUP):
            if option.get("required"):
                if optional_seen:
                    message = "Required options must be placed before non-required options"
                    errors.add(where, "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID", message)
            else:
                optional_seen = True
        _check_option(option, errors, where, depth=depth)
    duplicate = "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS"
    _check_localized_duplicates(checked, errors, path, duplicate)


def _check_option(
    option: Mapping[str, JSON], errors: FormErrors, path: tuple[str | int, ...], *, depth: int
) -> None:
    kind = option.get("type")
    check_name(errors, (*path, "name"), option.get("name"))
    check_length(
        errors,
        (*path, "description"),
        option.get("description"),
        minimum=1,
        maximum=DESCRIPTION_MAX,
        required=True,
    )
    _check_texts(option, errors, path)
    if kind not in range(SUB_COMMAND, ATTACHMENT + 1):
        errors.add((*path, "type"), "BASE_TYPE_CHOICES", "Value must be one of (1, ..., 11).")
        return
    if kind == SUB_COMMAND_GROUP:
        if depth > 0:
            message = "Sub-command groups can only be nested at the top level"
            errors.add((*path, "type"), "APPLICATION_COMMAND_OPTION_TYPE_INVALID", message)
        children = option.get("options") or []
        if any(isinstance(c, dict) and c.get("type") != SUB_COMMAND for c in children):
            message = "Sub-command groups may only contain sub-commands"
            errors.add((*path, "options"), "APPLICATION_COMMAND_OPTION_TYPE_INVALID", message)
        _check_options(children, errors, (*path, "options"), depth=depth + 1)
        return
    if kind == SUB_COMMAND:
        if depth > 1:
            message = "Sub-commands cannot be nested this deep"
            errors.add((*path, "type"), "APPLICATION_COMMAND_OPTION_TYPE_INVALID", message)
        children = option.get("options") or []
        if any(isinstance(c, dict) and c.get("type") in (1, 2) for c in children):
            message = "Sub-commands cannot contain sub-commands or groups"
            errors.add((*path, "options"), "APPLICATION_COMMAND_OPTION_TYPE_INVALID", message)
        _check_options(children, errors, (*path, "options"), depth=depth + 1)
        return
    if option.get("options"):
        message = "Only sub-commands and groups have options"
        errors.add((*path, "options"), "APPLICATION_COMMAND_OPTION_TYPE_INVALID", message)
    _check_choices(option, errors, path)
    _check_bounds(option, errors, path)


def _check_choices(
    option: Mapping[str, JSON], errors: FormErrors, path: tuple[str | int, ...]
) -> None:
    kind = option.get("type")
    choices = option.get("choices")
    if choices is None:
        return
    if kind not in CHOICE_TYPES:
        message = "Only string, integer and number options can have choices"
        errors.add((*path, "choices"), "APPLICATION_COMMAND_OPTION_CHOICES_INVALID", message)
        return
    if option.get("autocomplete") and choices:
        message = "Autocomplete cannot be set with choices"
        errors.add((*path, "autocomplete"), "APPLICATION_COMMAND_AUTOCOMPLETE_INVALID", message)
    checked = check_list(errors, (*path, "choices"), choices, maximum=CHOICES_MAX)
    for index, choice in enumerate(checked):
        where = (*path, "choices", index)
        if not isinstance(choice, dict):
            errors.add(where, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        check_length(
            errors,
            (*where, "name"),
            choice.get("name"),
            minimum=1,
            maximum=CHOICE_NAME_MAX,
            required=True,
        )
        check_localizations(
            errors,
            (*where, "name_localizations"),
            choice.get("name_localizations"),
            _check_choice_name,
        )
        value = choice.get("value")
        if kind == STRING:
            check_length(
                errors,
                (*where, "value"),
                value,
                minimum=1,
                maximum=STRING_CHOICE_VALUE_MAX,
                required=True,
            )
        elif not _is_number(value, integer=kind == INTEGER):
            message = f'Value "{value}" is not {"int" if kind == INTEGER else "a number"}.'
            errors.add((*where, "value"), "NUMBER_TYPE_COERCE", message)


def _check_bounds(
    option: Mapping[str, JSON], errors: FormErrors, path: tuple[str | int, ...]
) -> None:
    kind = option.get("type")
    for key in ("min_value", "max_value"):
        value = option.get(key)
        if value is None:
            continue
        if kind not in (INTEGER, NUMBER):
            message = "Only integer and number options can have a range"
            errors.add((*path, key), "APPLICATION_COMMAND_OPTION_RANGE_INVALID", message)
        elif not _is_number(value, integer=kind == INTEGER):
            message = f'Value "{value}" is not {"int" if kind == INTEGER else "a number"}.'
            errors.add((*path, key), "NUMBER_TYPE_COERCE", message)
    low, high = option.get("min_value"), option.get("max_value")
    if isinstance(low, int | float) and isinstance(high, int | float) and low > high:
        message = "min_value must be less than or equal to max_value"
        errors.add((*path, "min_value"), "APPLICATION_COMMAND_OPTION_RANGE_INVALID", message)
    for key, minimum in (("min_length", 0), ("max_length", 1)):
        value = option.get(key)
        if value is None:
            continue
        if kind != STRING:
            message = "Only string options can have a length"
            errors.add((*path, key), "APPLICATION_COMMAND_OPTION_LENGTH_INVALID", message)
        elif not isinstance(value, int) or isinstance(value, bool) or not minimum <= value <= 6000:
            message = f"Must be between {minimum} and {STRING_OPTION_MAX}."
            errors.add((*path, key), "NUMBER_TYPE_MAX", message)
    if option.get("channel_types") is not None and kind != CHANNEL:
        message = "Only channel options can have channel types"
        errors.add(
            (*path, "channel_types"), "APPLICATION_COMMAND_OPTION_CHANNEL_TYPES_INVALID", message
        )


def _is_number(value: object, *, integer: bool) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if integer and not isinstance(value, int):
        return False
    return math.isfinite(value) and abs(value) <= SAFE_INTEGER


class CommandRegistry:
    """The application's registered commands: global ones and each guild's."""

    def __init__(self, application_id: int, new_id: Callable[[], int]) -> None:
        self.application_id = application_id
        self._new_id = new_id
        self._scopes: dict[int | None, list[dict[str, JSON]]] = {}

    def commands(self, guild_id: int | None = None) -> list[dict[str, JSON]]:
        """The commands registered globally (``None``) or in one guild, as Discord returns them."""
        return copy.deepcopy(self._scopes.get(guild_id, []))

    def overwrite(self, guild_id: int | None, payload: object) -> list[dict[str, JSON]]:
        """Replace a scope's commands (bulk overwrite); keeps the id of a command kept by name."""
        check_commands(payload).raise_if_any()
        assert isinstance(payload, list)
        old = {(c["type"], c["name"]): c for c in self._scopes.get(guild_id, [])}
        stored = [self._store(guild_id, command, old) for command in payload]
        self._scopes[guild_id] = stored
        return copy.deepcopy(stored)

    def upsert(self, guild_id: int | None, payload: object) -> dict[str, JSON]:
        """Create one command, or replace the scope's command of the same type and name."""
        errors = FormErrors()
        if not isinstance(payload, dict):
            errors.add((), "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            errors.raise_if_any()
        assert isinstance(payload, dict)
        check_command(payload, errors, ())
        errors.raise_if_any()
        scope = self._scopes.setdefault(guild_id, [])
        old = {(c["type"], c["name"]): c for c in scope}
        stored = self._store(guild_id, payload, old)
        scope[:] = [c for c in scope if c["id"] != stored["id"]] + [stored]
        return copy.deepcopy(stored)

    def command(self, guild_id: int | None, command_id: int) -> dict[str, JSON]:
        """One registered command by id, or a 404 "Unknown application command"."""
        for command in self._scopes.get(guild_id, []):
            if int(command["id"]) == command_id:
                return command
        raise not_found(UNKNOWN_APPLICATION_COMMAND, "Unknown application command")

    def edit(self, guild_id: int | None, command_id: int, changes: Mapping[str, JSON]) -> JSON:
        """Apply a partial edit to one command, checked like a new registration."""
        current = self.command(guild_id, command_id)
        edited = {**current, **{k: v for k, v in changes.items() if k not in ("id", "type")}}
        errors = FormErrors()
        check_command(edited, errors, ())
        errors.raise_if_any()
        current.update(copy.deepcopy(edited))
        if current.get("integration_types") is None:
            current["integration_types"] = list(DEFAULT_INTEGRATION_TYPES)
        current["version"] = str(self._new_id())
        return copy.deepcopy(current)

    def delete(self, guild_id: int | None, command_id: int) -> None:
        """Remove one command."""
        command = self.command(guild_id, command_id)
        self._scopes[guild_id].remove(command)

    def find(self, name: str, guild_id: int | None) -> dict[str, JSON] | None:
        """The chat-input command a user in ``guild_id`` (or a DM, ``None``) reaches by ``name``."""
        scopes = [guild_id, None] if guild_id is not None else [None]
        for scope in scopes:
            for command in self._scopes.get(scope, []):
                if command["type"] == CHAT_INPUT and command["name"] == name:
                    return command
        return None

    def _store(
        self,
        guild_id: int | None,
        payload: Mapping[str, JSON],
        old: Mapping[tuple[object, object], Mapping[str, JSON]],
    ) -> dict[str, JSON]:
        kind = payload.get("type", CHAT_INPUT)
        previous = old.get((kind, payload.get("name")))
        stored: dict[str, JSON] = {
            "default_member_permissions": None,
            "dm_permission": True,
            "contexts": None,
            "integration_types": [0],
            "nsfw": False,
            "name_localizations": None,
            "description_localizations": None,
            "options": [],
            **copy.deepcopy(dict(payload)),
            "id": previous["id"] if previous else str(self._new_id()),
            "application_id": str(self.application_id),
            "version": str(self._new_id()),
            "type": kind,
            "description": payload.get("description") or "",
        }
        if stored["integration_types"] is None:
            stored["integration_types"] = list(DEFAULT_INTEGRATION_TYPES)
        if guild_id is not None:
            stored["guild_id"] = str(guild_id)
        return stored


def listed(
    commands: list[dict[str, JSON]], *, with_localizations: bool, locale: str | None
) -> list[dict[str, JSON]]:
    """Commands as a list request returns them: the localisation dictionaries only when asked
    for (``with_localizations``); otherwise ``name_localized``/``description_localized`` in
    the requester's ``locale`` (``X-Discord-Locale``) where the command has one."""
    if with_localizations:
        return commands
    return [_localized(command, locale) for command in commands]


def _localized(node: Mapping[str, JSON], locale: str | None) -> dict[str, JSON]:
    shown = {k: v for k, v in node.items() if not k.endswith("_localizations")}
    for key in ("name", "description"):
        text = (node.get(f"{key}_localizations") or {}).get(locale or "")
        if text is not None:
            shown[f"{key}_localized"] = text
    for key in ("options", "choices"):
        if isinstance(node.get(key), list):
            shown[key] = [_localized(child, locale) for child in node[key]]
    return shown


def invocation_options(
    node: Mapping[str, JSON],
    path: Sequence[str],
    values: Mapping[str, object],
    resolve: SnowflakeResolver,
) -> list[JSON]:
    """The ``options`` of an invocation of ``node`` (a command, group or subcommand).

    ``path`` names the subcommand (and group) below ``node``; ``values`` are the option values
    by name. Raises :class:`InvalidInvocation` for anything Discord's client would not send.
    """
    options: list[Mapping[str, JSON]] = node.get("options") or []
    nested = {o["name"]: o for o in options if o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)}
    if nested:
        if not path:
            raise InvalidInvocation(f"/{node['name']} needs one of: {', '.join(sorted(nested))}")
        child = nested.get(path[0])
        if child is None:
            raise InvalidInvocation(f"/{node['name']} has no subcommand {path[0]!r}")
        inner = invocation_options(child, path[1:], values, resolve)
        return [{"type": child["type"], "name": child["name"], "options": inner}]
    if path:
        raise InvalidInvocation(f"/{node['name']} has no subcommand {path[0]!r}")
    known = {option["name"]: option for option in options}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise InvalidInvocation(f"/{node['name']} has no option {', '.join(unknown)}")
    sent: list[JSON] = []
    for option in options:
        name = option["name"]
        if name not in values:
            if option.get("required"):
                raise InvalidInvocation(f"/{node['name']} needs option {name!r}")
            continue
        value = option_value(option, values[name], resolve)
        sent.append({"type": option["type"], "name": name, "value": value})
    return sent


def option_value(option: Mapping[str, JSON], value: object, resolve: SnowflakeResolver) -> Any:
    """The value Discord sends for ``value`` in ``option``, checked against its type and limits."""
    kind = option["type"]
    name = option["name"]
    if kind in SNOWFLAKE_TYPES:
        if kind == ATTACHMENT:
            raise InvalidInvocation(f"option {name!r}: attachment options are not supported")
        return resolve(kind, value, option)
    if kind == BOOLEAN:
        if not isinstance(value, bool):
            raise InvalidInvocation(f"option {name!r} takes true or false, not {value!r}")
        return value
    if kind == STRING:
        if not isinstance(value, str):
            raise InvalidInvocation(f"option {name!r} takes text, not {value!r}")
        value = _choice_value(option, value)
        assert isinstance(value, str)
        low = option.get("min_length", 0)
        high = option.get("max_length", STRING_OPTION_MAX)
        if not low <= len(value) <= high:
            raise InvalidInvocation(f"option {name!r} takes {low} to {high} characters")
        return value
    integer = kind == INTEGER
    if not _is_number(value, integer=integer):
        raise InvalidInvocation(f"option {name!r} takes {'an integer' if integer else 'a number'}")
    value = _choice_value(option, value)
    assert isinstance(value, int | float)
    low, high = option.get("min_value"), option.get("max_value")
    if (low is not None and value < low) or (high is not None and value > high):
        raise InvalidInvocation(f"option {name!r} must be within {low}..{high}, not {value}")
    return value


def _choice_value(option: Mapping[str, JSON], value: object) -> object:
    """A value among the option's choices: matched by value, or else by the name a user picks."""
    choices = option.get("choices")
    if not choices:
        return value
    for choice in choices:
        if choice["value"] == value:
            return choice["value"]
    for choice in choices:
        if choice["name"] == value:
            return choice["value"]
    listed = ", ".join(repr(choice["value"]) for choice in choices)
    raise InvalidInvocation(f"option {option['name']!r} must be one of {listed}, not {value!r}")
