"""The ``parlor`` command.

Each subcommand is one ``run_*`` function taking the parsed arguments and returning the exit
status, plus its entry in ``build_parser``.
"""

from __future__ import annotations

import argparse
import getpass
import os
import secrets
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from bot import terminal
from bot.i18n import speaking
from bot.locales import LOCALES
from bot.terminal.language import from_environment, shipped
from games import GAMES
from games.base import JSON, InvalidOptions
from games.players import DEFAULT_LEVEL, LEVELS

Command = Callable[[argparse.Namespace], int]


EXIT_PIPE_CLOSED = 141
"""The reader of the output went away (``parlor --help | head -1``): 128 + SIGPIPE, as a
program that SIGPIPE ends exits."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``parlor`` with ``argv`` (default: the process arguments); the exit status.

    Output piped into a reader that stops early ends the command quietly.
    """
    try:
        try:
            return _run(argv)
        finally:
            sys.stdout.flush()  # here, where a closed pipe can be caught, not at exit
    except BrokenPipeError:
        # Python flushes stdout again at exit: point it at nothing so that flush succeeds.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE_CLOSED


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command: Command | None = getattr(args, "run", None)
    if command is None:
        parser.print_help()
        return 0
    return command(args)


def build_parser() -> argparse.ArgumentParser:
    """The ``parlor`` argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="parlor", description="Parlor: two-player duels of hidden-information games."
    )
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    play = commands.add_parser(
        "play",
        help="play a game at this terminal, two people or one against the bot",
        description="Play a game with two people at this terminal, one answer per line. "
        "Player 1 moves first. On a terminal the screen is cleared between the players and "
        "handed over before anything only one of them may see; piped input is a script "
        "(printf '...' | parlor play crown), and the last line says who won, naming the "
        "winner's seat (Player 1 or 2). With --vs-bot (or --level) you play against the "
        "built-in player. Numbers may be typed in the digits of any script (Arabic-Indic, "
        "fullwidth...): each reads as its 0-9. Ctrl+D stops the game (exit status 0 at a "
        "keyboard, 2 when piped answers run out). Type help at any prompt for the rules.",
    )
    play.add_argument("game", choices=sorted(GAMES), help="the game's short name")
    play.add_argument(
        "--names",
        nargs=2,
        metavar=("FIRST", "SECOND"),
        help="the players' names, Player 1's first (default: Player 1 and Player 2)",
    )
    play.add_argument("--seed", type=int, help="seed for the game's randomness (default: random)")
    play.add_argument("--size", type=int, choices=(3, 4), help="claim: grid size")
    play.add_argument(
        "--hidden", action="store_true", default=None, help="claim: numbers hidden until claimed"
    )
    play.add_argument("--hints", choices=("defender", "auto"), help="crown: who chooses hints")
    play.add_argument("--digits", type=int, metavar="N", help="safe: largest digit")
    play.add_argument("--length", type=int, metavar="N", help="safe: digits in a code")
    play.add_argument(
        "--max-guesses", type=int, metavar="N", help="safe: guesses each before the game ends"
    )
    play.add_argument("--vs-bot", action="store_true", help="play against the built-in player")
    play.add_argument(
        "--level",
        choices=LEVELS,
        help=f"how well the bot plays, and play against it (default: {DEFAULT_LEVEL})",
    )
    play.add_argument(
        "--bot-first",
        action="store_true",
        help="play against the bot, which is Player 1 and moves first",
    )
    language_argument(play)
    play.set_defaults(run=run_play, parser=play)

    rules = commands.add_parser(
        "rules",
        help="print a game's rules and what to type when playing it",
        description="Print what to type when playing GAME at this terminal, and its rules.",
    )
    rules.add_argument("game", choices=sorted(GAMES), help="the game's short name")
    language_argument(rules)
    rules.set_defaults(run=run_rules, parser=rules)

    run = commands.add_parser(
        "run",
        help="start the Discord bot",
        description="Start the Discord bot with the settings from the environment and .env.",
    )
    run.set_defaults(run=run_bot)

    site = commands.add_parser(
        "web",
        help="serve the web pages (leaderboards, players, replays) from the bot's database",
        description="Serve each server's web pages, read only, from DATABASE_URL on "
        "WEB_HOST:WEB_PORT (default 127.0.0.1:8080). A server's pages exist once a manager "
        "turns them on with /settings web:on.",
    )
    site.set_defaults(run=run_web)

    db = commands.add_parser("db", help="manage the database", description="Manage the database.")
    db_commands = db.add_subparsers(title="commands", metavar="COMMAND", required=True)
    upgrade = db_commands.add_parser(
        "upgrade",
        help="bring the schema up to date",
        description="Apply every pending migration to DATABASE_URL (default: parlor.db here). "
        "The bot also does this when it starts.",
    )
    upgrade.set_defaults(run=run_db_upgrade)

    demo_arguments(
        commands.add_parser(
            "demo",
            help="fill a database with made-up matches and show its web pages, without Discord",
        )
    )
    return parser


def demo_arguments(parser: argparse.ArgumentParser) -> None:
    """``parlor demo``'s description and arguments."""
    from bot import demo

    parser.description = (
        "Fill a new SQLite database with finished matches of every game between "
        "made-up members, each played through the bot's own match service by the built-in "
        "players, reviewed and rated; then print the link of its web pages (or serve them "
        "with --serve). An earlier demo file is replaced; any other existing file is left "
        "alone unless --force."
    )
    parser.add_argument(
        "--database",
        metavar="PATH",
        default=demo.DEFAULT_FILE,
        help=f"the SQLite file to fill (default: {demo.DEFAULT_FILE} here)",
    )
    parser.add_argument(
        "--matches",
        type=int,
        default=demo.DEFAULT_MATCHES,
        metavar="N",
        help=f"matches of each game (default: {demo.DEFAULT_MATCHES})",
    )
    parser.add_argument("--seed", type=int, default=0, help="the same seed, the same demo")
    parser.add_argument(
        "--force", action="store_true", help="replace PATH even if it is not a demo database"
    )
    parser.add_argument("--serve", action="store_true", help="then serve its pages until stopped")
    parser.set_defaults(run=run_demo, parser=parser)


