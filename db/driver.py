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

A ``DriverQuery`` does the same for a read with one list of values (an expanding ``IN``): its
SQL for each length of the list, and the type processors of its columns. It runs on the
driver's own cursor: even ``exec_driver_sql`` builds a description of the result's columns on
every call, which for a wide row costs more than the read.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, exc
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.compiler import ExpandedState, SQLCompiler
from sqlalchemy.sql.expression import ClauseElement, Select

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


@dataclass(frozen=True, slots=True)
class _Expanded:
    sql: str
    parameters: tuple[tuple[int | None, Any], ...]
    """``(place in the list, None)`` for the list's values, ``(None, constant)`` for the others,
    in the driver's order."""
    names: tuple[str, ...] | None
    """The parameters' names, where the driver takes them by name."""


class DriverQuery:
    """A SELECT with one list of values (``bindparam(listed, expanding=True)``), run on the
    driver's cursor.

    The list's values get no type processing (ids). The engine's ``before_cursor_execute`` and
    ``after_cursor_execute`` listeners see the statement, without an execution context (None);
    what they return is used, as the engine would. A failure is raised as SQLAlchemy's own
    exception, its parameters hidden.
    """

    def __init__(self, statement: Select[Any], listed: str) -> None:
        self.statement = statement
        self.listed = listed
        self._by_dialect: weakref.WeakKeyDictionary[Dialect, _Reader] = weakref.WeakKeyDictionary()

    def rows(self, connection: Connection, values: Sequence[Any]) -> list[list[Any]]:
        """The statement's rows with ``values`` as the list, each column's value as its type
        reads it."""
        dialect = connection.dialect
        reader = self._by_dialect.get(dialect)
        if reader is None:
            reader = self._by_dialect[dialect] = _Reader(self.statement, self.listed, dialect)
        expanded = reader.expanded(len(values))
        listed = [value if place is None else values[place] for place, value in expanded.parameters]
        parameters: Any = (
            listed if expanded.names is None else dict(zip(expanded.names, listed, strict=True))
        )
        rows = _fetch(connection, expanded.sql, parameters)
        processed = reader.processed
        for row in rows:
            for column, process in processed:
                row[column] = process(row[column])
        return rows


class _Reader:
    """A ``DriverQuery``'s statement compiled for one dialect."""

    def __init__(self, statement: Select[Any], listed: str, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)  # a Core statement, not DDL
        self.compiled = compiled
        self.listed = listed
        self.positional = compiled.positional
        self.processed = tuple(
            (column, process)
            for column, selected in enumerate(statement.selected_columns)
            if (process := selected.type.dialect_impl(dialect).result_processor(dialect, None))
        )
        """``(column, processor)`` for the columns whose type reads them."""
        self._by_length: dict[int, _Expanded] = {}

    def expanded(self, length: int) -> _Expanded:
        """The statement for a list of ``length`` values (bounded by the callers' batches)."""
        found = self._by_length.get(length)
        if found is None:
            found = self._by_length[length] = self._expand(length)
        return found

    def _expand(self, length: int) -> _Expanded:
        state = self.compiled.construct_expanded_state({self.listed: [None] * length})
        places = {name: place for place, name in enumerate(state.parameter_expansion[self.listed])}
        if any(name in state.processors for name in places):
            raise ValueError(f"the values of {self.listed} would need a type processor")
        names = tuple(state.positiontup or state.parameters)
        parameters = tuple(
            (places[name], None) if name in places else (None, _constant(state, name))
            for name in names
        )
        return _Expanded(state.statement, parameters, None if self.positional else names)


def _constant(state: ExpandedState, name: str) -> Any:
    value = state.parameters[name]
    process = state.processors.get(name)
    return value if process is None else process(value)


def _fetch(connection: Connection, sql: str, parameters: Any) -> list[list[Any]]:
    """Every row of ``sql`` on the connection's driver cursor, through the engine's cursor
    listeners and its exception types."""
    dispatch = connection.dispatch
    cursor = connection.connection.cursor()
    try:
        for listener in dispatch.before_cursor_execute:
            sql, parameters = listener(connection, cursor, sql, parameters, None, False)
        cursor.execute(sql, parameters)
        dispatch.after_cursor_execute(connection, cursor, sql, parameters, None, False)
        return [list(row) for row in cursor.fetchall()]
    except connection.dialect.loaded_dbapi.Error as error:
        raise exc.DBAPIError.instance(
            sql,
            parameters,
            error,
            connection.dialect.loaded_dbapi.Error,
            hide_parameters=True,
            dialect=connection.dialect,
        ) from error
    finally:
        cursor.close()
