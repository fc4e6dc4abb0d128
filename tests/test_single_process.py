"""One bot process per SQLite file: the file lock, its release when a holder is killed, and what
``python -m bot`` says when it cannot run on the settings' database."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.single_process import AlreadyRunning, holding, shards_left_out, sqlite_file

from .bot_command import run_bot

ROOT = Path(__file__).resolve().parents[1]

HOLDER = """
import sys, time
from bot.single_process import holding
with holding(sys.argv[1]):
    print("held", flush=True)
    time.sleep(600)
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """Another process holding a SQLite file: its URL and the process."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'parlor.db'}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, url], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert process.stdout is not None and process.stdout.readline() == "held\n"
        yield url, process
    finally:
        process.kill()
        process.wait()


def test_the_url_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert sqlite_file(None) == tmp_path / "parlor.db"
    assert sqlite_file("sqlite+aiosqlite:///data/p.db") == tmp_path / "data" / "p.db"
    assert sqlite_file("sqlite+aiosqlite:////srv/p.db") == Path("/srv/p.db")
    assert sqlite_file("sqlite+aiosqlite:///file:p.db?uri=true") == tmp_path / "p.db"
    for nothing_to_hold in (
        "sqlite+aiosqlite://",
        "sqlite+aiosqlite:///:memory:",
        "sqlite+aiosqlite:///file:p.db?mode=memory&uri=true",
        "postgresql+asyncpg://parlor@127.0.0.1/parlor",
    ):
        assert sqlite_file(nothing_to_hold) is None


def test_a_second_holder_is_refused_with_postgresql_as_the_way(
    holder: tuple[str, subprocess.Popen[str]],
) -> None:
    url, _ = holder
    with pytest.raises(AlreadyRunning) as refused, holding(url):
        pass
    said = str(refused.value)
    assert "in use by another Parlor bot process" in said
    assert "PostgreSQL" in said and "SHARD_IDS" in said


def test_a_killed_holder_leaves_the_file_free(holder: tuple[str, subprocess.Popen[str]]) -> None:
    url, process = holder
    with pytest.raises(AlreadyRunning), holding(url):
        pass
    process.send_signal(signal.SIGKILL)
    process.wait()
    with holding(url) as held:
        assert held == sqlite_file(url)


def test_one_process_holds_a_file_once_and_releases_it(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'parlor.db'}"
    with holding(url), pytest.raises(AlreadyRunning), holding(url):
        pass
    with holding(url):
        pass


def test_postgresql_and_memory_hold_nothing() -> None:
    with holding("postgresql+asyncpg://parlor@127.0.0.1/parlor") as held:
        assert held is None
    with holding("sqlite+aiosqlite://") as held, holding("sqlite+aiosqlite://"):
        assert held is None


def test_sqlite_runs_every_shard_in_its_one_process() -> None:
    sqlite, postgresql = "sqlite+aiosqlite:///p.db", "postgresql+asyncpg://parlor@localhost/p"
    assert shards_left_out(sqlite, None, None) is None
    assert shards_left_out(sqlite, None, 4) is None
    assert shards_left_out(sqlite, (0, 1), 2) is None
    assert shards_left_out(postgresql, (1,), 2) is None
    said = shards_left_out(sqlite, (0, 2), 4)
    assert said is not None and "leaves shard 1, 3 to another" in said and "PostgreSQL" in said


def test_the_bot_refuses_a_sqlite_file_another_process_holds(
    holder: tuple[str, subprocess.Popen[str]], tmp_path: Path
) -> None:
    url, _ = holder
    done = run_bot(tmp_path, DATABASE_URL=url)
    assert done.returncode == 3
    said = " ".join(done.stderr.split())
    assert "in use by another Parlor bot process" in said and "PostgreSQL" in said


def test_the_bot_refuses_to_leave_shards_out_on_sqlite(tmp_path: Path) -> None:
    done = run_bot(tmp_path, SHARD_COUNT="2", SHARD_IDS="0")
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1
    said = " ".join(done.stderr.split())
    assert "leaves shard 1 to another" in said and "PostgreSQL" in said


def test_the_bot_explains_bad_shard_settings(tmp_path: Path) -> None:
    done = run_bot(tmp_path, SHARD_IDS="0-1")
    assert done.returncode == 2
    assert "SHARD_IDS needs SHARD_COUNT" in done.stderr
