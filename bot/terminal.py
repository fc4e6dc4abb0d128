"""Two players at one terminal: a whole game read one answer per line, as the rule books show it.

One of the two may be the built-in player (``Bot``): it answers from its own seat's view, and
its answers are treated as private ones, so only its public events are printed.

The loop knows games only through ``games.base.Game``; ``WORDINGS`` holds each game's prompts.
Both players share the screen, so anything a player keeps from the other (a Crown cell, a safe
code, a trap cell) is read without echo when a keyboard is attached, only public events follow
such an answer, and the board is always the public view. A refused answer gets the engine's
message, which tells the player what was wrong: after a private answer it may quote what was
typed or name the player's own traps, so the other player looks away until it is accepted.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from games.base import JSON, AnyGame, Ask, Event, GameError, Outcome, Seat, other
from games.players import DEFAULT_LEVEL, Level, LevelledPlayer, decide, player_for

NAMES: tuple[str, str] = ("Player 1", "Player 2")
"""How the terminal names seat 0 (moves first) and seat 1."""

EXIT_FINISHED = 0
EXIT_INPUT_ENDED = 2

INPUT_ENDED_MESSAGE = "input ended before the game finished"

SecretInput = Callable[[str], str]
"""Shows a prompt, reads one answer without echo (``getpass.getpass``); ``EOFError`` at the end."""

_CLOSING_KINDS = frozenset({"end", "reveal"})
"""Event kinds that tell how the game ended; printed after the final board, before the result."""


@dataclass(frozen=True)
class Wording:
    """How the terminal asks one game's players for their answers."""

    secret: str = "enter your secret"
    turn: str = "enter your move"
    hint_choice: str = "{action}"
    """One hint the defender may give; ``{action}`` is the engine's hint action."""
    turn_is_private: bool = False
    """A turn may carry a secret (a Flag Chase trap cell), so turn answers are read unseen.

    The ``Game`` protocol does not say which actions are private, so the terminal records it.
    """

    def secret_prompt(self, options: Mapping[str, JSON]) -> str:
        return self.secret.format_map(options)

    def turn_prompt(self, options: Mapping[str, JSON]) -> str:
        return self.turn.format_map(options)

    def hint_prompt(self, choices: Sequence[Any]) -> str:
        """``choose a hint: row (…) or column (…)``, from the defender's legal hint actions."""
        return "choose a hint: " + " or ".join(
            self.hint_choice.format(action=action) for action in choices
        )


class _ClaimWording(Wording):
    """Number Claim names values, or cells when the numbers are hidden."""

    def turn_prompt(self, options: Mapping[str, JSON]) -> str:
        return "select a cell (row column)" if options.get("hidden") else "select a number"


WORDINGS: dict[str, Wording] = {
    "crown": Wording(
        secret="place your Crown (row column)",
        turn="enter attack coordinates (row column)",
        hint_choice="{action} (the Crown's {action.sentence})",
    ),
    "claim": _ClaimWording(),
    "crystal": Wording(turn="choose a crystal to capture"),
    "flag": Wording(
        turn="enter your move (MOVE row column or TRAP row column)", turn_is_private=True
    ),
    "safe": Wording(
        secret="set your code ({length} digits from 1-{digits})",
        turn="enter your guess ({length} digits from 1-{digits})",
    ),
}
"""Prompts by game short name; a game missing here is asked in general words."""


@dataclass(frozen=True)
class Bot:
    """The built-in player at ``level`` in ``seat``; the person at the terminal has the other."""

    seat: Seat = 1
    level: Level = DEFAULT_LEVEL


@dataclass(frozen=True)
class _BotSeat:
    """The bot during one game: its player, and its randomness seeded from the game's seed."""

    seat: Seat
    player: LevelledPlayer[Any, Any]
    rng: random.Random

    @classmethod
    def start(cls, game: AnyGame, bot: Bot, seed: int) -> _BotSeat:
        return cls(bot.seat, player_for(game.name, bot.level), random.Random(f"{seed}:bot"))

    def introduction(self) -> str:
        """``Player 2 is the built-in player (normal); you are Player 1.``"""
        human = NAMES[other(self.seat)]
        return f"{NAMES[self.seat]} is the built-in player ({self.player.level}); you are {human}."

    def answer(self, game: AnyGame, state: Any) -> tuple[Any, list[Event]]:
        """Decide from the bot's own view and play it; the state after it and its events."""
        action = decide(game, state, self.seat, self.player, self.rng)
        return game.apply(state, self.seat, action)


class _InputEnded(Exception):
    """The answers ran out before the game finished."""


