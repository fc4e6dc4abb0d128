"""Interactions: the payloads a user's action sends the bot, and Discord's rules for answers.

An interaction gets exactly one initial response (a second is refused with 40060), within the
deadline after it was sent (later ones get 404 10062 "Unknown interaction"); followups and edits
of ``@original`` go through the interaction's webhook token afterwards, for 15 minutes from the
interaction's creation (then every use of the token gets 401 50027 "Invalid Webhook Token").
An interaction only a user install authorised may create 5 followups (then 400 40094); in a
server without the application where the member may not use external apps, every answer is made
ephemeral (``installs.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .errors import (
    INTERACTION_ALREADY_ACKNOWLEDGED,
    JSON,
    UNKNOWN_INTERACTION,
    UNKNOWN_MESSAGE,
    UNKNOWN_WEBHOOK,
    APIError,
    FormErrors,
    InvalidInvocation,
    invalid_webhook_token,
    not_found,
    too_many_followups,
)
from .installs import (
    FOLLOWUP_CAP,
    PRIVATE_CHANNEL_APP_PERMISSIONS,
    only_ephemeral,
    user_install_only,
    user_install_permissions,
)
from .limits import (
    ACTION_ROW,
    EPHEMERAL,
    LABEL,
    LOADING,
    SELECT_TYPES,
    TEXT_DISPLAY,
    TEXT_INPUT,
    TEXT_INPUT_VALUE_MAX,
    check_modal,
)
from .messages import checked_edit, checked_fields
from .records import (
    APPLICATION_COMMAND,
    CHAT_INPUT_COMMAND_MESSAGE,
    DEFAULT_MESSAGE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    FakeChannel,
    FakeInteraction,
    FakeMessage,
    FakeUser,
)
from .state import DiscordState

# Initial response (callback) types.
CHANNEL_MESSAGE = 4
DEFERRED_CHANNEL_MESSAGE = 5
DEFERRED_UPDATE_MESSAGE = 6
UPDATE_MESSAGE = 7
MODAL = 9

ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
DEFAULT_DEADLINE = 3.0
"""Seconds Discord gives a bot to send the initial response."""
TOKEN_LIFETIME = 15 * 60.0
"""Seconds an interaction's token works after the interaction was created."""


def check_token_alive(state: DiscordState, interaction: FakeInteraction) -> None:
    """401 "Invalid Webhook Token" (50027) once the token is 15 minutes old, as on Discord."""
    if state.clock() - interaction.created_at > TOKEN_LIFETIME:
        raise invalid_webhook_token()


def app_permissions(state: DiscordState, channel: FakeChannel, user: FakeUser) -> int:
    """``app_permissions``: the bot's in a server with the application and in its DMs; in a
    server without it, what the member lets a user install do; fixed bits in a private channel."""
    if channel.is_private:
        return PRIVATE_CHANNEL_APP_PERMISSIONS
    server = state.server_of(channel)
    if server is not None and server.id not in state.guilds:
        member_permissions = state.channel_permissions(channel, user.id)
        return user_install_permissions(member_permissions, in_thread=channel.is_thread)
    return state.channel_permissions(channel, state.bot.id)


def answers_only_ephemeral(state: DiscordState, interaction: FakeInteraction) -> bool:
    """True where Discord makes every answer ephemeral: a server without the application where
    the member may not use external apps (or send messages)."""
    channel = interaction.channel
    server = state.server_of(channel)
    if server is None or server.id in state.guilds:
        return False
    granted = app_permissions(state, channel, interaction.user)
    return only_ephemeral(granted, in_thread=channel.is_thread)


def interaction_create_payload(
    state: DiscordState, interaction: FakeInteraction
) -> dict[str, JSON]:
    """The INTERACTION_CREATE payload: with ``member`` in a server, with ``user`` elsewhere."""
    guild = interaction.guild
    channel = interaction.channel
    if channel.is_private:
        channel_payload = channel.private_payload(interaction.user)
    else:
        channel_payload = channel.payload()
    user_permissions = state.channel_permissions(channel, interaction.user.id)
    if guild is not None:
        channel_payload["permissions"] = str(user_permissions)
    payload: dict[str, JSON] = {
        "id": str(interaction.id),
        "application_id": str(interaction.application_id),
        "type": interaction.type,
        "token": interaction.token,
        "version": 1,
        "data": interaction.data,
        "channel": channel_payload,
        "channel_id": str(channel.id),
        "app_permissions": str(app_permissions(state, channel, interaction.user)),
        "locale": interaction.user.locale,
        "entitlements": [],
        "authorizing_integration_owners": dict(interaction.owners),
        "context": interaction.context,
        "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
    }
    if guild is not None:
        member = state.member(guild, interaction.user.id)
        payload["guild_id"] = str(guild.id)
        payload["guild"] = {"id": str(guild.id), "locale": guild.preferred_locale, "features": []}
        payload["guild_locale"] = guild.preferred_locale
        payload["member"] = member.payload(permissions=user_permissions)
    else:
        payload["user"] = interaction.user.payload()
    if interaction.message is not None:
        payload["message"] = interaction.message.payload()
    return payload


