"""The folder the drawn charts are kept in: Parlor's own, private, and never followed out of.

The folder is opened once, as a descriptor, after checking that it is a real folder (not a
link), that this process's user owns it and that nobody else may write in it; every file
after is named relative to that descriptor, so a folder renamed or swapped later changes
nothing. A chart is written to a fresh random name opened exclusively without following links
(mode 0600), then renamed over its final name (a rename replaces a link, never writes through
it). A chart is read only if it is a regular file of ours with one name, opened without
following links. Another user who could plant a link in a shared temporary folder can do
nothing here: that folder is refused.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
import time
from pathlib import Path

CHART_NAME = re.compile(r"([0-9a-f]{24})-[0-9a-f]{16}\.png")
"""A chart's file: the member and game it draws (``slot``), then a hash of what it shows."""
PARTIAL_NAME = re.compile(r"\.[0-9a-f]{32}\.part")
PARTIAL_AGE = 3600.0
"""Seconds after which a partial file is a crashed writer's, and removed when the folder opens."""
MAX_CHART = 8 * 1024 * 1024
"""Bytes of a chart file read at most (one is some tens of kilobytes)."""
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class FolderRefused(Exception):
    """The chart folder is not a private folder of this user's (the text says why, in a
    line, without the folder's path: it is a setting's value)."""


def open_private(path: Path) -> int:
    """A descriptor of the folder ``path``, created (mode 0700) if missing; ``FolderRefused``
    if it is a link, not a folder, another user's, or others may write in it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)
        folder = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as error:
        raise FolderRefused(
            "it is a link or not a folder, or cannot be created or opened "
            f"({os.strerror(error.errno) if error.errno else type(error).__name__})"
        ) from None
    found = os.fstat(folder)
    problem = None
    if found.st_uid != os.geteuid():
        problem = "it belongs to another user"
    elif found.st_mode & 0o022:
        problem = "other users may write in it (make it mode 700)"
    if problem is not None:
        os.close(folder)
        raise FolderRefused(problem)
    return folder


class ChartFolder:
    """Reads and writes chart files in one private folder, by name only."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = open_private(path)
        self._drop_stale_partials()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def read(self, name: str) -> bytes | None:
        """The chart ``name``'s bytes; None if there is none, or if what has that name is
        anything but a regular file of ours (a link is never followed)."""
        if not CHART_NAME.fullmatch(name):
            return None
        try:
            if not _ours(os.stat(name, dir_fd=self.fd, follow_symlinks=False)):
                return None
            opened = os.open(name, READ_FLAGS, dir_fd=self.fd)
        except OSError:
            return None
        with os.fdopen(opened, "rb") as file:
            if not _ours(os.fstat(file.fileno())):
                return None
            return file.read(MAX_CHART)

    def write(self, name: str, data: bytes) -> None:
        """Keep ``data`` as chart ``name``, whole or not at all, and remove the charts of the
        same member and game it replaces."""
        matched = CHART_NAME.fullmatch(name)
        if matched is None:
            raise ValueError("not a chart's name")
        partial = f".{secrets.token_hex(16)}.part"
        opened = os.open(partial, WRITE_FLAGS, 0o600, dir_fd=self.fd)
        try:
            with os.fdopen(opened, "wb") as file:
                file.write(data)
            os.replace(partial, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(partial, dir_fd=self.fd)
            raise
        slot = matched[1]
        for other in os.listdir(self.fd):
            older = CHART_NAME.fullmatch(other)
            if other != name and older is not None and older[1] == slot:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(other, dir_fd=self.fd)

    def _drop_stale_partials(self) -> None:
        now = time.time()
        for name in os.listdir(self.fd):
            if PARTIAL_NAME.fullmatch(name):
                with contextlib.suppress(OSError):
                    found = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
                    if now - found.st_mtime > PARTIAL_AGE:
                        os.unlink(name, dir_fd=self.fd)


def _ours(found: os.stat_result) -> bool:
    """A regular file of this user's with no other name (no hard link to a file elsewhere)."""
    return stat.S_ISREG(found.st_mode) and found.st_uid == os.geteuid() and found.st_nlink == 1