def run_bot(args: argparse.Namespace) -> int:
    """``parlor run``: the bot, as ``python -m bot`` starts it."""
    from bot.__main__ import main as bot_main

    return bot_main()


def run_web(args: argparse.Namespace) -> int:
    """``parlor web``: the site, until stopped."""
    from web.server import main as web_main

    failure = _database_server_problem()
    if failure is not None:
        print(failure, file=sys.stderr)
        return 1
    return web_main()


def _database_server_problem() -> str | None:
    """Why the database server of ``DATABASE_URL`` cannot be reached, or ``None``. A SQLite file
    is left to ``parlor web`` itself, which refuses to create one."""
    import asyncio

    from sqlalchemy.engine import make_url

    from bot.settings import read_settings
    from db.reach import DatabaseUnreachable, reach_database

    url = read_settings().database_url
    if url is None or make_url(url).get_backend_name() == "sqlite":
        return None
    try:
        asyncio.run(reach_database(url))
    except DatabaseUnreachable as failure:
        return str(failure)
    return None


def run_db_upgrade(args: argparse.Namespace) -> int:
    """``parlor db upgrade``: apply pending migrations to the configured database."""
    import asyncio

    from bot.settings import read_settings
    from db.migrate import upgrade
    from db.reach import DatabaseUnreachable, reach_database

    url = read_settings().database_url
    try:
        asyncio.run(reach_database(url))
    except DatabaseUnreachable as failure:
        print(failure, file=sys.stderr)
        return 1
    asyncio.run(upgrade(url))
    print(f"Database {'parlor.db' if url is None else 'at DATABASE_URL'} is up to date.")
    return 0