def modal_submit_data(modal: Mapping[str, JSON], values: Mapping[str, object]) -> dict[str, JSON]:
    """The ``data`` of a modal submit with ``values`` by custom_id, as Discord's client fills it.

    Text inputs take a string; selects inside labels take a list of option values. Raises
    :class:`InvalidInvocation` for an unknown field, a required one left empty, or a length the
    input does not allow.
    """
    known: set[str] = set()
    components: list[JSON] = []
    for top in modal.get("components") or []:
        kind = top.get("type")
        if kind == ACTION_ROW:
            inner = [_submitted(child, values, known) for child in top.get("components") or []]
            components.append({"type": ACTION_ROW, "components": inner})
        elif kind == LABEL:
            components.append(
                {"type": LABEL, "component": _submitted(top["component"], values, known)}
            )
        elif kind == TEXT_DISPLAY:
            components.append({"type": TEXT_DISPLAY, "content": top.get("content", "")})
    unknown = sorted(set(values) - known)
    if unknown:
        raise InvalidInvocation(f"the modal has no field {', '.join(unknown)}")
    return {"custom_id": modal["custom_id"], "components": components}


def _submitted(
    component: Mapping[str, JSON], values: Mapping[str, object], known: set[str]
) -> dict[str, JSON]:
    custom_id = component["custom_id"]
    known.add(custom_id)
    value = values.get(custom_id)
    if component.get("type") == TEXT_INPUT:
        text = "" if value is None else value
        if not isinstance(text, str):
            raise InvalidInvocation(f"modal field {custom_id!r} takes text, not {value!r}")
        low = component.get("min_length") or 0
        high = component.get("max_length") or TEXT_INPUT_VALUE_MAX
        if component.get("required", True) and not text:
            raise InvalidInvocation(f"modal field {custom_id!r} is required")
        if text and not low <= len(text) <= high:
            raise InvalidInvocation(f"modal field {custom_id!r} takes {low} to {high} characters")
        return {"type": TEXT_INPUT, "custom_id": custom_id, "value": text}
    if component.get("type") in SELECT_TYPES:
        chosen = [] if value is None else value
        if not isinstance(chosen, list) or not all(isinstance(v, str) for v in chosen):
            raise InvalidInvocation(f"modal select {custom_id!r} takes a list of option values")
        check_select_values(component, chosen)
        return {"type": component["type"], "custom_id": custom_id, "values": chosen}
    raise InvalidInvocation(f"modal component {custom_id!r} cannot be filled in")


def check_select_values(select: Mapping[str, JSON], values: list[str]) -> None:
    """Refuse a selection the select menu would not allow (count, or an option it lacks)."""
    low = select.get("min_values", 1)
    high = select.get("max_values", 1)
    custom_id = select.get("custom_id")
    if not low <= len(values) <= high:
        raise InvalidInvocation(f"select {custom_id!r} takes {low} to {high} values")
    if select.get("type") == 3:
        offered = {option["value"] for option in select.get("options") or []}
        missing = [value for value in values if value not in offered]
        if missing:
            raise InvalidInvocation(f"select {custom_id!r} has no option {', '.join(missing)}")


@dataclass(frozen=True)
class Answer:
    """What an answer did to messages, so the gateway can tell the bot (MESSAGE_CREATE/UPDATE)."""

    created: FakeMessage | None = None
    updated: FakeMessage | None = None


ALLOWED_RESPONSES = {
    APPLICATION_COMMAND: (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL),
    MESSAGE_COMPONENT: (
        CHANNEL_MESSAGE,
        DEFERRED_CHANNEL_MESSAGE,
        DEFERRED_UPDATE_MESSAGE,
        UPDATE_MESSAGE,
        MODAL,
    ),
    MODAL_SUBMIT: (
        CHANNEL_MESSAGE,
        DEFERRED_CHANNEL_MESSAGE,
        DEFERRED_UPDATE_MESSAGE,
        UPDATE_MESSAGE,
    ),
}


