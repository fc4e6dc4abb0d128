"""SQLite's own account of how it runs each statement (``EXPLAIN QUERY PLAN``), to show that a
lookup goes through an index rather than reading a whole table.

A scan costs nothing on a test's few rows and milliseconds on a server's history, so timing a
test would never show it; the plan does.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

EXPLAINED = ("SELECT", "UPDATE", "DELETE", "INSERT", "WITH")
EXEMPT = ("sqlite_", "alembic_version")
"""SQLite's own schema and the migrations' bookkeeping (read at start-up only)."""


@dataclass
class Plans:
    explained: list[str] = field(default_factory=list)
    """Every statement explained, its whitespace folded."""
    steps: list[str] = field(default_factory=list)
    """Every line of their plans, in order."""
    scans: list[tuple[str, str]] = field(default_factory=list)
    """``(plan line, statement)`` for each table a statement reads whole."""


@contextmanager
def plans_recorded(engine: AsyncEngine) -> Iterator[Plans]:
    """The plans of the statements run on ``engine``, a SQLite file, while the block runs:
    explained on a connection of their own, with the same parameters."""
    assert engine.url.database is not None
    explainer = sqlite3.connect(engine.url.database, check_same_thread=False)
    plans = Plans()

    def explain(_: Any, __: Any, statement: str, parameters: Any, ___: Any, many: bool) -> None:
        if not statement.lstrip().upper().startswith(EXPLAINED):
            return
        if many:
            parameters = parameters[0] if parameters else ()
        folded = " ".join(statement.split())
        plans.explained.append(folded)
        for row in explainer.execute(f"EXPLAIN QUERY PLAN {statement}", parameters):
            line = str(row[3])
            plans.steps.append(line)
            if not line.startswith("SCAN ") or line.endswith(("CONSTANT ROW", "CONSTANT ROWS")):
                continue
            if not line.removeprefix("SCAN ").startswith(EXEMPT):
                plans.scans.append((line, folded))

    target = engine.sync_engine
    event.listen(target, "before_cursor_execute", explain)
    try:
        yield plans
    finally:
        event.remove(target, "before_cursor_execute", explain)
        explainer.close()