def run_demo(args: argparse.Namespace) -> int:
    """``parlor demo``: a demo database, its link, and its pages served if asked."""
    from bot.demo_command import run

    parser: argparse.ArgumentParser = args.parser
    if args.matches < 1:
        parser.error("--matches needs at least 1")
    return run(
        Path(args.database), matches=args.matches, seed=args.seed, force=args.force,
        serve=args.serve,
    )  # fmt: skip


_PLAY_OPTIONS: dict[str, str] = {
    "size": "--size",
    "hidden": "--hidden",
    "hints": "--hints",
    "digits": "--digits",
    "length": "--length",
    "max_guesses": "--max-guesses",
}
"""Game option name → the ``play`` flag that sets it."""


def run_play(args: argparse.Namespace) -> int:
    """``parlor play GAME``: a whole game at the terminal."""
    parser: argparse.ArgumentParser = args.parser
    game = GAMES[args.game]
    options: dict[str, JSON] = {
        name: getattr(args, name) for name in _PLAY_OPTIONS if getattr(args, name) is not None
    }
    bot = _play_bot(args, parser)
    names = _play_names(args, parser)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    keyboard = sys.stdin.isatty()
    language = _language(args, parser)
    try:
        return terminal.play(
            game,
            options,
            seed,
            iter(sys.stdin),
            sys.stdout,
            getpass.getpass if keyboard else None,
            echo=not keyboard,
            err=sys.stderr,
            bot=bot,
            names=names,
            screens=keyboard and sys.stdout.isatty(),
            keyboard=keyboard,
            language=language,
        )
    except InvalidOptions as error:
        parser.error(_flag_names(str(error)))
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130


def _play_bot(args: argparse.Namespace, parser: argparse.ArgumentParser) -> terminal.Bot | None:
    """The bot ``--vs-bot``, ``--level`` or ``--bot-first`` asks for, or ``None``."""
    if args.vs_bot or args.level is not None or args.bot_first:
        return terminal.Bot(seat=0 if args.bot_first else 1, level=args.level or DEFAULT_LEVEL)
    return None


def _play_names(
    args: argparse.Namespace, parser: argparse.ArgumentParser
) -> tuple[str, str] | None:
    """The names ``--names`` gives, or ``None``; a usage error for names that cannot tell the
    players apart, or with ``--vs-bot`` (where the players are You and Parlor)."""
    if args.names is None:
        return None
    if args.vs_bot or args.level is not None or args.bot_first:
        parser.error("--names is for two people; against the bot you are You and it is Parlor")
    first, second = (name.strip() for name in args.names)
    for which, name in (("first", first), ("second", second)):
        if not name:
            parser.error(f"--names: the {which} name is empty")
    if first.casefold() == second.casefold():
        parser.error("--names needs two different names")
    return (first, second)


def language_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--language",
        metavar="LOCALE",
        help=f"the language to speak: {', '.join(LOCALES)} (default: the locale of the "
        "environment, LANGUAGE, LC_ALL, LC_MESSAGES or LANG, else English)",
    )


def _language(args: argparse.Namespace, parser: argparse.ArgumentParser) -> str:
    """The locale ``--language`` names, else the environment's; a usage error for a language
    Parlor does not speak."""
    if args.language is None:
        return from_environment(os.environ)
    found = shipped(args.language)
    if found is None:
        parser.error(f"--language: Parlor speaks {', '.join(LOCALES)}")
    return found


def run_rules(args: argparse.Namespace) -> int:
    """``parlor rules GAME``: what to type, and the game's rules."""
    with speaking(_language(args, args.parser)):
        print(terminal.help_text(args.game))
    return 0


def _flag_names(message: str) -> str:
    """The engine's message with option names spelled as the flags that set them."""
    for name, flag in _PLAY_OPTIONS.items():
        message = message.replace(repr(name), flag)
    return message


if __name__ == "__main__":
    sys.exit(main())
