"""Discord's limits on messages, embeds, components and modals, checked like Discord checks them.

Each ``check_*`` function adds what is wrong to a :class:`FormErrors`; the caller raises it as one
400 "Invalid Form Body" (code 50035), so a payload Discord would refuse is refused here too.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .errors import JSON, FormErrors, empty_message

CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
EMBED_FIELD_NAME_MAX = 256
EMBED_FIELD_VALUE_MAX = 1024
EMBED_FOOTER_MAX = 2048
EMBED_AUTHOR_MAX = 256
EMBED_TOTAL_MAX = 6000
ATTACHMENTS_MAX = 10

ACTION_ROWS_MAX = 5
ROW_WIDTH = 5
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
SELECT_OPTIONS_MAX = 25
SELECT_PLACEHOLDER_MAX = 150
SELECT_OPTION_TEXT_MAX = 100
COMPONENTS_V2_MAX = 40

MODAL_TITLE_MAX = 45
MODAL_COMPONENTS_MAX = 5
TEXT_INPUT_LABEL_MAX = 45
TEXT_INPUT_VALUE_MAX = 4000
TEXT_INPUT_PLACEHOLDER_MAX = 100
LABEL_DESCRIPTION_MAX = 100

# Message flags.
SUPPRESS_EMBEDS = 1 << 2
EPHEMERAL = 1 << 6
LOADING = 1 << 7
SUPPRESS_NOTIFICATIONS = 1 << 12
IS_COMPONENTS_V2 = 1 << 15
SENDABLE_FLAGS = SUPPRESS_EMBEDS | EPHEMERAL | SUPPRESS_NOTIFICATIONS | IS_COMPONENTS_V2

# Component types.
ACTION_ROW = 1
BUTTON = 2
STRING_SELECT = 3
TEXT_INPUT = 4
SELECT_TYPES = frozenset({3, 5, 6, 7, 8})
SECTION = 9
TEXT_DISPLAY = 10
THUMBNAIL = 11
MEDIA_GALLERY = 12
FILE = 13
SEPARATOR = 14
CONTAINER = 17
LABEL = 18
LINK_STYLE = 5
PREMIUM_STYLE = 6

V2_TOP_LEVEL = frozenset(
    {ACTION_ROW, SECTION, TEXT_DISPLAY, MEDIA_GALLERY, FILE, SEPARATOR, CONTAINER}
)
V2_IN_CONTAINER = V2_TOP_LEVEL - {CONTAINER}

MESSAGE_FIELDS = ("content", "embeds", "components", "flags", "attachments")


def check_length(
    errors: FormErrors,
    path: Sequence[str | int],
    value: object,
    *,
    maximum: int,
    minimum: int = 0,
    required: bool = False,
) -> int:
    """Check one string field; return its length (0 when absent or not a string)."""
    if value is None:
        if required:
            errors.add(path, "BASE_TYPE_REQUIRED", "This field is required")
        return 0
    if not isinstance(value, str):
        errors.add(path, "BASE_TYPE_STRING", f'Could not interpret "{value}" as string.')
        return 0
    if not minimum <= len(value) <= maximum:
        if minimum:
            message = f"Must be between {minimum} and {maximum} in length."
            errors.add(path, "BASE_TYPE_BAD_LENGTH", message)
        else:
            errors.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {maximum} or fewer in length.")
    return len(value)


def check_list(
    errors: FormErrors,
    path: Sequence[str | int],
    value: object,
    *,
    maximum: int,
    minimum: int = 0,
) -> list[JSON]:
    """Check one list field; return it (empty when absent or not a list)."""
    if value is None:
        value = []
    if not isinstance(value, list):
        errors.add(path, "BASE_TYPE_LIST", "Must be an array.")
        return []
    if not minimum <= len(value) <= maximum:
        if minimum:
            message = f"Must be between {minimum} and {maximum} in length."
            errors.add(path, "BASE_TYPE_BAD_LENGTH", message)
        else:
            errors.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {maximum} or fewer in length.")
    return value


def check_int(
    errors: FormErrors, path: Sequence[str | int], value: object, *, minimum: int, maximum: int
) -> None:
    """Check an optional integer field lies within ``minimum..maximum``."""
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        errors.add(path, "NUMBER_TYPE_COERCE", f'Value "{value}" is not int.')
    elif value < minimum:
        errors.add(
            path, "NUMBER_TYPE_MIN", f"Int value should be greater than or equal to {minimum}."
        )
    elif value > maximum:
        errors.add(path, "NUMBER_TYPE_MAX", f"Int value should be less than or equal to {maximum}.")


def check_message(payload: Mapping[str, JSON], errors: FormErrors, *, flags: int = 0) -> None:
    """Check the message fields present in ``payload`` (a new message or an edit).

    ``flags`` are the flags the message already has (for an edit): an edit may send them back.
    """
    sent_flags = payload.get("flags") or 0
    if not isinstance(sent_flags, int) or sent_flags & ~(SENDABLE_FLAGS | flags):
        errors.add(("flags",), "MESSAGE_FLAGS_INVALID", "Invalid message flags")
        sent_flags = 0
    flags |= sent_flags
    check_length(errors, ("content",), payload.get("content"), maximum=CONTENT_MAX)
    if "embeds" in payload:
        check_embeds(payload["embeds"], errors)
    if "components" in payload:
        check_components(payload["components"], errors, v2=bool(flags & IS_COMPONENTS_V2))
    if flags & IS_COMPONENTS_V2 and (payload.get("content") or payload.get("embeds")):
        message = "The 'content' and 'embeds' fields cannot be used with IS_COMPONENTS_V2"
        errors.add(("content",), "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2", message)
    check_list(errors, ("attachments",), payload.get("attachments"), maximum=ATTACHMENTS_MAX)


def check_not_empty(message: Mapping[str, JSON]) -> None:
    """Refuse (code 50006) a message that would show nothing at all."""
    if not any(message.get(field) for field in ("content", "embeds", "components", "attachments")):
        raise empty_message()


def embed_text_length(embed: Mapping[str, JSON]) -> int:
    """The characters of one embed that count toward Discord's 6000 per message."""
    parts: list[object] = [embed.get("title"), embed.get("description")]
    for key, text in (("footer", "text"), ("author", "name")):
        if isinstance(embed.get(key), dict):
            parts.append(embed[key].get(text))
    fields = embed.get("fields")
    for field in fields if isinstance(fields, list) else []:
        if isinstance(field, dict):
            parts += [field.get("name"), field.get("value")]
    return sum(len(part) for part in parts if isinstance(part, str))


