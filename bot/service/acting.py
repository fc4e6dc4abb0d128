"""The member whose interaction runs a use case, handed to it as a value by the Discord side.

A use case that a member triggers takes them as ``Member``: an ``Acting`` (their id and the
client locale their interaction carried), or their bare id where no locale came with it (a
tool, a test). It stores that locale for their DMs in its own transaction, and only when it
changed. A use case that no member triggers (the sweeper, a deadline, a tournament's pairing)
is handed none.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Acting:
    """A member acting, and their client's locale (``None``: their interaction named none)."""

    user_id: int
    locale: str | None = None


Member = int | Acting
"""Who triggers a use case: an ``Acting``, or a member's id alone."""


def acting(member: Member) -> Acting:
    """``member`` as an ``Acting`` (a bare id: no locale known)."""
    return member if isinstance(member, Acting) else Acting(member)
