"""Threads: Discord's rules for starting, writing in, archiving and locking them.

A text channel's threads are public (type 11, needing CREATE_PUBLIC_THREADS to start) or private
(type 12, CREATE_PRIVATE_THREADS). Posting in an archived thread unarchives it, unless it is
locked: then it fails with 50083 "Thread is archived". In an active locked thread only members
with MANAGE_THREADS may post or edit (160005 "Thread is locked" otherwise). Editing a message in
an archived thread fails with 50083; deleting one is allowed unless the thread is also locked.
Starting a thread posts Discord's notice in its channel (a message of type 18, THREAD_CREATED,
named for the thread and referring to it), which counts there like any other message.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from .errors import (
    JSON,
    FormErrors,
    missing_permissions,
    thread_archived,
    thread_locked,
)
from .permissions import MANAGE_THREADS
from .records import PRIVATE_THREAD, PUBLIC_THREAD, FakeChannel

ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)
"""Minutes of inactivity after which a thread leaves the channel list."""
NAME_MAX = 100


def check_thread_fields(payload: JSON, *, with_type: bool) -> tuple[str, int, int]:
    """A start-thread body's name, auto-archive duration and type (50035 if Discord refuses it).

    Without ``type`` Discord starts a private thread (``POST /channels/{id}/threads``); a thread
    started from a message is public.
    """
    errors = FormErrors()
    body = payload if isinstance(payload, dict) else {}
    name = body.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= NAME_MAX:
        length = f"Must be between 1 and {NAME_MAX} in length."
        errors.add(("name",), "BASE_TYPE_BAD_LENGTH", length)
    duration = body.get("auto_archive_duration")
    if duration is None:  # the spec allows null: the default, a day
        duration = 1440
    if duration not in ARCHIVE_DURATIONS:
        errors.add(
            ("auto_archive_duration",),
            "BASE_TYPE_CHOICES",
            f"Value must be one of {ARCHIVE_DURATIONS}.",
        )
    kind = body.get("type", PRIVATE_THREAD) if with_type else PUBLIC_THREAD
    if kind not in (PUBLIC_THREAD, PRIVATE_THREAD):
        errors.add(("type",), "BASE_TYPE_CHOICES", "Value must be one of (11, 12).")
    errors.raise_if_any()
    assert isinstance(name, str)
    return name, int(duration), int(kind)


def check_post(thread: FakeChannel, permissions: int) -> bool:
    """Refuse a new message Discord would refuse; True if posting it unarchives the thread."""
    if thread.archived:
        if thread.locked:
            raise thread_archived()
        return True
    if thread.locked and not permissions & MANAGE_THREADS:
        raise thread_locked()
    return False


def check_edit(thread: FakeChannel, permissions: int) -> None:
    """Refuse a message edit in an archived thread, or in a locked one without MANAGE_THREADS."""
    if thread.archived:
        raise thread_archived()
    if thread.locked and not permissions & MANAGE_THREADS:
        raise thread_locked()


def check_delete(thread: FakeChannel, permissions: int) -> None:
    """Refuse a delete in an archived locked thread (without MANAGE_THREADS)."""
    if thread.archived and thread.locked and not permissions & MANAGE_THREADS:
        raise thread_archived()


def set_archived(thread: FakeChannel, archived: bool, *, locked: bool | None = None) -> None:
    """Archive or unarchive ``thread`` (and lock or unlock it), stamping ``archive_timestamp``."""
    if thread.archived != archived:
        thread.archived = archived
        thread.archived_at = datetime.now(UTC)
    if locked is not None:
        thread.locked = locked


def edit_thread(
    thread: FakeChannel, changes: Mapping[str, JSON], *, permissions: int, user_id: int
) -> None:
    """Apply ``PATCH /channels/{thread_id}`` as Discord allows it.

    Renaming, archiving and the auto-archive duration need MANAGE_THREADS or to have started the
    thread; locking needs MANAGE_THREADS; unarchiving needs to have joined it (and, if locked, to
    have started it) or MANAGE_THREADS. Anything but unarchiving fails on an archived thread.
    """
    manager = bool(permissions & MANAGE_THREADS)
    starter = thread.owner_id == user_id
    archived = changes.get("archived")
    locked = changes.get("locked")
    unarchiving = thread.archived and archived is False
    if thread.archived and not unarchiving:
        raise thread_archived()
    joined = user_id in thread.member_ids
    if unarchiving and not (manager or (joined and (starter or not thread.locked))):
        raise missing_permissions()
    if locked is not None and not manager:
        raise missing_permissions()
    owner_edit = bool({"name", "auto_archive_duration"} & changes.keys()) or archived is True
    if owner_edit and not (starter or manager):
        raise missing_permissions()
    fields = {
        "name": changes.get("name", thread.name),
        "auto_archive_duration": changes.get("auto_archive_duration", thread.auto_archive_duration),
    }
    thread.name, thread.auto_archive_duration, _ = check_thread_fields(fields, with_type=False)
    now_archived = thread.archived if archived is None else bool(archived)
    set_archived(thread, now_archived, locked=None if locked is None else bool(locked))
