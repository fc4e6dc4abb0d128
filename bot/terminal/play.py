"""A whole game at one terminal: two people taking turns, or one against the built-in player.

The loop knows games only through ``games.base.Game``: their prompts, boards and secret moves.

On a terminal both people look at (``screens``), anything only one player may see (setting a
secret, choosing a hint, their own Crown, code or traps on their board, a refusal that names
them) is on that player's private screen: the screen is cleared and handed over first ("Pass to
NAME and press Enter"), and cleared again before the other player looks. Against the built-in
player the person's screen is always their own, so nothing is handed over; the bot's secrets
and private events are never shown.

Otherwise (a script) the output is one transcript: the public board, public events, answers
echoed except private ones, and refusals of private answers without what was typed. Either
way the last line is the result, which names the winning seat (``Player 1 wins the game!``,
``Alice (Player 1) wins the game!``, ``You (Player 1) win the game!``, ``Draw.``), so scripts
can read it.

Everything is worded in the language given (``bot.i18n`` catalogs, as on Discord), and
answers are read with every decimal digit as its ASCII one (``٣`` or a fullwidth 3 is ``3``), the
same in every game.
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TextIO

from bot.i18n import N_, _, speaking
from bot.terminal.boards import board
from bot.terminal.names import BOT_NAME, Names, seat_names
from bot.terminal.opponent import Bot, BotSeat
from bot.terminal.screen import Console, InputEnded, SecretInput
from bot.terminal.wording import HELP, help_text, is_help
from games.base import (
    JSON,
    AnyGame,
    Ask,
    Event,
    GameError,
    InvalidInput,
    Outcome,
    Seat,
    SecretRefusal,
    other,
)
from games.text import quoted

EXIT_FINISHED = 0
EXIT_STOPPED = 0
"""Ctrl+D at the keyboard: the players chose to stop."""
EXIT_INPUT_ENDED = 2
"""A script's answers ran out before the game finished."""

INPUT_ENDED_MESSAGE = N_("input ended before the game finished")
STOPPED_MESSAGE = N_("Stopped: the game ends unfinished.")

REFUSED_UNSAID = N_("That is not allowed now; type help for the rules.")
"""A refusal in a transcript whose reason could name the player's own secret."""

HELP_HINT = N_("Type {help} at any prompt for what to type and the rules.")

_CLOSING_KINDS = frozenset({"end", "reveal"})
"""Event kinds that tell how the game ended; printed after the final board, before the result."""


def play(
    game: AnyGame,
    options: Mapping[str, JSON],
    seed: int,
    lines: Iterator[str],
    out: TextIO,
    secret_input: SecretInput | None = None,
    *,
    echo: bool = False,
    err: TextIO | None = None,
    bot: Bot | None = None,
    names: tuple[str, str] | None = None,
    screens: bool = False,
    keyboard: bool = False,
    language: str | None = None,
) -> int:
    """Play one game of ``game`` to its end; the exit status (0 finished or stopped, 2 input
    ended).

    Answers come from ``lines``, one per prompt, except secret ones when ``secret_input`` is
    given (a keyboard: read without echo). ``echo`` writes each answer after its prompt, for
    input that the terminal does not show (a pipe); a private answer is never written.
    ``screens``: ``out`` is a terminal the players share, cleared and handed over between them.
    ``names`` are the two players' (default ``Player 1`` and ``Player 2``); with ``bot`` the
    built-in player, "Parlor", answers for its seat and the person is "You".
    ``keyboard``: people type the answers, so the input's end (Ctrl+D) is their choice to stop,
    and ends with status 0; a script's answers running out is status 2.
    ``language``: a shipped locale (``bot.locales``) the game is worded in; English by default.
    Raises ``InvalidOptions`` when ``options`` do not suit the game.
    """
    with speaking(language):
        state = game.new(options, seed)
        opponent = None if bot is None else BotSeat.start(game, bot, seed)
        if bot is not None:
            players = Names.against_bot(bot.seat)
        else:
            players = Names(names) if names else Names.unnamed()
        console = Console(lines, out, secret_input, echo, screens)
        table = _Table(game, state, players, console, opponent)
        try:
            try:
                outcome = table.play()
            finally:
                table.put_away()
        except InputEnded:
            out.flush()
            message = STOPPED_MESSAGE if keyboard else INPUT_ENDED_MESSAGE
            print(_(message), file=err if err is not None else sys.stderr)
            return EXIT_STOPPED if keyboard else EXIT_INPUT_ENDED
        console.say(players.result(outcome))
    return EXIT_FINISHED