def check_embeds(embeds: object, errors: FormErrors) -> None:
    """Check the ``embeds`` list: count, every text field, and the 6000-character total."""
    checked = check_list(errors, ("embeds",), embeds, maximum=EMBEDS_MAX)
    for index, embed in enumerate(checked):
        path: tuple[str | int, ...] = ("embeds", index)
        if not isinstance(embed, dict):
            errors.add(path, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        check_length(errors, (*path, "title"), embed.get("title"), maximum=EMBED_TITLE_MAX)
        description = embed.get("description")
        check_length(errors, (*path, "description"), description, maximum=EMBED_DESCRIPTION_MAX)
        fields = check_list(
            errors, (*path, "fields"), embed.get("fields"), maximum=EMBED_FIELDS_MAX
        )
        for number, field in enumerate(fields):
            where = (*path, "fields", number)
            if not isinstance(field, dict):
                errors.add(
                    where, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType"
                )
                continue
            name, value = field.get("name"), field.get("value")
            check_length(
                errors,
                (*where, "name"),
                name,
                minimum=1,
                maximum=EMBED_FIELD_NAME_MAX,
                required=True,
            )
            check_length(
                errors,
                (*where, "value"),
                value,
                minimum=1,
                maximum=EMBED_FIELD_VALUE_MAX,
                required=True,
            )
        for key, text, maximum in (
            ("footer", "text", EMBED_FOOTER_MAX),
            ("author", "name", EMBED_AUTHOR_MAX),
        ):
            if key in embed:
                part = embed[key] if isinstance(embed[key], dict) else {}
                check_length(
                    errors, (*path, key, text), part.get(text), maximum=maximum, required=True
                )
    total = sum(embed_text_length(e) for e in checked if isinstance(e, dict))
    if total > EMBED_TOTAL_MAX:
        message = f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX}"
        errors.add(("embeds",), "MAX_EMBED_SIZE_EXCEEDED", message)


