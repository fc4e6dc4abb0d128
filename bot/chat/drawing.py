"""How the Discord side draws one game: the interface each game's module fills in.

A game's module in ``bot.chat.games`` holds its command group and a ``DRAWING``: its emoji
board, the buttons for a move, and what its private prompts show. Public drawings take the
public view only; ``own_secrets`` and the pickers take the member's own view.
"""

from __future__ import annotations

from typing import Any

from bot.chat.components import Layout
from bot.service.notices import MatchSnapshot


class Drawing:
    """One game's pictures and buttons. Subclasses draw the board; the rest has defaults."""

    def board(self, view: Any, names: tuple[str, str]) -> str:
        """The board in emoji, from the public view (secrets only once the game is over);
        ``names`` name the players by seat."""
        raise NotImplementedError

    def moves(self, snap: MatchSnapshot, seat: int) -> Layout:
        """Buttons for ``seat``'s next public move, drawn from the public view."""
        return ()

    def secret_picker(self, snap: MatchSnapshot) -> Layout:
        """Buttons that answer the setup ask privately (none: the answer is typed)."""
        return ()

    def secret_hint(self, snap: MatchSnapshot) -> str:
        """How to answer the setup ask, for its prompt."""
        return "Press a button, or type your answer here."

    def private_move(self, text: str) -> bool:
        """Whether ``text``, typed in a DM, is a move that holds a secret (a trap's cell)."""
        return False

    def own_secrets(self, view: Any) -> str | None:
        """What the member's own view holds that only they may see, in one line."""
        return None
