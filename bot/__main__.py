"""``python -m bot``: run Parlor with the settings from the environment and ``.env``."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
import sys
import textwrap

import aiohttp
import discord

from bot import single_process
from bot.chat import startup
from bot.chat.app import PERMISSIONS, SCOPES, Parlor, point_at
from bot.fleet import FleetRefused
from bot.settings import DISCORD_API, EXIT_CONFIG, Settings, read_settings
from bot.wiring import build
from db.reach import DatabaseUnreachable, reach_database

EXIT_DATABASE = 1
"""The database could not be reached or opened."""
EXIT_IN_USE = 3
"""Another process already runs this database file, or these shards."""
EXIT_UNAVAILABLE = 4
"""Discord failed the login in a way a restart may mend (down, or out of reach)."""
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
FULL_COLLECTION_EVERY = 100
"""Collections of the middle generation between two full ones (Python's default: 10)."""

log = logging.getLogger("bot")

PERMISSION_NAMES = {
    "view_channel": "View Channels",
    "send_messages": "Send Messages",
    "send_messages_in_threads": "Send Messages in Threads",
    "create_public_threads": "Create Public Threads",
    "embed_links": "Embed Links",
    "attach_files": "Attach Files",
    "read_message_history": "Read Message History",
}
"""Each permission the invite may ask for, as the Developer Portal's URL Generator names it."""


def permission_names() -> list[str]:
    """The permissions the invite asks for (``PERMISSIONS``), as the URL Generator names them."""
    named = {flag: name for flag, name in PERMISSION_NAMES.items() if getattr(PERMISSIONS, flag)}
    if discord.Permissions(**dict.fromkeys(named, True)) != PERMISSIONS:
        raise LookupError("PERMISSION_NAMES lacks a permission the invite asks for")
    return list(named.values())


def no_token() -> str:
    """What to do without a token: create the bot, invite it, set DISCORD_TOKEN."""
    *most, last = permission_names()
    return (
        "Parlor needs a Discord bot token, and none is set. Create the bot once: in the Discord "
        "Developer Portal (https://discord.com/developers/applications) press New Application "
        "and name it; on its Bot page press Reset Token and copy the token. No privileged "
        "gateway intent is needed: leave Presence, Server Members and Message Content off. To "
        "add the bot to a server, on the OAuth2 page's URL Generator tick the scopes "
        f"{' and '.join(SCOPES)} and the permissions {', '.join(most)} and {last} (permission "
        f"integer {PERMISSIONS.value}), then open the generated link. Put the token in a file "
        "named .env in the directory you start the bot from, as DISCORD_TOKEN=your-token (see "
        ".env.example), or set the environment variable DISCORD_TOKEN, and start the bot again."
    )


# Each login problem is two lines: what went wrong, then what to do (README, "Set-up").
BAD_TOKEN = (
    "Discord refused the bot token in DISCORD_TOKEN: it is wrong, or was reset since.",
    "In the Developer Portal (https://discord.com/developers/applications), on your "
    "application's Bot page, press Reset Token, put the new token in .env as "
    "DISCORD_TOKEN=..., and start again.",
)
UNREACHABLE = (
    "Could not reach Discord at {url} ({reason}).",
    "Check the network connection and, if you set it, DISCORD_API_BASE_URL; then start again.",
)
UNAVAILABLE = (
    "Discord at {url} answered the login with HTTP {status}: it is down or busy for now.",
    "Start again in a while (a service manager does).",
)
NOT_DISCORD = (
    "{url} answered the login with HTTP {status}: it does not look like Discord's API.",
    "Check DISCORD_API_BASE_URL (default {default}); then start again.",
)


def configure_logging(settings: Settings) -> None:
    """Log to stderr at ``LOG_LEVEL``; discord.py's loggers at INFO or above unless asked.

    discord.py logs every gateway event and REST body at DEBUG: they hold the secrets members
    choose, so those lines appear only with ``DISCORD_DEBUG_LOGGING=true``.
    """
    level = logging.getLevelNamesMapping()[settings.log_level]
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)-7s %(name)s: %(message)s")
    discord_level = level if settings.discord_debug_logging else max(level, logging.INFO)
    logging.getLogger("discord").setLevel(discord_level)


