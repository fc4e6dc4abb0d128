"""What the README and docs/ tell a host or translator, held against the code that does it."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import aiohttp
import discord
import pytest
from babel.messages.pofile import read_po
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.__main__ import login_problem, permission_names
from bot.chat.app import PERMISSIONS
from bot.i18n import catalog, speaking
from bot.settings import Settings
from bot.wiring import build

from .bot_command import run_bot
from .i18n.test_catalogs import marked
from .test_startup import http_error

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
DOCS = {path.name: path.read_text() for path in (ROOT / "docs").glob("*.md")}


def flat(text: str) -> str:
    return " ".join(text.split())


# ------------------------------------------------------------------------- permissions


def readme_invite_permissions() -> list[str]:
    """The permissions README's "Invite it" step lists, without their asides."""
    step = flat(README).split("4. **Invite it.**")[1].split("Slash commands appear")[0]
    listed = re.sub(r" \([^)]*\)", "", step.split("and the permissions ", 1)[1]).rstrip(". ")
    *most, last = listed.split(", ")
    return [*most, *last.split(" and ")]


def test_the_invite_names_every_permission_the_bot_asks_for() -> None:
    names = permission_names()
    assert len(names) == sum(1 for _, granted in PERMISSIONS if granted)
    assert "Create Public Threads" in names  # a thread per match, tournament rounds
    assert sorted(readme_invite_permissions()) == sorted(names)


def test_the_no_token_message_names_every_permission_the_invite_asks_for(
    tmp_path: Path,
) -> None:
    done = run_bot(tmp_path, token=None)

    assert done.returncode == 2
    said = flat(done.stderr)
    for name in permission_names():
        assert name in said
    assert f"permission integer {PERMISSIONS.value}" in said


# ------------------------------------------------------------------------- log-in problems


@pytest.mark.parametrize(
    "error",
    [
        discord.LoginFailure("Improper token has been passed."),
        http_error(404),
        http_error(503),
        aiohttp.ServerDisconnectedError(),
    ],
    ids=["wrong token", "not Discord", "down", "unreachable"],
)
def test_a_login_problem_is_two_lines_what_and_what_to_do(error: Exception) -> None:
    """The README's "told in two lines"; the bot as a process is held to it in
    tests/e2e/test_bot_process.py."""
    lines = login_problem(error, "https://discord.com/api/v10").splitlines()
    assert len(lines) == 2
    assert "is told in two lines" in flat(README)


# ------------------------------------------------------------------------- benchmarks


def bench_target() -> set[str]:
    makefile = (ROOT / "Makefile").read_text()
    target = makefile.split("\nbench:", 1)[1].split("\n\n", 1)[0]
    return set(re.findall(r"-m bench\.(\w+)", target))


def test_make_bench_runs_every_benchmark_the_docs_describe() -> None:
    modules = {p.stem for p in (ROOT / "bench").glob("*.py") if not p.stem.startswith("_")}
    described = {
        name
        for text in [README, *DOCS.values()]
        for name in re.findall(r"\bbench\.(\w+)", text)
        if name in modules
    }
    counts = {"move_path"}  # not a timing: a count of the functions one press enters
    assert described - counts <= bench_target()
    assert bench_target() <= modules
    assert modules - bench_target() <= counts


# ------------------------------------------------------------------------- translations


def documented_extracts() -> list[list[str]]:
    """Every ``pybabel extract`` command docs/translating.md gives, as arguments."""
    text = DOCS["translating.md"].replace("\\\n", " ")
    return [
        shlex.split(line.split("pybabel", 1)[1])
        for line in text.splitlines()
        if line.lstrip().startswith(".venv/bin/pybabel extract")
    ]


def test_every_documented_extract_finds_every_message(tmp_path: Path) -> None:
    commands = documented_extracts()
    assert len(commands) == 2  # adding a language, and updating one
    expected = {key if isinstance(key, str) else key[0] for key in marked()}
    for arguments in commands:
        arguments[arguments.index("-o") + 1] = str(tmp_path / "parlor.pot")
        subprocess.run(
            [sys.executable, "-m", "babel.messages.frontend", *arguments],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        with (tmp_path / "parlor.pot").open("rb") as handle:
            found = {
                message.id if isinstance(message.id, str) else message.id[0]
                for message in read_po(handle)
                if message.id
            }
        assert expected <= found, sorted(expected - found)[:5]


async def test_a_language_is_read_the_first_time_it_is_needed(engine: AsyncEngine) -> None:
    catalog.cache_clear()
    app = build(Settings(_env_file=None), engine=engine)  # type: ignore[call-arg]
    async with app.client:
        await app.load_commands()
        assert catalog.cache_info().currsize == 0  # building the bot read no language

        with speaking("de"):
            pass
        assert catalog.cache_info().currsize == 1
    assert "read at start" not in flat(README)
    assert "the first time that language is needed" in flat(DOCS["translating.md"])