def walk_components(components: object) -> Iterator[dict[str, JSON]]:
    """Every component dict in a message or modal tree, depth first."""
    if not isinstance(components, list):
        return
    for component in components:
        if not isinstance(component, dict):
            continue
        yield component
        yield from walk_components(component.get("components"))
        for key in ("accessory", "component"):
            if isinstance(component.get(key), dict):
                yield from walk_components([component[key]])


def check_components(components: object, errors: FormErrors, *, v2: bool = False) -> None:
    """Check a message's ``components``: layout, sizes, and custom_ids unique in the message."""
    if v2:
        rows = check_list(errors, ("components",), components, maximum=COMPONENTS_V2_MAX)
        if sum(1 for _ in walk_components(rows)) > COMPONENTS_V2_MAX:
            message = f"Must be {COMPONENTS_V2_MAX} or fewer in length."
            errors.add(("components",), "BASE_TYPE_MAX_LENGTH", message)
        allowed = V2_TOP_LEVEL
    else:
        rows = check_list(errors, ("components",), components, maximum=ACTION_ROWS_MAX)
        allowed = frozenset({ACTION_ROW})
    seen: set[str] = set()
    for index, component in enumerate(rows):
        path = ("components", index)
        if not isinstance(component, dict) or component.get("type") not in allowed:
            choices = ", ".join(str(kind) for kind in sorted(allowed))
            message = f'Value of field "type" must be one of ({choices}).'
            errors.add((*path, "type"), "BASE_TYPE_CHOICES", message)
            continue
        _check_layout_component(component, errors, path, seen)


def _check_layout_component(
    component: dict[str, JSON], errors: FormErrors, path: tuple[str | int, ...], seen: set[str]
) -> None:
    kind = component.get("type")
    if kind == ACTION_ROW:
        _check_action_row(component, errors, path, seen)
    elif kind == CONTAINER:
        children = check_list(
            errors, (*path, "components"), component.get("components"), minimum=1, maximum=40
        )
        for index, child in enumerate(children):
            where = (*path, "components", index)
            if not isinstance(child, dict) or child.get("type") not in V2_IN_CONTAINER:
                errors.add((*where, "type"), "BASE_TYPE_CHOICES", "Invalid component type.")
                continue
            _check_layout_component(child, errors, where, seen)
    elif kind == SECTION:
        children = check_list(
            errors, (*path, "components"), component.get("components"), minimum=1, maximum=3
        )
        for index, child in enumerate(children):
            if not isinstance(child, dict) or child.get("type") != TEXT_DISPLAY:
                errors.add((*path, "components", index, "type"), "BASE_TYPE_CHOICES", "Invalid.")
        accessory = component.get("accessory")
        if isinstance(accessory, dict) and accessory.get("type") == BUTTON:
            _check_button(accessory, errors, (*path, "accessory"), seen)
    elif kind == TEXT_DISPLAY:
        check_length(errors, (*path, "content"), component.get("content"), minimum=1, maximum=4000)


def _check_action_row(
    row: dict[str, JSON], errors: FormErrors, path: tuple[str | int, ...], seen: set[str]
) -> None:
    children = check_list(
        errors, (*path, "components"), row.get("components"), minimum=1, maximum=ROW_WIDTH
    )
    selects = [c for c in children if isinstance(c, dict) and c.get("type") in SELECT_TYPES]
    if selects and len(children) > 1:
        message = "The specified component exceeds the maximum width"
        errors.add((*path, "components"), "COMPONENT_LAYOUT_WIDTH_EXCEEDED", message)
    for index, child in enumerate(children):
        where = (*path, "components", index)
        kind = child.get("type") if isinstance(child, dict) else None
        if kind == BUTTON:
            _check_button(child, errors, where, seen)
        elif kind in SELECT_TYPES:
            _check_select(child, errors, where, seen)
        else:
            message = f"Component of type {kind} is not allowed in a message action row."
            errors.add((*where, "type"), "COMPONENT_TYPE_INVALID", message)


