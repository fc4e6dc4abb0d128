"""Persistence: models, engine and sessions, queries and migrations. Knows no game and no Discord.

- ``db.engine``: ``create_engine(url)`` and ``session_factory(engine)``.
- ``db.models``: the tables.
- ``db.repository``: the queries, as async functions over a caller's session.
- ``db.migrate``: ``upgrade(url)`` brings a database to the newest schema.
"""