def respond(
    state: DiscordState, interaction: FakeInteraction, body: JSON, *, deadline: float
) -> Answer:
    """Apply an initial response (``POST /interactions/{id}/{token}/callback``)."""
    if interaction.acknowledged:
        raise APIError(
            400, INTERACTION_ALREADY_ACKNOWLEDGED, "Interaction has already been acknowledged."
        )
    # sent_at is set once the frame is written; a bot cannot answer before it reads the frame.
    sent_at = interaction.sent_at
    if sent_at is not None and state.clock() - sent_at > deadline:
        raise not_found(UNKNOWN_INTERACTION, "Unknown interaction")
    errors = FormErrors()
    if not isinstance(body, dict):
        errors.add((), "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        errors.raise_if_any()
    kind = body.get("type")
    data = body.get("data") or {}
    if not isinstance(data, dict):
        errors.add(("data",), "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        errors.raise_if_any()
    allowed = ALLOWED_RESPONSES[interaction.type]
    if kind in (DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE) and interaction.message is None:
        allowed = tuple(t for t in allowed if t not in (DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE))
    if kind not in allowed:
        errors.add(("type",), "INTERACTION_RESPONSE_TYPE_INVALID", f"Must be one of {allowed}.")
        errors.raise_if_any()
    answer = Answer()
    forced = EPHEMERAL if interaction.ephemeral_only else 0
    if kind == CHANNEL_MESSAGE:
        fields = checked_fields(data)
        interaction.original = _new_message(state, interaction, fields, flags=forced)
        answer = Answer(created=interaction.original)
    elif kind == DEFERRED_CHANNEL_MESSAGE:
        flags = LOADING | forced | ((data.get("flags") or 0) & EPHEMERAL)
        interaction.original = _new_message(state, interaction, {}, flags=flags)
        answer = Answer(created=interaction.original)
    elif kind == DEFERRED_UPDATE_MESSAGE:
        interaction.original = interaction.message
    elif kind == UPDATE_MESSAGE:
        clicked = interaction.message
        assert clicked is not None
        checked_edit(state, clicked, data)
        interaction.original = clicked
        answer = Answer(updated=clicked)
    else:
        check_modal(data, errors)
        errors.raise_if_any()
        interaction.modal = dict(data)
    interaction.response_type = kind
    interaction.response = body
    interaction.responded_at = state.clock()
    state.notify()
    return answer


def callback_response(interaction: FakeInteraction) -> dict[str, JSON]:
    """The InteractionCallbackResponse body sent when the callback asks ``with_response``."""
    original = interaction.original
    kind = interaction.response_type
    summary: dict[str, JSON] = {
        "id": str(interaction.id),
        "type": interaction.type,
        "response_message_loading": kind == DEFERRED_CHANNEL_MESSAGE,
        "response_message_ephemeral": bool(original is not None and original.ephemeral),
    }
    resource: dict[str, JSON] = {"type": kind}
    if original is not None and kind != MODAL:
        summary["response_message_id"] = str(original.id)
        if kind != DEFERRED_UPDATE_MESSAGE:
            resource["message"] = original.payload()
    return {"interaction": summary, "resource": resource}


def followup(state: DiscordState, interaction: FakeInteraction, fields: JSON) -> Answer:
    """Send a followup (``POST /webhooks/{app}/{token}``).

    The first followup after a deferred channel message replaces the "is thinking..." message
    and keeps its visibility, as Discord does; later ones are new messages. Every request counts
    toward the cap of an interaction a user install alone authorised.
    """
    if not interaction.acknowledged:
        raise not_found(UNKNOWN_WEBHOOK, "Unknown Webhook")
    capped = user_install_only(interaction.owners)
    if capped and interaction.followup_posts >= FOLLOWUP_CAP:
        raise too_many_followups()
    fields = checked_fields(fields)
    interaction.followup_posts += 1
    original = interaction.original
    deferred = interaction.response_type == DEFERRED_CHANNEL_MESSAGE
    if deferred and original is not None and original.loading and not original.deleted:
        state.edit_message(original, {k: v for k, v in fields.items() if k != "flags"})
        original.flags &= ~LOADING
        interaction.original_edits += 1
        state.notify()
        return Answer(updated=original)
    forced = EPHEMERAL if interaction.ephemeral_only else 0
    message = _new_message(state, interaction, fields, flags=forced, followup=True)
    interaction.followups.append(message)
    state.notify()
    return Answer(created=message)


def webhook_message(interaction: FakeInteraction, message_id: str) -> FakeMessage:
    """``@original`` or one followup of ``interaction``; anything else is an Unknown Message."""
    if message_id == "@original":
        found = interaction.original
    else:
        wanted = int(message_id) if message_id.isdigit() else -1
        candidates = [interaction.original, *interaction.followups]
        found = next((m for m in candidates if m is not None and m.id == wanted), None)
    if found is None or found.deleted:
        raise not_found(UNKNOWN_MESSAGE, "Unknown Message")
    return found


def edit_webhook_message(
    state: DiscordState, interaction: FakeInteraction, message: FakeMessage, fields: JSON
) -> Answer:
    """Edit ``@original`` or a followup (``PATCH /webhooks/{app}/{token}/messages/{id}``)."""
    checked_edit(state, message, fields)
    if message is interaction.original:
        message.flags &= ~LOADING
        interaction.original_edits += 1
    state.notify()
    return Answer(updated=message)


def _new_message(
    state: DiscordState,
    interaction: FakeInteraction,
    fields: Mapping[str, JSON],
    *,
    flags: int,
    followup: bool = False,
) -> FakeMessage:
    command_reply = interaction.type == APPLICATION_COMMAND and not followup
    return state.create_message(
        interaction.channel,
        state.bot,
        fields,
        flags=flags,
        interaction=interaction,
        message_type=CHAT_INPUT_COMMAND_MESSAGE if command_reply else DEFAULT_MESSAGE,
    )
