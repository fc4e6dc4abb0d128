"""Command mentions: how a text names a slash command.

Discord shows ``</resign:ID>`` as the command in each reader's own client language, and a
click on it fills the command in. The ID is the top-level command's, known once the commands
are synced (``bot.chat.command_sync`` hands them to ``remember``); before that, and where
Discord is not involved (the terminal, the web pages), a command reads as typed, in code
(``/resign`` between backticks).

A text names a command through a placeholder filled with ``command``, so the catalogs never
hold a command's name or ID (and no backticks around the placeholder: a mention inside code is
not shown as one)::

    _("Use {command} to give up.", command=command("resign"))
    _("Challenge someone with {command}.", command=command("crown challenge"))
    _("{command} turns them off.", command=command("settings web:off"))

Options (``name:value``) follow the mention in code, as Discord's mentions cannot carry them
(and are written in English: the member types them). The IDs are the process's: every bot
process of one application syncs or reads the same commands.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["command", "forget", "known", "remember"]

_ids: dict[str, int] = {}


def command(name: str) -> str:
    """A mention of the command ``name`` (``"resign"``, ``"crown challenge"``, a group's
    subcommand included, options after it: ``"settings web:off"``): ``</crown challenge:ID>``
    once the IDs are known, else ``/crown challenge`` in code (between backticks)."""
    words = name.split()
    path = " ".join(word for word in words if ":" not in word)
    options = " ".join(word for word in words if ":" in word)
    ident = _ids.get(path.split(" ", 1)[0]) if path else None
    if ident is None:
        return f"`/{' '.join(words)}`"
    return f"</{path}:{ident}> `{options}`" if options else f"</{path}:{ident}>"


def remember(ids: Mapping[str, int] | Iterable[tuple[str, int]]) -> None:
    """The IDs Discord gave the top-level commands, by English name; replaces those known."""
    pairs = ids.items() if isinstance(ids, Mapping) else ids
    fresh = {str(name): int(ident) for name, ident in pairs}
    _ids.clear()
    _ids.update(fresh)


def known() -> dict[str, int]:
    """The command IDs known, by name (empty before the first sync)."""
    return dict(_ids)


def forget() -> None:
    """Forget the IDs: commands read ``/name`` again (a client logged out, or a test's end)."""
    _ids.clear()
