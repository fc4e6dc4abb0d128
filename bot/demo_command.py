"""What ``parlor demo`` prints and serves around ``bot.demo``."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import games
from bot import demo
from bot.settings import read_settings


def run(path: Path, *, matches: int, seed: int, force: bool, serve: bool) -> int:
    """Make the demo at ``path`` and print how to see it; serve it when ``serve``. The exit
    status: 2 when ``path`` is another database and not ``force``, or a setting is bad."""
    host = read_settings()  # a bad setting ends here, in one line, before any match is played
    try:
        demo.clear(path, force=force)
    except demo.NotADemo:
        print(
            f"parlor demo: {path} exists and is not a demo database; it is left as it is. "
            "Give another --database, or --force to replace it.",
            file=sys.stderr,
        )
        return 2
    path.parent.mkdir(parents=True, exist_ok=True)
    count = matches * len(games.GAMES)
    print(f"Playing {count} matches between {len(demo.MEMBERS)} made-up members...", flush=True)
    made = asyncio.run(demo.make(path, matches=matches, seed=seed))
    settings = host.model_copy(update={"database_url": made.url})
    print(f"Demo database: {path.resolve()}")
    print(f"Its web pages: {settings.web_link_base()}/s/{made.token}/")
    if serve:
        from web.server import serve as serve_site

        return asyncio.run(serve_site(settings))
    print(f"Serve them with:  parlor demo --serve, or DATABASE_URL={made.url} parlor web")
    return 0