def _check_custom_id(
    component: Mapping[str, JSON], errors: FormErrors, path: tuple[str | int, ...], seen: set[str]
) -> None:
    custom_id = component.get("custom_id")
    check_length(
        errors, (*path, "custom_id"), custom_id, minimum=1, maximum=CUSTOM_ID_MAX, required=True
    )
    if isinstance(custom_id, str):
        if custom_id in seen:
            message = "Component custom id cannot be duplicated"
            errors.add((*path, "custom_id"), "COMPONENT_CUSTOM_ID_DUPLICATED", message)
        seen.add(custom_id)


def _check_button(
    button: Mapping[str, JSON], errors: FormErrors, path: tuple[str | int, ...], seen: set[str]
) -> None:
    style = button.get("style")
    check_length(errors, (*path, "label"), button.get("label"), maximum=BUTTON_LABEL_MAX)
    if style not in (1, 2, 3, 4, LINK_STYLE, PREMIUM_STYLE):
        errors.add(
            (*path, "style"), "BASE_TYPE_CHOICES", "Value must be one of (1, 2, 3, 4, 5, 6)."
        )
    elif style == LINK_STYLE:
        check_length(errors, (*path, "url"), button.get("url"), maximum=512, required=True)
        if button.get("custom_id") is not None:
            message = "A link button cannot have a custom id"
            errors.add((*path, "custom_id"), "BUTTON_COMPONENT_CUSTOM_ID_INVALID", message)
    elif style != PREMIUM_STYLE:
        _check_custom_id(button, errors, path, seen)
        if button.get("url") is not None:
            message = "Only link buttons can have a url"
            errors.add((*path, "url"), "BUTTON_COMPONENT_URL_INVALID", message)


