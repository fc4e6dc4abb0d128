"""The terminal's tests read English unless they say otherwise, whatever the locale of the
machine running them (``parlor play`` speaks the environment's language)."""

from __future__ import annotations

import pytest

from tests.terminal.pty_play import ENGLISH


@pytest.fixture(autouse=True)
def english_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable, value in ENGLISH.items():
        monkeypatch.setenv(variable, value)
