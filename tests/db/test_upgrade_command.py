"""``parlor db upgrade`` creates the schema where DATABASE_URL (or the default file) points."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.cli import main


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {name for (name,) in rows}


def test_upgrade_creates_the_default_file_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert main(["db", "upgrade"]) == 0
    assert {"matches", "match_players", "match_events", "player_stats"} <= _tables(
        tmp_path / "parlor.db"
    )
    assert "up to date" in capsys.readouterr().out
    assert main(["db", "upgrade"]) == 0  # a second run has nothing to do


def test_upgrade_uses_database_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "elsewhere.db"
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{target}")
    assert main(["db", "upgrade"]) == 0
    assert "guild_settings" in _tables(target)
    assert not (tmp_path / "parlor.db").exists()
