"""``parlor play``: a game at the terminal, two people taking turns or one against the bot.

``play`` runs a game; ``help_text`` is what ``help`` at a prompt and ``parlor rules`` print.
"""

from bot.terminal.names import NAMES, Names
from bot.terminal.opponent import Bot
from bot.terminal.play import (
    EXIT_FINISHED,
    EXIT_INPUT_ENDED,
    INPUT_ENDED_MESSAGE,
    plain_digits,
    play,
    result_line,
)
from bot.terminal.screen import CLEAR, SecretInput
from bot.terminal.wording import help_text

__all__ = [
    "CLEAR",
    "EXIT_FINISHED",
    "EXIT_INPUT_ENDED",
    "INPUT_ENDED_MESSAGE",
    "NAMES",
    "Bot",
    "Names",
    "SecretInput",
    "help_text",
    "plain_digits",
    "play",
    "result_line",
]
