"""Texts name a command by Discord's mention once its ID is known, and as ``/name`` before."""

from __future__ import annotations

from bot.i18n import mentions


def test_before_a_sync_a_command_reads_as_typed() -> None:
    assert mentions.command("resign") == "`/resign`"
    assert mentions.command("crown  challenge") == "`/crown challenge`"
    assert mentions.command("settings web:off") == "`/settings web:off`"


def test_a_synced_command_is_mentioned_with_its_top_level_id() -> None:
    mentions.remember({"resign": 11, "crown": 22})
    assert mentions.command("resign") == "</resign:11>"
    assert mentions.command("crown challenge") == "</crown challenge:22>"
    assert mentions.command("stats") == "`/stats`"  # not registered: as typed
    mentions.remember({"settings": 33})
    # Options follow the mention: Discord's mentions cannot carry them.
    assert mentions.command("settings web:off") == "</settings:33> `web:off`"


def test_a_new_sync_replaces_the_ids() -> None:
    mentions.remember([("resign", 11), ("stats", 12)])
    mentions.remember([("resign", 31)])
    assert mentions.known() == {"resign": 31}
    assert mentions.command("stats") == "`/stats`"
    mentions.forget()
    assert mentions.command("resign") == "`/resign`"
