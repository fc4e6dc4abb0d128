"""``parlor web``: a server's leaderboards, player pages and replays, read only, from the bot's
database, for servers whose managers turned them on (``/settings web:on``).

A layer of its own above ``db``, ``games`` and ``bot.service`` (never the Discord side): the web
process can run, scale and restart apart from the bot processes.
"""
