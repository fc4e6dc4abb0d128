"""The match service's public lines in words, in the language of the moment: run inside
the reader's ``reading`` block (the server's language for a board)."""

from __future__ import annotations

from collections.abc import Sequence

import games
from bot.i18n import N_, _
from bot.i18n.names import human
from bot.service.lines import Happened, Members, PublicLine, Say, Saying, Titled, Value

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
    Say.CHOOSE_SECRETS_HERE: N_(
        "Both players: choose your secret with **Choose my secret** below, which only you see "
        "({time} to answer)."
    ),
    Say.CHOOSE_SECRET_HERE: N_(
        "{member}: choose your secret with **Choose my secret** below, which only you see "
        "({time} to answer)."
    ),
    Say.DECLINED: N_("{member} declined the challenge."),
    Say.WITHDREW: N_("{member} withdrew the challenge."),
    Say.EXPIRED: N_("The challenge from {challenger} to {opponent} expired without an answer."),
    Say.OPEN_EXPIRED: N_("The open challenge from {challenger} expired: nobody took it."),
    Say.SETUP_TIMED_OUT: N_(
        "Setup timed out: {members} did not choose a secret in time. The match is called off; "
        "no result."
    ),
    Say.CHOSE_FOR: N_("{member} did not answer in time, so I chose for them."),
    Say.CHALLENGE_STANDS: N_("{opponent}, {challenger} challenges you to {game}."),
    Say.OPEN_CHALLENGE_STANDS: N_("{challenger} posts an open challenge to {game}."),
    Say.CALLED_OFF_EARLY: N_("{member} called the match off before it started. No result."),
    Say.MOVES_FIRST: N_("{heading} {player} moves first."),
    Say.QUEUE_PAIRED: N_("The queue paired {first} and {second}."),
    Say.ROUND: N_("Tournament #{id}, round {round}:"),
    Say.ROUND_GAME: N_("Tournament #{id}, round {round}, game {game}:"),
    Say.YOUR_MATCH: N_("Tournament #{id}: your match."),
    Say.TOURNAMENT_CANCELLED: N_(
        "Tournament #{id} was cancelled: this match is called off, no result."
    ),
}
"""Each line's msgid: the values a line holds fill its fields."""

RESETS = {
    ("challenge", True): N_(
        "I was away for {minutes}, so the clock was reset: the challenge expires in {time}."
    ),
    ("challenge", False): N_(
        "I could not post here for {minutes}, so the clock was reset: the challenge expires in "
        "{time}."
    ),
    ("setups", True): N_(
        "I was away for {minutes}, so the clock was reset: {members} have {time} to choose."
    ),
    ("setups", False): N_(
        "I could not post here for {minutes}, so the clock was reset: {members} have {time} to "
        "choose."
    ),
    ("setup", True): N_(
        "I was away for {minutes}, so the clock was reset: {member} has {time} to choose."
    ),
    ("setup", False): N_(
        "I could not post here for {minutes}, so the clock was reset: {member} has {time} to "
        "choose."
    ),
    ("hint", True): N_(
        "I was away for {minutes}, so the clock was reset: {member} has {time} to choose the hint."
    ),
    ("hint", False): N_(
        "I could not post here for {minutes}, so the clock was reset: {member} has {time} to "
        "choose the hint."
    ),
    ("turn", True): N_(
        "I was away for {minutes}, so the clock was reset: {member} has {time} to move."
    ),
    ("turn", False): N_(
        "I could not post here for {minutes}, so the clock was reset: {member} has {time} to move."
    ),
}
"""The line saying a deadline's clock was reset, by its kind (``setups``: two players) and
whether the bot was away (else it could not post)."""


TIMES = frozenset({"time", "minutes"})
"""The fields that hold a time in seconds, worded as a duration."""


def said(line: PublicLine) -> str:
    """``line`` in words."""
    if isinstance(line, Happened):
        return str(line.event.render(line.names))
    if isinstance(line, Saying):
        values = {name: _value(name, value) for name, value in line.values}
        if "members" in values:  # a clock reset names one member or more with one value
            values.setdefault("member", values["members"])
        return _(_msgid(line), **values)
    return line  # an earlier release's text, as it was said


def _msgid(line: Saying) -> str:
    if line.say is not Say.CLOCK_RESET:
        return SAYINGS[line.say]
    kind, members = line.value("deadline"), line.value("members")
    many = isinstance(members, Members) and len(members.names) > 1
    key = "setups" if kind == "setup" and many else kind
    away = bool(line.value("away"))
    return RESETS.get((str(key), away), RESETS["turn", away])


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
    if isinstance(value, Saying):
        return said(value)
    if isinstance(value, Titled):
        return titled(value.game, dict(value.options))
    if isinstance(value, int) and name in TIMES:
        return human(value)
    return value
