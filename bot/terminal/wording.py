"""The help the terminal prints for ``help`` and ``rules``, from what each game says of itself:
what to type (``Game.commands``) and its rules (``Game.rules``, plain here)."""

from __future__ import annotations

import re
import textwrap

import games
from bot.i18n import N_, _

WIDTH = 78
"""Columns the rules are wrapped to."""

HELP_WORDS = frozenset({"help", "rules", "?"})
"""Answers that print the help instead of being played, in every language."""

HELP, RULES = N_("help"), N_("rules")
"""The words for help in the reader's language, which print it too."""


def is_help(answer: str) -> bool:
    """Whether the answer asks for the help rather than playing."""
    said = answer.strip().casefold()
    return said in HELP_WORDS or said in (_(HELP).casefold(), _(RULES).casefold())


def help_text(game: str) -> str:
    """What to type and the game's rules: ``help`` at a prompt and ``parlor rules GAME``."""
    rows = [
        *games.get(game).commands,
        (_("{help} or {rules}", help=_(HELP), rules=_(RULES)), _("this text")),
        ("Ctrl+D", _("stop here: the game ends unfinished")),
    ]
    width = max(len(answer) for answer, _does in rows)
    lines = [_("What to type:")]
    lines += [f"  {answer:<{width}}  {does}" for answer, does in rows]
    lines.append(_("Numbers may be typed in the digits of any script: ٣ reads as 3."))
    rules = plain_rules(game)
    if rules:
        lines += ["", rules]
    return "\n".join(lines)


_SET_OPTION = re.compile(r"`(\w+): (\w+)`")
_OPTION = re.compile(r"`(\w+)`")


def plain_rules(game: str) -> str:
    """The game's short rules as plain text, options spelled as ``parlor play`` flags.

    The engines write their rules in Discord markdown; how to type each answer here is said by
    ``help_text``.
    """
    text = games.get(game).rules
    text = _SET_OPTION.sub(_flag_setting, text)
    text = _OPTION.sub(lambda found: _flag(found[1]), text)
    lines = text.replace("**", "").replace("• ", "- ").splitlines()
    return "\n".join(
        textwrap.fill(
            line,
            WIDTH,
            subsequent_indent="  " if line.startswith("- ") else "",
            break_on_hyphens=False,
        )
        for line in lines
    )


def _flag(option: str) -> str:
    return "--" + option.replace("_", "-")


def _flag_setting(found: re.Match[str]) -> str:
    option, value = found[1], found[2]
    return _flag(option) if value == "true" else f"{_flag(option)} {value}"
