"""What the terminal asks each game's players, and the help it prints for ``help`` and ``rules``.

The ``Game`` protocol does not say which answers carry a secret beyond setup ones, nor which
refusals may name one, so the terminal records both here, by game.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import games
from games.base import JSON

WIDTH = 78
"""Columns the rules are wrapped to."""

HELP_WORDS = frozenset({"help", "rules", "?"})
"""Answers that print the help instead of being played."""


@dataclass(frozen=True)
class Wording:
    """How the terminal asks one game's players for their answers."""

    secret: str = "enter your secret"
    turn: str = "enter your move"
    hint_choice: str = "{action}"
    """One hint the defender may give; ``{action}`` is the engine's hint action."""
    secret_verb: str | None = None
    """A turn answer starting with this word carries a secret (``trap`` in Flag Chase).

    Typed alone, the rest is asked for unseen with ``secret_rest``.
    """
    secret_rest: str = "enter the rest"
    refusals_name_secrets: bool = False
    """A refused turn may be refused because of the player's own secret, and say so."""
    commands: tuple[tuple[str, str], ...] = ()
    """What a player types, as (answer, what it does), for the help."""

    def secret_prompt(self, options: Mapping[str, JSON]) -> str:
        return self.secret.format_map(options)

    def turn_prompt(self, options: Mapping[str, JSON]) -> str:
        return self.turn.format_map(options)

    def hint_prompt(self, choices: Sequence[Any], *, private: bool) -> str:
        """``choose a hint: row (…) or column (…)`` from the defender's legal hint actions.

        Only a private screen spells the hints out: both together tell where the Crown is.
        """
        if not private:
            return "choose a hint (" + " or ".join(str(action) for action in choices) + ")"
        return "choose a hint: " + " or ".join(
            self.hint_choice.format(action=action) for action in choices
        )

    def carries_secret(self, answer: str) -> bool:
        """Whether a turn answer holds a secret, so it is neither echoed nor quoted."""
        if self.secret_verb is None:
            return False
        words = answer.strip().lower().split(maxsplit=1)
        return bool(words) and words[0] == self.secret_verb


class _ClaimWording(Wording):
    """Number Claim names values, or cells when the numbers are hidden."""

    def turn_prompt(self, options: Mapping[str, JSON]) -> str:
        return "select a cell (row column)" if options.get("hidden") else "select a number"


WORDINGS: dict[str, Wording] = {
    "crown": Wording(
        secret="place your Crown (row column)",
        turn="enter attack coordinates (row column)",
        hint_choice="{action} (the Crown's {action.sentence})",
        commands=(
            ("row column", "place your Crown, unseen, or attack that cell, e.g. 2 3"),
            ("row or column", "after a miss on your grid, the hint you give"),
        ),
    ),
    "claim": _ClaimWording(
        commands=(
            ("number", "claim that number, e.g. 7"),
            (
                "row column",
                "claim the number in a cell, e.g. 2 3 (only way when hidden)",
            ),
        ),
    ),
    "crystal": Wording(
        turn="choose a crystal to capture",
        commands=(("number", "capture that crystal, e.g. 4"),),
    ),
    "flag": Wording(
        turn="enter MOVE row column, or TRAP to hide a trap",
        secret_verb="trap",
        secret_rest="trap cell (row column)",
        refusals_name_secrets=True,
        commands=(
            ("MOVE row column", "move your agent next door, e.g. MOVE 2 2"),
            ("TRAP", "hide a trap: the cell is then asked unseen"),
        ),
    ),
    "safe": Wording(
        secret="set your code ({length} digits from 1-{digits})",
        turn="enter your guess ({length} digits from 1-{digits})",
        commands=(("digits", "set your code, unseen, or guess the other code, e.g. 123"),),
    ),
}
"""Prompts by game short name; a game missing here is asked in general words."""


def wording(game: str) -> Wording:
    """``game``'s wording, or general words for a game without one."""
    return WORDINGS.get(game, Wording())


def is_help(answer: str) -> bool:
    """Whether the answer asks for the help rather than playing."""
    return answer.strip().lower() in HELP_WORDS


def help_text(game: str) -> str:
    """What to type and the game's rules: ``help`` at a prompt and ``parlor rules GAME``."""
    rows = [
        *wording(game).commands,
        ("help or rules", "this text"),
        ("Ctrl+D", "stop here: the game ends unfinished"),
    ]
    width = max(len(answer) for answer, _ in rows)
    lines = ["What to type:"]
    lines += [f"  {answer:<{width}}  {does}" for answer, does in rows]
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
