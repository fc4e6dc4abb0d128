"""What the terminal calls the two players, and how events and results read with those names.

Seats keep their numbers for scripts: the last line names the winning seat (``Player 1 wins
the game!``, ``Alice (Player 1) wins the game!``). People see names: the ones given with
``--names``, or "You" and "Parlor" against the built-in player. Events name players through
``{p0}`` and ``{p1}`` in the third person; in English the person playing the bot is addressed
as "you" instead ("You attack (2,2): Miss.", "Your Crown was at (3,3)"). The other languages'
events stay in the third person, so there the person is named by their seat ("Spieler 1").

Every text is read in the language of the catalog set around the game (``bot.i18n.speaking``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.i18n import DEFAULT, N_, _, current_locale
from games.base import Event, Outcome, Seat, other
from games.text import player

NAMES: tuple[str, str] = (N_("Player 1"), N_("Player 2"))
"""How seat 0 (moves first) and seat 1 are named in scripts, and when no names are given; in
English (``seat_names`` reads them in the current language)."""

YOU = N_("You")
BOT_NAME = "Parlor"


def seat_names() -> tuple[str, str]:
    """``Player 1`` and ``Player 2`` in the current language."""
    return (_(NAMES[0]), _(NAMES[1]))


def in_english() -> bool:
    """Whether texts are read in English here, the one language events are put to "you" in."""
    return current_locale() == DEFAULT


_CLAUSE_END = re.compile(r"([.!?:;]\s+)")
"""Where a clause of an event's text ends; kept when splitting."""

_SENTENCE_END = frozenset(".!?")

_IRREGULAR = {"has": "have", "is": "are", "was": "were", "does": "do"}


@dataclass(frozen=True)
class Names:
    """The players' names by seat; ``you`` is the person's seat against the built-in player."""

    seats: tuple[str, str] = NAMES
    you: Seat | None = None

    @classmethod
    def unnamed(cls) -> Names:
        """The seats' own names, in the current language."""
        return cls(seat_names())

    @classmethod
    def against_bot(cls, bot_seat: Seat) -> Names:
        """ "You" (in another language than English, the person's seat) for the person,
        "Parlor" for the built-in player in ``bot_seat``."""
        you = other(bot_seat)
        person = _(YOU) if in_english() else seat_names()[you]
        return cls((person, BOT_NAME) if you == 0 else (BOT_NAME, person), you)

    def __getitem__(self, seat: Seat) -> str:
        return self.seats[seat]

    @property
    def given(self) -> bool:
        """Whether the players have names other than the seat numbers."""
        return self.seats not in (NAMES, seat_names())

    @property
    def tags(self) -> tuple[str, str]:
        """One letter per seat for boards: the initials when they differ, else X and O."""
        first, second = (name[:1].upper() for name in self.seats)
        if first != second and first.isalpha() and second.isalpha():
            return (first, second)
        return ("X", "O")

    def asking(self, seat: Seat, request: str) -> str:
        """A prompt's words: ``Alice, place your Crown``; to the person against the bot,
        ``Place your Crown``."""
        if seat == self.you:
            return request[:1].upper() + request[1:]
        return _("{name}, {request}", name=self.seats[seat], request=request)

    def render(self, event: Event) -> str:
        """The event's text with the players' names."""
        text = event.text
        if self.you is not None and in_english():
            text = second_person(text, self.you)
        return text.format(p0=self.seats[0], p1=self.seats[1])

    def result(self, outcome: Outcome) -> str:
        """The one line that ends a game, naming the winning seat for scripts: ``Draw.``,
        ``Player 1 wins the game!``, ``Alice (Player 1) wins the game!`` or, to the person
        against the bot, ``You (Player 1) win the game!``."""
        if outcome.winner is None:
            return _("Draw.")
        seat = seat_names()[outcome.winner]
        if outcome.winner == self.you:
            return _("You ({seat}) win the game!", seat=seat)
        if self.you is not None or self.given:
            name = self.seats[outcome.winner]
            return _("{name} ({seat}) wins the game!", name=name, seat=seat)
        return _("{seat} wins the game!", seat=seat)


def second_person(text: str, seat: Seat) -> str:
    """An event's text with ``seat``'s placeholder turned into "you".

    Engine texts are third-person sentences whose clauses start with the player they are about
    (``{p0} attacks (2,2): Miss.``, ``{p1}'s agent returns to their flag``, ``{p0} captures the
    flag and wins!``); in those clauses the verbs and "their" follow "you".
    """
    mark = player(seat)
    pieces = _CLAUSE_END.split(text)
    words: list[str] = []
    starts_sentence = True
    for index, piece in enumerate(pieces):
        if index % 2:
            words.append(piece)
            starts_sentence = piece.strip() in _SENTENCE_END
        else:
            words.append(_clause_for_you(piece, mark, starts_sentence))
    return "".join(words)


def _clause_for_you(clause: str, mark: str, capital: bool) -> str:
    you, your = ("You", "Your") if capital else ("you", "your")
    about_you = True
    if clause.startswith(f"{mark}'s "):
        clause = f"{your} {clause[len(mark) + 3 :]}"
    elif found := re.match(rf"{re.escape(mark)} (\w+)(.*)", clause, re.DOTALL):
        verb, rest = found.groups()
        rest = re.sub(r"\band (\w+)", lambda word: f"and {_base_form(word[1])}", rest)
        clause = f"{you} {_base_form(verb)}{rest}"
    else:
        about_you = False
    if about_you:
        clause = re.sub(r"\btheir\b", "your", clause)
    return clause.replace(f"{mark}'s", "your").replace(mark, "you")


def _base_form(verb: str) -> str:
    """The verb after "you": ``attacks`` → ``attack``, ``has`` → ``have``, ``passes`` → ``pass``."""
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith(("sses", "shes", "ches", "xes")):
        return verb[:-2]
    if verb.endswith("s") and not verb.endswith("ss"):
        return verb[:-1]
    return verb
