"""``python -m bot``: run Parlor with the settings from the environment and ``.env``."""

from __future__ import annotations

import logging
import sys
import textwrap

from pydantic import ValidationError

from bot import single_process
from bot.chat.app import PERMISSIONS, SCOPES, Parlor, point_at
from bot.fleet import FleetRefused
from bot.settings import Settings

EXIT_CONFIG = 2
EXIT_IN_USE = 3
"""Another process already runs this database file, or these shards."""

NO_TOKEN = (
    "Parlor needs a Discord bot token, and none is set. Create the bot once: in the Discord "
    "Developer Portal (https://discord.com/developers/applications) press New Application and "
    "name it; on its Bot page press Reset Token and copy the token. No privileged gateway intent "
    "is needed: leave Presence, Server Members and Message Content off. To add the bot to a "
    "server, on the OAuth2 page's URL Generator tick the scopes "
    f"{' and '.join(SCOPES)} and the permissions View Channels, Send Messages, Send Messages "
    "in Threads, Embed Links and Read Message History (permission integer "
    f"{PERMISSIONS.value}), then open the generated link. Put the token in a file named .env "
    "in the directory you start the bot from, as DISCORD_TOKEN=your-token (see .env.example), "
    "or set the environment variable DISCORD_TOKEN, and start the bot again."
)


def main() -> int:
    """Run the bot until it is stopped; the exit status."""
    try:
        settings = Settings()
    except ValidationError as error:
        print(f"Invalid settings:\n{error}", file=sys.stderr)
        return EXIT_CONFIG
    if settings.discord_token is None:
        print(textwrap.fill(NO_TOKEN, width=100), file=sys.stderr)
        return EXIT_CONFIG
    try:
        settings.timeouts()
    except ValueError as error:
        print(f"Invalid timeout setting: {error}", file=sys.stderr)
        return EXIT_CONFIG
    left_out = single_process.shards_left_out(
        settings.database_url, settings.shards(), settings.shard_count
    )
    if left_out is not None:
        print(textwrap.fill(left_out, width=100), file=sys.stderr)
        return EXIT_CONFIG
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
    )
    point_at(settings.discord_api_base_url, settings.discord_gateway_url)
    try:
        with single_process.holding(settings.database_url):
            bot = Parlor(settings)
            bot.run(settings.discord_token.get_secret_value(), log_handler=None)
            if bot.refused is not None:
                raise bot.refused
    except (single_process.AlreadyRunning, FleetRefused) as refused:
        print(textwrap.fill(str(refused), width=100), file=sys.stderr)
        return EXIT_IN_USE
    return 0


if __name__ == "__main__":
    sys.exit(main())
