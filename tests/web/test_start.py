"""``parlor web`` as a host starts it: one line for whatever keeps it from serving (exit 2 for
a setting to change, 1 for an address another program holds), and a quiet start."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from db.migrate import upgrade
from tests.bot_command import ROOT, SETTINGS

Database = tuple[Path, str]


def environment(**variables: str) -> dict[str, str]:
    """``variables``, and none of this environment's own Parlor settings."""
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS}
    env["PYTHONPATH"] = str(ROOT)
    return env | variables


COMMAND = [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main(['web']))"]


def run_web(cwd: Path, **variables: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        COMMAND,
        cwd=cwd,
        env=environment(**variables),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def database(tmp_path: Path) -> Database:
    """An upgraded SQLite file in a data folder of its own: its path and URL."""
    folder = tmp_path / "data"
    folder.mkdir()
    path = folder / "parlor.db"
    url = f"sqlite+aiosqlite:///{path}"
    asyncio.run(upgrade(url))
    return path, url


@pytest.fixture
def listening() -> Iterator[int]:
    """A port another program listens on."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield int(other.getsockname()[1])


def one_line(result: subprocess.CompletedProcess[str], status: int) -> str:
    assert result.returncode == status, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_an_address_in_use_is_one_line_and_status_1(
    tmp_path: Path, database: Database, listening: int
) -> None:
    line = one_line(run_web(tmp_path, DATABASE_URL=database[1], WEB_PORT=str(listening)), status=1)
    assert line.startswith("parlor web: ") and "WEB_PORT is in use" in line
    assert str(listening) not in line


@pytest.mark.parametrize(
    ("variables", "named", "value"),
    [
        ({"WEB_HOST": "999.1.1.1"}, "WEB_HOST", "999.1.1.1"),
        ({"WEB_HOST": "192.0.2.254"}, "WEB_HOST", "192.0.2.254"),  # no address of this machine
        ({"WEB_TRUSTED_PROXIES": "127.0.0.1,proxy.internal"}, "WEB_TRUSTED_PROXIES", "proxy"),
        ({"WEB_PORT": "http"}, "WEB_PORT", "http"),
    ],
)
def test_a_bad_setting_is_one_line_and_status_2(
    tmp_path: Path, database: Database, variables: dict[str, str], named: str, value: str
) -> None:
    port = {"WEB_PORT": str(free_port())}
    line = one_line(run_web(tmp_path, DATABASE_URL=database[1], **(port | variables)), status=2)
    assert named in line and value not in line


def test_a_chart_folder_others_may_write_in_is_one_line_and_status_2(
    tmp_path: Path, database: Database
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    line = one_line(
        run_web(
            tmp_path,
            DATABASE_URL=database[1],
            WEB_PORT=str(free_port()),
            WEB_CHART_DIR=str(shared),
        ),
        status=2,
    )
    assert "WEB_CHART_DIR" in line and "other users may write" in line
    assert str(shared) not in line


async def test_a_start_says_where_the_pages_are_and_nothing_of_alembic(
    tmp_path: Path, database: Database
) -> None:
    process = await asyncio.create_subprocess_exec(
        *COMMAND,
        cwd=tmp_path,
        env=environment(DATABASE_URL=database[1], WEB_PORT=str(free_port())),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    try:
        started = await asyncio.wait_for(process.stdout.readline(), 60)
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = await asyncio.wait_for(process.communicate(), 60)
    assert started.startswith(b"Parlor's web pages on http://127.0.0.1:"), err
    assert process.returncode == 0
    assert b"alembic" not in err + out and b"INFO" not in err, err
    folder = database[0].parent / "parlor-web-charts"
    found = folder.lstat()
    assert stat.S_ISDIR(found.st_mode) and stat.S_IMODE(found.st_mode) == 0o700