def result_line(outcome: Outcome, names: Names | None = None) -> str:
    """The last line: ``Player 1 wins the game!``, ``Alice (Player 1) wins the game!``, ``You
    (Player 1) win the game!`` or ``Draw.``"""
    return (names or Names.unnamed()).result(outcome)


def plain_digits(answer: str) -> str:
    """``answer`` with each decimal digit of any script (``٣``, a fullwidth 3) as ASCII."""
    return "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in answer)


class _Table:
    """One game at the terminal: its state, who plays it, and what each screen still owes."""

    def __init__(
        self, game: AnyGame, state: Any, names: Names, console: Console, bot: BotSeat | None
    ) -> None:
        self.game = game
        self.state = state
        self.names = names
        self.console = console
        self.bot = bot
        self.private_screens = console.screens and (bot is not None or game.has_secrets)
        """Each turn is on the player's own screen, which shows their secrets."""
        self.hand_overs = self.private_screens and bot is None
        self.holder: Seat | None = None
        """Whose private screen is up, if any."""
        self.news: dict[Seat | None, list[str]] = {viewer: [] for viewer in self._viewers()}
        """Lines each screen (a seat's own, ``None``: the shared one) has yet to show."""
        self.board_due = True

    def _viewers(self) -> tuple[Seat | None, ...]:
        if not self.console.screens:
            return ()
        if self.bot is not None:
            return (other(self.bot.seat),)
        return (None, 0, 1) if self.private_screens else (None,)

    # --- the game -------------------------------------------------------------------------

    def play(self) -> Outcome:
        """Ask, apply and report until the game has an outcome, which is returned."""
        self._introduce()
        events: list[Event] = []
        while (outcome := self.game.outcome(self.state)) is None:
            seat = min(self.game.to_act(self.state))
            ask = self.game.ask(self.state, seat)
            if self.bot is not None and seat == self.bot.seat:
                self.state, events = self.bot.answer(self.game, self.state)
                private = True  # the bot's own events may repeat its secret
            else:
                self._show_turn(seat, ask)
                events, private = self._answer(seat, ask)
            self._record(events, seat, ask, private)
        self._show_end(events)
        return outcome

    def put_away(self) -> None:
        """Clear a private screen left up, so the other player does not see it."""
        if self.hand_overs and self.holder is not None:
            self.console.clear()
            self.holder = None

    def _answer(self, seat: Seat, ask: Ask) -> tuple[list[Event], bool]:
        """Read answers until the game accepts one and play it: its events, and whether the
        answer was private."""
        hidden = ask is Ask.SECRET
        prompt = self._prompt(seat, ask)
        while True:
            typed = self.console.read(prompt, hidden=hidden, kept_back=self.game.is_secret)
            text = plain_digits(typed)
            if is_help(text):
                self.console.say(help_text(self.game.name))
                continue
            private = hidden or self.game.is_secret(text)
            if private and not hidden and len(text.split()) == 1:
                # A secret move's word alone (TRAP): the rest is read unseen.
                word = text.strip()
                asked = self.names.asking(seat, _("finish your {word}, unseen", word=word))
                rest = plain_digits(self.console.read(f"{asked}:", hidden=True))
                if not rest.strip():
                    self.console.say(
                        _(
                            "{word} needs a cell after it, and none was typed: type {word} "
                            "again, then its row and column unseen.",
                            word=word,
                        )
                    )
                    continue
                text = f"{word} {rest}"
            try:
                action = self.game.parse(self.state, seat, text)
                self.state, events = self.game.apply(self.state, seat, action)
            except GameError as error:
                self.console.say(self._refusal(error, text, private))
                continue
            return events, private

    def _prompt(self, seat: Seat, ask: Ask) -> str:
        """``Alice, place your Crown (row column):``"""
        request = self.game.prompt(self.state, seat)
        if ask is Ask.HINT:
            request += self._hint_choices(seat)
        return f"{self.names.asking(seat, request)}:"

    def _hint_choices(self, seat: Seat) -> str:
        """`` (column or row)``; only a private screen spells the hints out, since together
        they tell where the hidden thing is: ``: row (row is greater than 2) or column (…)``."""
        choices = [c for c in self.game.choices(self.game.view(self.state, seat)) if c.enabled]
        between = " " + _("or") + " "
        if not self.private_screens:
            return " (" + between.join(choice.action for choice in choices) + ")"
        return ": " + between.join(f"{choice.action} ({choice.label})" for choice in choices)

    def _refusal(self, error: GameError, text: str, private: bool) -> str:
        """What a refused answer gets: the engine's message, unless others could read a secret
        in it.

        On a private screen it is the player's own. Elsewhere a private answer is not quoted,
        and a refusal for a rule that may involve the player's secret is not explained (an
        unreadable answer is refused for what was typed, never for a secret).
        """
        message = str(error)
        if self.private_screens:
            return message
        if isinstance(error, InvalidInput):
            return message.replace(quoted(text), "That") if private else message
        if private or isinstance(error, SecretRefusal):
            return _(REFUSED_UNSAID)
        return message

    # --- what is shown --------------------------------------------------------------------

    def _introduce(self) -> None:
        lines = []
        if self.bot is not None:
            lines.append(self.bot.introduction())
        elif self.names.given:
            seats = seat_names()
            lines.append(
                _(
                    "{first} is {name}; {second} is {other}.",
                    first=seats[0],
                    name=self.names[0],
                    second=seats[1],
                    other=self.names[1],
                )
            )
        if not self.console.screens:
            self.console.say(f"--- {self.game.title} ---")
            for line in lines:
                self.console.say(line)
            return
        # For the first screen shown: the shared one, or the person's against the bot.
        first = next(iter(self.news))
        self.news[first] += [*lines, _(HELP_HINT, help=_(HELP))]

    def _show_turn(self, seat: Seat, ask: Ask) -> None:
        """Before ``seat`` is asked: the board, on the screen ``seat`` is to see it on."""
        if not self.console.screens:
            if ask is Ask.ACTION and self.board_due:
                self.console.say(f"\n{self._board(None)}")
                self.board_due = False
            return
        if not self.private_screens:
            self._show_screen(self._heading(), self._board(None), None)
            return
        if self.hand_overs and self.holder != seat:
            self._show_screen(self._heading(), None, None)
            self.console.hand_over(self.names[seat])
        self.holder = seat
        self._show_screen(self._heading(seat), self._board(seat), seat)

    def _show_end(self, events: Sequence[Event]) -> None:
        """The final board, everything revealed, and how the game ended."""
        if not self.console.screens:
            self.console.say(f"\n{self._board(None)}")
            for event in events:
                if event.public and event.kind in _CLOSING_KINDS:
                    self.console.say(self.names.render(event))
            return
        self.holder = None
        # Once the game is over every view shows everything: the person's has their grid first.
        viewer = None if self.bot is None else other(self.bot.seat)
        self._show_screen(
            _("{heading}: game over", heading=self._heading()), self._board(viewer), viewer
        )

    def _show_screen(self, heading: str, board_text: str | None, viewer: Seat | None) -> None:
        """A cleared screen: the heading, the board, and the news ``viewer`` has yet to see."""
        self.console.clear()
        self.console.say(heading)
        if board_text is not None:
            self.console.say()
            self.console.say(board_text)
        news, self.news[viewer] = self.news.get(viewer, []), []
        if news:
            self.console.say()
            for line in news:
                self.console.say(line)
        self.console.say()

    def _heading(self, seat: Seat | None = None) -> str:
        """``Capture the Crown, Alice against Bob``; on a hot-seat private screen, whose it is."""
        title = self.game.title
        if self.bot is not None:
            level = _(self.bot.player.level)
            return _(
                "{title}, you against {name} ({level})", title=title, name=BOT_NAME, level=level
            )
        if seat is not None:
            return _(
                "{title}, {name}'s screen ({other}, look away)",
                title=title,
                name=self.names[seat],
                other=self.names[other(seat)],
            )
        return _(
            "{title}, {first} against {second}",
            title=title,
            first=self.names[0],
            second=self.names[1],
        )

    def _board(self, viewer: Seat | None) -> str:
        return board(self.game, self.game.view(self.state, viewer), self.names)

    def _record(self, events: Sequence[Event], seat: Seat, ask: Ask, private: bool) -> None:
        """Print the events others may read now (a transcript), or keep each screen's news."""
        if self.console.screens:
            for event in events:
                for viewer, news in self.news.items():
                    if event.public or (viewer is not None and event.audience == viewer):
                        news.append(self.names.render(event))
            return
        # After a private answer the actor's own events are withheld: they may repeat the
        # secret, and a transcript is shared.
        shown = [e for e in events if e.public or (e.audience == seat and not private)]
        if self.game.outcome(self.state) is not None:
            shown = [e for e in shown if e.kind not in _CLOSING_KINDS]
        for event in shown:
            self.console.say(self.names.render(event))
        if ask is Ask.SECRET and not any(e.public for e in events):
            self.console.say(_("{name}'s secret is set.", name=self.names[seat]))
        if ask is not Ask.SECRET:
            self.board_due = True
