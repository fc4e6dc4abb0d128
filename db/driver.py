"""Core statements compiled once per dialect and run with the driver's own ``executemany``.

``Connection.execute`` compiles (from a cache), then builds every row's parameters through a
general machinery: defaults, type processors, an execution context. For the few statements a
batch of moves runs with many rows, that machinery costs more than the database's own work.
A ``DriverStatement`` does it once per dialect: the SQL text, the order of its parameters and
each one's type processor. A run then only applies those processors to the rows and passes
them to ``Connection.exec_driver_sql``, which keeps the engine's events and error handling.

Each row must give every parameter of the statement (its ``bindparam`` names, or an INSERT's
``column_keys``, and an UPDATE's ``onupdate`` columns by their names): no column defaults are
applied on this path. A bind made with a value (the 1 of ``version + 1``) is a constant of the
statement.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement

Processor = Callable[[Any], Any] | None


_ROW = object()
"""Marks a parameter taken from each row (the others are constants of the statement)."""


@dataclass(frozen=True, slots=True)
class _Compiled:
    sql: str
    parameters: tuple[tuple[str, Processor, Any], ...]
    """``(name, processor, constant or _ROW)`` in the driver's order."""
    positional: bool


class DriverStatement:
    """``statement`` with the parameters ``column_keys`` (an INSERT's columns) or its binds."""

    def __init__(self, statement: ClauseElement, column_keys: Sequence[str] | None = None) -> None:
        self.statement = statement
        self.column_keys = list(column_keys) if column_keys is not None else None
        self._by_dialect: weakref.WeakKeyDictionary[Dialect, _Compiled] = (
            weakref.WeakKeyDictionary()
        )

    def execute(self, connection: Connection, rows: Sequence[Mapping[str, Any]]) -> int:
        """Run the statement once for each row (one ``executemany``); the rows it matched.

        Where the driver does not count an executemany's rows (asyncpg), the count is -1.
        """
        if not rows:
            return 0
        compiled = self._compiled(connection.dialect)
        values = [
            [
                constant
                if constant is not _ROW
                else row[name]
                if process is None
                else process(row[name])
                for name, process, constant in compiled.parameters
            ]
            for row in rows
        ]
        if compiled.positional:
            parameters: list[Any] = [tuple(row) for row in values]
        else:
            names = [name for name, _, _ in compiled.parameters]
            parameters = [dict(zip(names, row, strict=True)) for row in values]
        result = connection.exec_driver_sql(compiled.sql, parameters)
        return int(result.rowcount)

    def _compiled(self, dialect: Dialect) -> _Compiled:
        found = self._by_dialect.get(dialect)
        if found is None:
            found = self._by_dialect[dialect] = self._compile(dialect)
        return found

    def _compile(self, dialect: Dialect) -> _Compiled:
        compiled = self.statement.compile(
            dialect=dialect, column_keys=self.column_keys, for_executemany=True
        )
        assert isinstance(compiled, SQLCompiler)  # a Core statement, not DDL
        names = compiled.positiontup if compiled.positional else list(compiled.binds)
        parameters: list[tuple[str, Processor, Any]] = []
        for name in names or ():
            bind = compiled.binds[name]
            process = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if bind.required or (bind.value is None and bind.callable is None):
                parameters.append((name, process, _ROW))
            else:  # a constant of the statement, such as the 1 of ``version + 1``
                value = bind.effective_value
                parameters.append((name, None, value if process is None else process(value)))
        return _Compiled(compiled.string, tuple(parameters), compiled.positional)
