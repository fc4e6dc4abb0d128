"""The match service's public lines in words, in the language of the moment: run inside
the reader's ``reading`` block (the server's language for a board)."""

from __future__ import annotations

from collections.abc import Sequence

import games
from bot.i18n import N_, _
from bot.i18n.names import human
from bot.service.lines import Happened, Members, PublicLine, Say, Saying, Titled, Value
from games.worded import again

SAYINGS: dict[Say, str] = {
    Say.CHALLENGE: N_(
        "{opponent}, {challenger} challenges you to {game}. The challenge expires in {time}."
    ),
    Say.OPEN_CHALLENGE: N_(
        "{challenger} posts an open challenge to {game}: anyone may accept, the first to press "
        "Accept plays. The challenge expires in {time}."
    ),
    Say.ACCEPTED: N_("{member} accepted. Coin toss: {player} moves first."),
    Say.PLAYS_BOT: N_("{member} plays me at level {level}. Coin toss: {player} moves first."),
    Say.CHOOSE_SECRETS: N_(
        "Both players: choose your secret. I have sent you a DM ({time} to answer)."
    ),
    Say.CHOOSE_SECRET: N_("{member}: choose your secret. I have sent you a DM ({time} to answer)."),
    Say.DECLINED: N_("{member} declined the challenge."),
    Say.WITHDREW: N_("{member} withdrew the challenge."),
}
"""Each line's msgid: the values a line holds fill its fields."""

TIMES = frozenset({"time", "minutes"})
"""The fields that hold a time in seconds, worded as a duration."""


def said(line: PublicLine) -> str:
    """``line`` in words."""
    if isinstance(line, Happened):
        return str(line.event.render(line.names))
    if isinstance(line, Saying):
        values = {name: _value(name, value) for name, value in line.values}
        return _(SAYINGS[line.say], **values)
    return again(line)


def said_all(lines: Sequence[PublicLine]) -> list[str]:
    return [said(line) for line in lines]


def together(names: Sequence[str]) -> str:
    """Two players named together (``@a and @b``), or the one named alone."""
    if len(names) == 2:
        return _("{first} and {second}", first=names[0], second=names[1])
    return ", ".join(names)


def titled(game: str, options: dict[str, object]) -> str:
    """The game's title and the options chosen that differ from its defaults:
    ``Capture the Crown (size: 4)``. Option names and values stay as the member typed them."""
    engine = games.get(game)
    defaults = engine.options(engine.new({}, 0))
    shown = [f"{k}: {v}" for k, v in options.items() if v is not None and v != defaults.get(k)]
    return f"{engine.title} ({', '.join(shown)})" if shown else engine.title


def _value(name: str, value: Value) -> str | int:
    if isinstance(value, Members):
        return together(value.names)
    if isinstance(value, Titled):
        return titled(value.game, dict(value.options))
    if isinstance(value, int) and name in TIMES:
        return human(value)
    return value
