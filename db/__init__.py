"""Persistence: models, engine and sessions, queries and migrations. Knows no game and no Discord.

- ``db.engine``: ``create_engine(url)`` and ``session_factory(engine)``.
- ``db.models``: the tables, a module for each concern, all imported by the package.
- ``db.connection``: ``Db``, a caller's session or Core connection, which every query takes.
- ``db.matches``, ``db.match_events``, ``db.deadlines``, ``db.member_load``, ``db.outbox``,
  ``db.records``, ``db.server_timeouts``, ``db.bot_meta`` and the like: the queries, one module
  for each concern, as async functions over a caller's session or connection.
- ``db.migrate``: ``upgrade(url)`` brings a database to the newest schema.
"""
