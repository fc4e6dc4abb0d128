"""``SHARD_COUNT`` and ``SHARD_IDS``: which shards a process runs, and discord.py's options."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.chat.app import shard_options
from bot.settings import Settings, parse_shard_ids


def settings(**values: object) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg, arg-type]


@pytest.mark.parametrize(
    ("text", "count", "shards"),
    [
        ("0", 1, (0,)),
        ("0,1", 2, (0, 1)),
        ("0-3", 4, (0, 1, 2, 3)),
        (" 3 , 0-1 ", 4, (0, 1, 3)),
        ("7", 8, (7,)),
    ],
)
def test_shard_ids_list_numbers_and_ranges(text: str, count: int, shards: tuple[int, ...]) -> None:
    assert parse_shard_ids(text, count) == shards


@pytest.mark.parametrize(
    ("text", "count", "says"),
    [
        ("2", 2, "names a shard past SHARD_COUNT"),
        ("0-4", 4, "names a shard past SHARD_COUNT"),
        ("3-1", 4, "runs backwards"),
        ("0,0-1", 2, "names a shard twice"),
        ("one", 2, "e.g. '0,1' or '0-3'"),
        ("", 2, "e.g. '0,1' or '0-3'"),
        ("-1", 2, "e.g. '0,1' or '0-3'"),
    ],
)
def test_bad_shard_ids_are_refused_with_what_is_valid(text: str, count: int, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        parse_shard_ids(text, count)


def test_unset_leaves_the_count_to_discord_and_runs_every_shard() -> None:
    chosen = settings()
    assert chosen.shards() is None
    assert shard_options(chosen) == {}


def test_a_count_alone_runs_every_shard_of_that_count() -> None:
    assert shard_options(settings(shard_count=3)) == {"shard_count": 3}


def test_shard_ids_name_the_shards_this_process_runs() -> None:
    chosen = settings(shard_count=4, shard_ids="2-3")
    assert chosen.shards() == (2, 3)
    assert shard_options(chosen) == {"shard_count": 4, "shard_ids": [2, 3]}


def test_shard_ids_need_a_count() -> None:
    with pytest.raises(ValidationError, match="SHARD_IDS needs SHARD_COUNT"):
        settings(shard_ids="0")


def test_the_settings_refuse_shard_ids_outside_the_count() -> None:
    with pytest.raises(ValidationError, match="names a shard past SHARD_COUNT"):
        settings(shard_count=2, shard_ids="0,2")


def test_the_count_is_at_least_one() -> None:
    with pytest.raises(ValidationError):
        settings(shard_count=0)