def main() -> int:
    """Run the bot until it is stopped; the exit status."""
    settings = read_settings()
    if settings.discord_token is None:
        print(textwrap.fill(no_token(), width=100), file=sys.stderr)
        return EXIT_CONFIG
    left_out = single_process.shards_left_out(
        settings.database_url, settings.shards(), settings.shard_count
    )
    if left_out is not None:
        print(left_out, file=sys.stderr)
        return EXIT_CONFIG
    configure_logging(settings)
    point_at(settings.discord_api_base_url, settings.discord_gateway_url)
    try:
        with single_process.holding(settings.database_url):
            try:  # before Discord: a bot logged in without its database serves nobody
                asyncio.run(reach_database(settings.database_url))
            except DatabaseUnreachable as failure:
                print(failure, file=sys.stderr)
                return EXIT_DATABASE
            except KeyboardInterrupt:
                return 130
            bot = build(settings).client
            # What start-up made (modules, catalogs, the parts) lives as long as the process:
            # the collector need not walk it again at each full collection, which took 100 to
            # 180 ms of a busy bot's CPU each time (``bench.e2e``).
            gc.freeze()
            # A full collection also waits for the objects not yet walked by one to reach a
            # quarter of those it walked last, which the freeze leaves few: under load it came
            # every tenth collection of the middle generation, every two seconds, 15 to 60 ms
            # each. Every hundredth, it runs about once in twenty seconds.
            young, middle, _full = gc.get_threshold()
            gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)
            try:
                asyncio.run(serve(bot, settings.discord_token.get_secret_value(), settings))
            except (
                discord.LoginFailure,
                aiohttp.ClientConnectionError,
                discord.HTTPException,
            ) as error:
                if bot.user is not None:  # logged in: not a problem with the token or address
                    raise
                print(login_problem(error, settings.discord_api_base_url), file=sys.stderr)
                return EXIT_UNAVAILABLE if startup.transient(error) else EXIT_CONFIG
            if bot.refused is not None:
                raise bot.refused
    except (single_process.AlreadyRunning, FleetRefused) as refused:
        print(textwrap.fill(str(refused), width=100), file=sys.stderr)
        return EXIT_IN_USE
    return 0


def login_problem(error: Exception, url: str) -> str:
    """What went wrong logging in to Discord, and on a second line what to do."""
    status = error.status if isinstance(error, discord.HTTPException) else None
    if isinstance(error, discord.LoginFailure):
        lines = BAD_TOKEN
    elif status is not None and startup.passing(status):
        lines = UNAVAILABLE
    elif status is not None:
        lines = NOT_DISCORD
    else:
        lines = UNREACHABLE
    reason = startup.reason(error)
    shown = startup.shown(url)
    return "\n".join(
        line.format(url=shown, status=status, default=DISCORD_API, reason=reason) for line in lines
    )


async def serve(bot: Parlor, token: str, settings: Settings) -> None:
    """Run the bot until it stops or SIGINT or SIGTERM asks it to, then shut it down.

    On a signal the bot stops taking requests and finishes those in progress before it logs
    out and closes the database (``Parlor.close``): a deploy or ``systemctl stop`` cuts no
    move in half.
    """
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError):  # platforms without signal handlers
            loop.add_signal_handler(signum, stop.set)
    if not await startup.reach_discord(settings.discord_api_base_url, token, stop):
        log.info("Stopped")
        return
    async with bot:
        running = asyncio.create_task(bot.start(token))
        stopping = asyncio.create_task(stop.wait())
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if not running.done():
            for signum in STOP_SIGNALS:  # a second signal stops the process at once
                with contextlib.suppress(NotImplementedError):
                    loop.remove_signal_handler(signum)
            log.info("Stopping: finishing the requests in progress (signal again: stop at once)")
            await bot.close()
        await running
    log.info("Stopped")


if __name__ == "__main__":
    sys.exit(main())