@dataclass
class _Console:
    """Prompts, answers and output for the two players at the terminal."""

    lines: Iterator[str]
    out: TextIO
    secret_input: SecretInput | None
    echo: bool

    def say(self, text: str) -> None:
        print(text, file=self.out)

    def read(self, prompt: str, *, private: bool) -> str:
        """The next answer; a private one is never written to ``out``."""
        if private and self.secret_input is not None:
            self.out.flush()
            try:
                return self.secret_input(f"{prompt} ")
            except EOFError:
                raise _InputEnded from None
        self.out.write(f"{prompt} ")
        self.out.flush()
        line = next(self.lines, None)
        if line is None:
            self.out.write("\n")
            raise _InputEnded
        answer = line.rstrip("\r\n")
        if self.echo:
            self.out.write("\n" if private else f"{answer}\n")
        return answer


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
) -> int:
    """Play one game of ``game`` to its end; the exit status (0 finished, 2 input ended).

    Answers come from ``lines``, one per prompt, except private ones when ``secret_input``
    is given (a keyboard: read without echo). ``echo`` writes each answer after its prompt,
    for input that the terminal does not show (a pipe); a private answer is never written.
    With ``bot`` the built-in player answers for its seat, its randomness seeded from ``seed``.
    Raises ``InvalidOptions`` when ``options`` do not suit the game.
    """
    state = game.new(options, seed)
    console = _Console(lines, out, secret_input, echo)
    opponent = None if bot is None else _BotSeat.start(game, bot, seed)
    try:
        outcome = _play_to_end(game, state, console, opponent)
    except _InputEnded:
        out.flush()
        print(INPUT_ENDED_MESSAGE, file=err if err is not None else sys.stderr)
        return EXIT_INPUT_ENDED
    console.say(result_line(outcome))
    return EXIT_FINISHED


def result_line(outcome: Outcome) -> str:
    """``Player 1 wins the game!``, ``Player 2 wins the game!`` or ``Draw.``"""
    if outcome.winner is None:
        return "Draw."
    return f"{NAMES[outcome.winner]} wins the game!"


def _play_to_end(game: AnyGame, state: Any, console: _Console, bot: _BotSeat | None) -> Outcome:
    """Ask, apply and report until the game has an outcome, which is returned."""
    wording = WORDINGS.get(game.name, Wording())
    options = game.options(state)
    console.say(f"--- {game.title} ---")
    if bot is not None:
        console.say(bot.introduction())
    board_due = True
    events: list[Event] = []
    while (outcome := game.outcome(state)) is None:
        seat = min(game.to_act(state))
        ask = game.ask(state, seat)
        if ask is Ask.ACTION and board_due:
            console.say(f"\n{_board(game, state)}")
            board_due = False
        if bot is not None and seat == bot.seat:
            state, events = bot.answer(game, state)
            private = True  # the bot's own events may repeat its secret
        else:
            private = ask is Ask.SECRET or (ask is Ask.ACTION and wording.turn_is_private)
            prompt = f"{NAMES[seat]}, {_request(game, state, seat, ask, wording, options)}:"
            state, events = _answer(game, state, seat, prompt, private, console)
        shown = _shown_events(events, seat, private)
        if game.outcome(state) is None:
            _say_events(console, shown)
        else:
            _say_events(console, [e for e in shown if e.kind not in _CLOSING_KINDS])
        if ask is Ask.SECRET and not any(e.public for e in events):
            console.say(f"{NAMES[seat]}'s secret is set.")
        if ask is not Ask.SECRET:
            board_due = True
    console.say(f"\n{_board(game, state)}")
    _say_events(console, [e for e in events if e.public and e.kind in _CLOSING_KINDS])
    return outcome


def _answer(
    game: AnyGame, state: Any, seat: Seat, prompt: str, private: bool, console: _Console
) -> tuple[Any, list[Event]]:
    """Read answers until the game accepts one; the state after it and its events."""
    while True:
        text = console.read(prompt, private=private)
        try:
            action = game.parse(state, seat, text)
            return game.apply(state, seat, action)
        except GameError as error:
            console.say(str(error))


def _request(
    game: AnyGame, state: Any, seat: Seat, ask: Ask, wording: Wording, options: Mapping[str, JSON]
) -> str:
    """What ``seat`` is asked for, without the name in front."""
    if ask is Ask.SECRET:
        return wording.secret_prompt(options)
    if ask is Ask.HINT:
        return wording.hint_prompt(game.legal_actions(state, seat))
    return wording.turn_prompt(options)


def _shown_events(events: Sequence[Event], seat: Seat, private: bool) -> list[Event]:
    """The events both players may read: public ones, and the actor's own after an open answer.

    After a private answer the actor's own events are withheld: they may repeat the secret,
    and the screen is shared.
    """
    return [e for e in events if e.public or (e.audience == seat and not private)]


def _say_events(console: _Console, events: Sequence[Event]) -> None:
    for event in events:
        console.say(event.render(NAMES))


def _board(game: AnyGame, state: Any) -> str:
    """The public view as text: never holds a secret before the end."""
    return game.describe(game.view(state, None))
