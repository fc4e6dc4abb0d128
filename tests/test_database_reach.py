"""The database asked before anything uses it: ``python -m bot`` before it logs in to Discord,
``parlor db upgrade`` before it upgrades; each failure told in one line, the password hidden.

Nothing here needs a PostgreSQL server: a loopback port nobody listens on refuses, a ``.invalid``
host name is never found (RFC 6761), and a SQLite file in a missing folder cannot be opened.
"""

from __future__ import annotations

import errno
import socket
import subprocess
from pathlib import Path

import asyncpg
import pytest

from db.reach import diagnosis, shown

from .bot_command import run_module

PASSWORD = "hunter2-not-shown"

ENTRY_POINTS = {
    "python -m bot": ["bot"],
    "parlor db upgrade": ["bot.cli", "db", "upgrade"],
    "parlor web": ["bot.cli", "web"],
}


def unused_port() -> int:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        return int(unused.getsockname()[1])


def nowhere() -> dict[str, str]:
    """Discord at a loopback port nobody listens on: a bot that tried to log in would say so
    and try again for ever."""
    port = unused_port()
    return {
        "DISCORD_API_BASE_URL": f"http://127.0.0.1:{port}/api/v10",
        "DISCORD_GATEWAY_URL": f"ws://127.0.0.1:{port}/",
    }


def start(tmp_path: Path, entry: str, database_url: str) -> subprocess.CompletedProcess[str]:
    return run_module(tmp_path, ENTRY_POINTS[entry], DATABASE_URL=database_url, **nowhere())


def told(done: subprocess.CompletedProcess[str]) -> str:
    """The last line on stderr, once the process gave up on the database (exit status 1)."""
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert PASSWORD not in done.stderr and PASSWORD not in done.stdout
    assert "Could not log in to Discord" not in done.stderr
    return done.stderr.splitlines()[-1]


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_a_refused_connection_is_tried_again_then_told_in_one_line(
    entry: str, tmp_path: Path
) -> None:
    port = unused_port()
    done = start(tmp_path, entry, f"postgresql+asyncpg://parlor:{PASSWORD}@127.0.0.1:{port}/db")

    line = told(done)
    assert line.startswith(
        f"Could not reach the database at postgresql+asyncpg://parlor:***@127.0.0.1:{port}/db "
        "(Connection refused; tried 4 times). Check DATABASE_URL"
    )
    retries = [x for x in done.stderr.splitlines() if "trying again in" in x]
    assert len(retries) == 3, done.stderr
    assert all("(Connection refused)" in x for x in retries)


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_a_host_name_not_found_is_named_a_dns_failure(entry: str, tmp_path: Path) -> None:
    done = start(tmp_path, entry, f"postgresql+asyncpg://parlor:{PASSWORD}@db.invalid/parlor")

    line = told(done)
    assert line.startswith("Could not reach the database at postgresql+asyncpg://parlor:***@")
    assert "the host name db.invalid was not" in line and "(DNS)" in line, line
    assert "Unknown error" not in done.stderr


def test_a_sqlite_file_in_a_missing_folder_is_told_in_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "no such folder" / "parlor.db"
    done = start(tmp_path, "python -m bot", f"sqlite+aiosqlite:///{missing}")

    [line] = done.stderr.splitlines()
    assert line == told(done)
    assert line.startswith(f"Could not open the SQLite database sqlite+aiosqlite:///{missing} ")
    assert "(unable to open database file)" in line


URL = f"postgresql+asyncpg://parlor:{PASSWORD}@db.example.org/parlor"


@pytest.mark.parametrize(
    ("error", "says", "passing"),
    [
        (ConnectionRefusedError(errno.ECONNREFUSED, "refused"), "Connection refused", True),
        (TimeoutError(), "no answer within 10 s", True),
        (socket.gaierror(socket.EAI_AGAIN, "busy"), "db.example.org could not be looked up", True),
        (
            socket.gaierror(socket.EAI_NONAME, "unknown"),
            "db.example.org was not found (DNS)",
            False,
        ),
        (asyncpg.CannotConnectNowError("starting up"), "cannot take a connection now", True),
        (asyncpg.InvalidPasswordError("no"), "refused the user name or password", False),
        (asyncpg.InvalidCatalogNameError("no"), "no database of that name", False),
    ],
)
def test_what_may_pass_is_tried_again_and_what_will_not_is_told_at_once(
    error: BaseException, says: str, passing: bool
) -> None:
    reason, tried_again = diagnosis(error, URL)
    assert says in reason and tried_again is passing
    assert PASSWORD not in reason


def test_a_shown_url_hides_the_password_and_the_query() -> None:
    assert shown(f"{URL}?password={PASSWORD}&ssl=require") == (
        "postgresql+asyncpg://parlor:***@db.example.org/parlor"
    )
