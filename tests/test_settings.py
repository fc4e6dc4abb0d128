"""The settings a host gives: bounds, Discord's addresses, and how a bad one is told at start.

The shard settings have their own file (``test_shard_settings.py``).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.service.timeouts import BOUNDS
from bot.settings import SWEEP_HIGH, SWEEP_LOW, VALID, Settings, problems

from .bot_command import run_bot, run_module

TOKEN = "MTIzNDU2Nzg5.Gh7Kq2.not-a-real-token-but-secret"


def settings(**values: object) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg, arg-type]


def refusal(**values: object) -> list[str]:
    """The lines a start-up would print for these settings (they must be refused)."""
    with pytest.raises(ValidationError) as refused:
        settings(**values)
    return problems(refused.value)


# ------------------------------------------------------------------------- bounds


def test_every_setting_says_what_it_accepts() -> None:
    assert set(VALID) == set(Settings.model_fields)


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "0", "-1", "0.01", "301", "1e9", "soon"])
def test_a_sweep_interval_out_of_bounds_is_refused(value: str) -> None:
    assert refusal(sweep_interval=value) == [
        "Invalid setting SWEEP_INTERVAL: it must be seconds from 0.1 to 300 (default 5)."
    ]


@pytest.mark.parametrize("value", [SWEEP_LOW, 5, SWEEP_HIGH])
def test_a_sweep_interval_within_bounds_is_taken(value: float) -> None:
    assert settings(sweep_interval=value).sweep_interval == value


@pytest.mark.parametrize("kind", sorted(BOUNDS))
@pytest.mark.parametrize("value", ["0", "-60", "inf", "nan", "10m", "1e30", str(10**30)])
def test_a_timeout_out_of_bounds_is_refused(kind: str, value: str) -> None:
    bounds = BOUNDS[kind]
    assert refusal(**{f"{kind}_timeout": value}) == [
        f"Invalid setting {kind.upper()}_TIMEOUT: it must be whole seconds from {bounds.low} "
        f"to {bounds.high} (default {bounds.default})."
    ]


@pytest.mark.parametrize("kind", sorted(BOUNDS))
def test_a_timeout_at_its_bounds_is_taken(kind: str) -> None:
    bounds = BOUNDS[kind]
    for value in (bounds.low, bounds.high):
        chosen = settings(**{f"{kind}_timeout": value})
        assert getattr(chosen.timeouts(), kind) == value


# ------------------------------------------------------------------------- addresses


@pytest.mark.parametrize(
    "url",
    [
        "https://discord.com/api/v10",
        "https://proxy.example:8443/api/v10",
        "http://127.0.0.1:5000/api/v10",
        "http://127.8.9.10/api",
        "http://[::1]:5000/api/v10",
        "http://localhost:5000/api/v10",
        "http://LOCALHOST/api",
    ],
)
def test_the_api_is_https_or_on_this_machine(url: str) -> None:
    assert settings(discord_api_base_url=url).discord_api_base_url == url


@pytest.mark.parametrize(
    "url",
    [
        "http://discord.com/api/v10",
        "http://10.0.0.5:8080/api/v10",
        "http://[::2]/api",
        "http://localhost.example.com/api",
        "http://127.0.0.1.example.com/api",
        "ftp://127.0.0.1/api",
        "discord.com/api/v10",
        "https:///api/v10",
        "wss://gateway.discord.gg/",
    ],
)
def test_the_api_elsewhere_than_this_machine_must_be_https(url: str) -> None:
    [line] = refusal(discord_api_base_url=url)
    assert line.startswith("Invalid setting DISCORD_API_BASE_URL: it must be an https:// URL")
    assert "http:// only to this machine (127.0.0.1, ::1 or localhost)" in line


@pytest.mark.parametrize(
    ("url", "taken"),
    [
        ("wss://gateway.discord.gg/", True),
        ("ws://127.0.0.1:5000/gateway", True),
        ("ws://[::1]:5000/gateway", True),
        ("ws://gateway.discord.gg/", False),
        ("https://gateway.discord.gg/", False),
    ],
)
def test_the_gateway_is_wss_or_on_this_machine(url: str, taken: bool) -> None:
    if taken:
        assert settings(discord_gateway_url=url).discord_gateway_url == url
    else:
        [line] = refusal(discord_gateway_url=url)
        assert line.startswith("Invalid setting DISCORD_GATEWAY_URL: it must be a wss:// URL")


# ------------------------------------------------------------------------- at start


BAD_SETTINGS: list[tuple[str, dict[str, str], list[str]]] = [
    ("infinite sweeps", {"SWEEP_INTERVAL": "inf"}, ["SWEEP_INTERVAL"]),
    ("shards without a count", {"SHARD_IDS": "0-1"}, ["SHARD_IDS needs SHARD_COUNT"]),
    ("the token as a server id", {"DEV_GUILD_ID": TOKEN}, ["DEV_GUILD_ID"]),
    ("the token as a log level", {"LOG_LEVEL": TOKEN}, ["LOG_LEVEL"]),
    ("plain http to Discord", {"DISCORD_API_BASE_URL": "http://discord.com/api/v10"}, ["API"]),
    (
        "several at once",
        {"TURN_TIMEOUT": "0", "HINT_TIMEOUT": "1e30", "SWEEP_INTERVAL": "nan"},
        ["TURN_TIMEOUT", "HINT_TIMEOUT", "SWEEP_INTERVAL"],
    ),
]


@pytest.mark.parametrize("in_dotenv", [False, True], ids=["environment", "dotenv"])
@pytest.mark.parametrize(
    ("variables", "named"), [c[1:] for c in BAD_SETTINGS], ids=[c[0] for c in BAD_SETTINGS]
)
def test_bad_settings_are_told_one_line_each_without_the_token(
    variables: dict[str, str], named: list[str], in_dotenv: bool, tmp_path: Path
) -> None:
    if in_dotenv:
        lines = [f"DISCORD_TOKEN={TOKEN}", *(f"{k}={v}" for k, v in variables.items())]
        (tmp_path / ".env").write_text("\n".join(lines) + "\n")
        done = run_bot(tmp_path, token=None)
    else:
        done = run_bot(tmp_path, token=TOKEN, **variables)

    assert done.returncode == 2
    said = done.stderr.splitlines()
    assert len(said) == len(named), done.stderr
    for line, name in zip(said, named, strict=True):
        assert line.startswith("Invalid setting") and name in line
    for secret in (TOKEN, TOKEN.split(".")[0], TOKEN.split(".")[-1]):
        assert secret not in done.stderr and secret not in done.stdout
    assert "Traceback" not in done.stderr


# ------------------------------------------------------------------------- every entry point


ENTRY_POINTS = {
    "python -m bot": ["bot"],
    "parlor run": ["bot.cli", "run"],
    "parlor web": ["bot.cli", "web"],
    "parlor db upgrade": ["bot.cli", "db", "upgrade"],
    "parlor demo": ["bot.cli", "demo"],
}

REFUSED: list[tuple[str, dict[str, str], str, list[str]]] = [
    # (case, settings, what the line names, what it must not show)
    ("the token as a server id", {"DEV_GUILD_ID": TOKEN}, "DEV_GUILD_ID", [TOKEN]),
    (
        "PostgreSQL without its driver",
        {"DATABASE_URL": "postgresql://parlor:hunter2@db.example.org/parlor"},
        "use postgresql+asyncpg://",
        ["hunter2", "db.example.org"],
    ),
]


def assert_refused_in_one_line(
    done: subprocess.CompletedProcess[str], named: str, unsaid: list[str]
) -> None:
    """Exit status 2, one line naming the setting, none of the values, no traceback."""
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("Invalid setting") and named in line
    for value in [*unsaid, TOKEN]:
        assert value not in done.stderr and value not in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
@pytest.mark.parametrize(
    ("variables", "named", "unsaid"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_every_entry_point_refuses_a_bad_setting_in_one_line_without_its_value(
    entry: str, variables: dict[str, str], named: str, unsaid: list[str], tmp_path: Path
) -> None:
    done = run_module(tmp_path, ENTRY_POINTS[entry], token=TOKEN, **variables)

    assert_refused_in_one_line(done, named, unsaid)
    assert not (tmp_path / "parlor.db").exists()  # refused before anything opened a database
    assert not (tmp_path / "parlor-demo.db").exists()


def test_a_shard_past_the_count_is_refused_without_its_number(tmp_path: Path) -> None:
    done = run_bot(tmp_path, token=TOKEN, SHARD_COUNT="4", SHARD_IDS="5")
    assert_refused_in_one_line(done, "SHARD_IDS names a shard past SHARD_COUNT", ["5"])


@pytest.mark.parametrize(
    ("url", "unsaid"),
    [
        ("hunter2", ["hunter2"]),
        ("mysql+aiomysql://parlor:hunter2@db.example.org/parlor", ["hunter2", "db.example.org"]),
        ("http://hunter2.example.org/parlor", ["hunter2"]),
    ],
)
def test_a_database_url_of_no_database_parlor_runs_on_says_what_is_valid(
    url: str, unsaid: list[str]
) -> None:
    [line] = refusal(database_url=url)
    assert line == f"Invalid setting DATABASE_URL: it must be {VALID['database_url']}."
    assert not any(value in line for value in unsaid)


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("postgresql://u:p@h/db", "use postgresql+asyncpg://..."),
        ("postgres://u:p@h/db", "use postgresql+asyncpg://..."),
        ("postgresql+psycopg2://u:p@h/db", "use postgresql+asyncpg://..."),
        ("postgres+asyncpg://u:p@h/db", "use postgresql+asyncpg://..."),
        ("sqlite:///parlor.db", "use sqlite+aiosqlite:///..."),
        ("sqlite+pysqlite:///parlor.db", "use sqlite+aiosqlite:///..."),
    ],
)
def test_a_database_url_without_the_async_driver_says_which_to_write(url: str, says: str) -> None:
    [line] = refusal(database_url=url)
    assert line.startswith("Invalid setting DATABASE_URL: ") and says in line
    assert "u:p@h" not in line and "parlor.db" not in line


@pytest.mark.parametrize(
    "url",
    [
        "sqlite+aiosqlite:///parlor.db",
        "sqlite+aiosqlite://",
        "sqlite+aiosqlite:///file:parlor.db?uri=true",
        "postgresql+asyncpg://parlor:secret@db.example.org:5432/parlor",
        "postgresql+asyncpg:///parlor",
    ],
)
def test_a_database_url_with_the_async_driver_is_taken(url: str) -> None:
    assert settings(database_url=url).database_url == url


def test_a_settings_file_that_is_not_utf8_is_told_in_one_line(tmp_path: Path) -> None:
    (tmp_path / ".env").write_bytes(
        f"DISCORD_TOKEN={TOKEN[:8]}\xff\xfe{TOKEN[8:]}\n".encode("latin-1")
    )
    done = run_module(tmp_path, ["bot.cli", "db", "upgrade"], token=None)

    assert done.returncode == 2
    assert done.stderr == "Cannot read the settings file .env: it is not UTF-8 text.\n"
