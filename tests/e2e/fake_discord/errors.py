"""Errors of the fake: Discord's JSON error bodies, and refusals of impossible user actions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

JSON = Any
"""A decoded JSON value, as Discord sends and receives it."""

# Discord's JSON error codes used by the fake.
GENERAL_ERROR = 0
UNKNOWN_APPLICATION = 10002
UNKNOWN_CHANNEL = 10003
UNKNOWN_GUILD = 10004
UNKNOWN_MEMBER = 10007
UNKNOWN_MESSAGE = 10008
UNKNOWN_USER = 10013
UNKNOWN_WEBHOOK = 10015
UNKNOWN_INTERACTION = 10062
UNKNOWN_APPLICATION_COMMAND = 10063
INTERACTION_ALREADY_ACKNOWLEDGED = 40060
MAX_FOLLOWUP_MESSAGES = 40094
MISSING_ACCESS = 50001
CANNOT_ACT_ON_DM = 50003
CANNOT_EDIT_OTHERS_MESSAGE = 50005
CANNOT_SEND_EMPTY_MESSAGE = 50006
CANNOT_SEND_TO_USER = 50007
MISSING_PERMISSIONS = 50013
WRONG_CHANNEL_TYPE = 50024
INVALID_WEBHOOK_TOKEN = 50027
INVALID_FORM_BODY = 50035
THREAD_ARCHIVED = 50083
INVALID_JSON = 50109
REPLY_WITHOUT_HISTORY = 160002
THREAD_ALREADY_CREATED = 160004
THREAD_LOCKED = 160005
MAX_ACTIVE_THREADS = 160006


class APIError(Exception):
    """A request refused the way Discord refuses it: an HTTP status and a JSON error body."""

    def __init__(
        self, status: int, code: int, message: str, errors: dict[str, JSON] | None = None
    ) -> None:
        super().__init__(f"{status} (code {code}): {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, JSON]:
        """The JSON body Discord sends with this error."""
        body: dict[str, JSON] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return body


def not_found(code: int, what: str) -> APIError:
    """A 404 for a missing resource, e.g. ``not_found(UNKNOWN_CHANNEL, "Unknown Channel")``."""
    return APIError(404, code, what)


def unauthorized() -> APIError:
    """The 401 Discord answers a request without the bot's token."""
    return APIError(401, GENERAL_ERROR, "401: Unauthorized")


def missing_permissions() -> APIError:
    """The 403 Discord answers when the bot lacks a permission in a channel."""
    return APIError(403, MISSING_PERMISSIONS, "Missing Permissions")


def missing_access() -> APIError:
    """The 403 Discord answers when the bot cannot see the channel at all (no VIEW_CHANNEL)."""
    return APIError(403, MISSING_ACCESS, "Missing Access")


def invalid_webhook_token() -> APIError:
    """The 401 Discord answers an interaction token used after it expired (15 minutes)."""
    return APIError(401, INVALID_WEBHOOK_TOKEN, "Invalid Webhook Token")


def too_many_followups() -> APIError:
    """The 400 Discord answers a followup beyond the cap of an interaction a user install
    alone authorised."""
    message = "This interaction has hit the maximum number of follow up messages"
    return APIError(400, MAX_FOLLOWUP_MESSAGES, message)


def thread_archived() -> APIError:
    """The 400 Discord answers an operation an archived thread does not allow."""
    return APIError(400, THREAD_ARCHIVED, "Thread is archived")


def too_many_threads() -> APIError:
    """The 400 Discord answers a thread started or unarchived at the server's active-thread cap."""
    return APIError(400, MAX_ACTIVE_THREADS, "Maximum number of active threads reached")


def thread_locked() -> APIError:
    """The 403 Discord answers a write in a locked thread without MANAGE_THREADS."""
    return APIError(403, THREAD_LOCKED, "Thread is locked")


def empty_message() -> APIError:
    """The 400 Discord answers a message with no content, embed, component or file."""
    return APIError(400, CANNOT_SEND_EMPTY_MESSAGE, "Cannot send an empty message")


class FormErrors:
    """Collects field errors into the nested tree of a 50035 "Invalid Form Body" response.

    Discord nests errors by field name and list index (as a string), with the messages under
    ``_errors``: ``{"embeds": {"0": {"title": {"_errors": [{"code": ..., "message": ...}]}}}}``.
    discord.py flattens that into ``In embeds.0.title: Must be 256 or fewer in length.``
    """

    def __init__(self) -> None:
        self.tree: dict[str, JSON] = {}

    def __bool__(self) -> bool:
        return bool(self.tree)

    def add(self, path: Sequence[str | int], code: str, message: str) -> None:
        """Record one error at ``path`` (field names and list indices, outermost first)."""
        node = self.tree
        for key in path:
            node = node.setdefault(str(key), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def raise_if_any(self) -> None:
        """Raise the 50035 error holding every collected error, if there is any."""
        if self.tree:
            raise APIError(400, INVALID_FORM_BODY, "Invalid Form Body", self.tree)


class InvalidInvocation(Exception):
    """A test asked for something Discord's own client would not let a user do.

    For example a slash command that is not registered, an option value outside the registered
    choices or range, or a click on a button that is disabled or not on the message.
    """