def _check_select(
    select: Mapping[str, JSON], errors: FormErrors, path: tuple[str | int, ...], seen: set[str]
) -> None:
    _check_custom_id(select, errors, path, seen)
    placeholder = select.get("placeholder")
    check_length(errors, (*path, "placeholder"), placeholder, maximum=SELECT_PLACEHOLDER_MAX)
    check_int(errors, (*path, "min_values"), select.get("min_values"), minimum=0, maximum=25)
    check_int(errors, (*path, "max_values"), select.get("max_values"), minimum=1, maximum=25)
    if select.get("type") != STRING_SELECT:
        return
    options = check_list(
        errors,
        (*path, "options"),
        select.get("options"),
        minimum=1,
        maximum=SELECT_OPTIONS_MAX,
    )
    for index, option in enumerate(options):
        where = (*path, "options", index)
        if not isinstance(option, dict):
            errors.add(where, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        for key in ("label", "value"):
            check_length(
                errors,
                (*where, key),
                option.get(key),
                minimum=1,
                maximum=SELECT_OPTION_TEXT_MAX,
                required=True,
            )
        description = option.get("description")
        check_length(errors, (*where, "description"), description, maximum=SELECT_OPTION_TEXT_MAX)
    max_values = select.get("max_values")
    if isinstance(max_values, int) and options and max_values > len(options):
        message = f"Int value should be less than or equal to {len(options)}."
        errors.add((*path, "max_values"), "NUMBER_TYPE_MAX", message)


def check_modal(modal: Mapping[str, JSON], errors: FormErrors) -> None:
    """Check a modal (interaction response type 9): title, custom_id and 1-5 inputs."""
    check_length(
        errors,
        ("data", "custom_id"),
        modal.get("custom_id"),
        minimum=1,
        maximum=CUSTOM_ID_MAX,
        required=True,
    )
    check_length(
        errors,
        ("data", "title"),
        modal.get("title"),
        minimum=1,
        maximum=MODAL_TITLE_MAX,
        required=True,
    )
    rows = check_list(
        errors,
        ("data", "components"),
        modal.get("components"),
        minimum=1,
        maximum=MODAL_COMPONENTS_MAX,
    )
    seen: set[str] = set()
    for index, row in enumerate(rows):
        path: tuple[str | int, ...] = ("data", "components", index)
        kind = row.get("type") if isinstance(row, dict) else None
        if kind == ACTION_ROW:
            children = check_list(
                errors, (*path, "components"), row.get("components"), minimum=1, maximum=1
            )
            for number, child in enumerate(children):
                where = (*path, "components", number)
                if not isinstance(child, dict) or child.get("type") != TEXT_INPUT:
                    message = "Only text inputs may be placed in a modal action row"
                    errors.add((*where, "type"), "COMPONENT_TYPE_INVALID", message)
                    continue
                _check_text_input(child, errors, where, seen, labelled=False)
        elif kind == LABEL:
            label = row.get("label")
            check_length(
                errors,
                (*path, "label"),
                label,
                minimum=1,
                maximum=TEXT_INPUT_LABEL_MAX,
                required=True,
            )
            description = row.get("description")
            check_length(errors, (*path, "description"), description, maximum=LABEL_DESCRIPTION_MAX)
            child = row.get("component")
            if isinstance(child, dict) and child.get("type") == TEXT_INPUT:
                _check_text_input(child, errors, (*path, "component"), seen, labelled=True)
            elif isinstance(child, dict) and child.get("type") in SELECT_TYPES:
                _check_select(child, errors, (*path, "component"), seen)
            else:
                message = "A label must hold a text input or a select menu"
                errors.add((*path, "component"), "COMPONENT_TYPE_INVALID", message)
        elif kind == TEXT_DISPLAY:
            check_length(errors, (*path, "content"), row.get("content"), minimum=1, maximum=4000)
        else:
            message = 'Value of field "type" must be one of (1, 10, 18).'
            errors.add((*path, "type"), "BASE_TYPE_CHOICES", message)


def _check_text_input(
    text_input: Mapping[str, JSON],
    errors: FormErrors,
    path: tuple[str | int, ...],
    seen: set[str],
    *,
    labelled: bool,
) -> None:
    _check_custom_id(text_input, errors, path, seen)
    if text_input.get("style") not in (1, 2):
        errors.add((*path, "style"), "BASE_TYPE_CHOICES", "Value must be one of (1, 2).")
    label = text_input.get("label")
    if labelled:
        check_length(errors, (*path, "label"), label, maximum=TEXT_INPUT_LABEL_MAX)
    else:
        check_length(
            errors,
            (*path, "label"),
            label,
            minimum=1,
            maximum=TEXT_INPUT_LABEL_MAX,
            required=True,
        )
    check_int(
        errors,
        (*path, "min_length"),
        text_input.get("min_length"),
        minimum=0,
        maximum=TEXT_INPUT_VALUE_MAX,
    )
    check_int(
        errors,
        (*path, "max_length"),
        text_input.get("max_length"),
        minimum=1,
        maximum=TEXT_INPUT_VALUE_MAX,
    )
    check_length(errors, (*path, "value"), text_input.get("value"), maximum=TEXT_INPUT_VALUE_MAX)
    placeholder = text_input.get("placeholder")
    check_length(errors, (*path, "placeholder"), placeholder, maximum=TEXT_INPUT_PLACEHOLDER_MAX)


def text_inputs(modal: Mapping[str, JSON]) -> list[dict[str, Any]]:
    """The text inputs of a modal, in order, whether in action rows or in labels."""
    return [c for c in walk_components(modal.get("components")) if c.get("type") == TEXT_INPUT]


LOCALES = frozenset(
    {
        "ar", "bg", "cs", "da", "de", "el", "en-GB", "en-US", "es-419", "es-ES", "fi", "fr",
        "he", "hi", "hr", "hu", "id", "it", "ja", "ko", "lt", "nl", "no", "pl", "pt-BR", "ro",
        "ru", "sv-SE", "th", "tr", "uk", "vi", "zh-CN", "zh-TW",
    }
)  # fmt: skip
"""Discord's locales (``AvailableLocalesEnum`` in its OpenAPI spec): a user's app language and a
server's preferred locale are one of these."""


def check_locale(locale: str) -> str:
    if locale not in LOCALES:
        raise ValueError(f"{locale!r} is not a Discord locale")
    return locale
