"""The terminal's screen and keyboard: output, answers read seen or unseen, clearing, hand-overs.

On a terminal (``screens``) the screen is cleared between players, and a hand-over screen asks
the other player to take the keyboard before anything only they may see. Otherwise (a script,
a pipe) everything is one transcript: nothing is cleared and nothing waits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TextIO

from bot.i18n import _

CLEAR = "\x1b[H\x1b[2J\x1b[3J"
"""Cursor home, erase the screen, erase the scrollback (as ``clear`` does on xterm).

Without the last part the other player could scroll back to what was cleared.
"""

SecretInput = Callable[[str], str]
"""Shows a prompt, reads one answer without echo (``getpass.getpass``); ``EOFError`` at the end."""


class InputEnded(Exception):
    """The answers ran out before the game finished."""


def _never(answer: str) -> bool:
    return False


@dataclass
class Console:
    """Prompts, answers and output for the players at one terminal."""

    lines: Iterator[str]
    out: TextIO
    secret_input: SecretInput | None = None
    echo: bool = False
    """Write each answer after its prompt: the terminal does not show input that is piped."""
    screens: bool = False
    """A terminal both players look at: clear it between players, and hand it over."""

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def clear(self) -> None:
        """A blank screen on a terminal; nothing in a transcript."""
        if self.screens:
            self.out.write(CLEAR)
            self.out.flush()

    def hand_over(self, name: str) -> None:
        """Wait until ``name`` has the keyboard: ``Pass to NAME and press Enter.``"""
        self.read(_("Pass to {name} and press Enter.", name=name))

    def read(
        self, prompt: str, *, hidden: bool = False, kept_back: Callable[[str], bool] = _never
    ) -> str:
        """The next answer to ``prompt``, without its line end.

        A ``hidden`` answer is read without echo when a keyboard is attached, and never written
        to ``out``; nor is an answer ``kept_back`` says holds a secret.
        """
        if hidden and self.secret_input is not None:
            self.out.flush()
            try:
                return self.secret_input(f"{prompt} ")
            except EOFError:
                raise InputEnded from None
        self.out.write(f"{prompt} ")
        self.out.flush()
        line = next(self.lines, None)
        if line is None:
            self.out.write("\n")
            raise InputEnded
        answer = line.rstrip("\r\n")
        if self.echo:
            self.out.write("\n" if hidden or kept_back(answer) else f"{answer}\n")
        return answer
