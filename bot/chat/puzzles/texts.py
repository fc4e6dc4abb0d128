"""A puzzle in words: the position as its player to move saw it, the question, the choices as
buttons, and the answer. Built from the puzzle's own log: the position is the game's view for
the player to move (``Game.view``), so the opponent's secret is never in it. A puzzle names no
player: the two seats are "you" and "your opponent", and a puzzle of this server's match says
only its number."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

import games
from bot.chat.boards import emoji as boards
from bot.chat.boards.render import COLOUR, EMBED_DESCRIPTION_MAX, fit
from bot.chat.games import private_side
from bot.i18n import _
from bot.service.puzzles import Answered, MemberPuzzles, PuzzleShown
from bot.service.ratings import Rating, display
from games.puzzles import Puzzle, worded
from games.review.replay import played

ANSWER_TEMPLATE = r"parlor:puzzle:(?P<puzzle>[0-9]{1,10}):(?P<choice>[0-9]):(?P<asked>[a-z]{1,16})"
"""A choice of a puzzle: ``parlor:puzzle:<puzzle>:<choice index>:<game asked for, or any>``
(the game Next puzzle keeps to)."""
NEXT_TEMPLATE = r"parlor:puzzle:next:(?P<game>[a-z]{1,16})"
"""Next puzzle: ``parlor:puzzle:next:<game or any>``."""
OPEN_TEMPLATE = r"parlor:puzzle:(?P<opened>[0-9]{1,10}):open"
"""The daily post's Solve: ``parlor:puzzle:<puzzle>:open``."""
ANY_GAME = "any"
LABEL_MAX = 80

Buttons = list[tuple[str, str, discord.ButtonStyle]]
"""Each button's label, custom id and style."""


def position(puzzle: Puzzle) -> Any:
    """The view of the puzzle's player to move, at the puzzle's move."""
    engine: Any = games.get(puzzle.game)
    state = engine.new(puzzle.options, puzzle.seed)
    for step in played(engine, puzzle.options, puzzle.seed, puzzle.actions):
        state = step.after
    return engine.view(state, puzzle.seat)


def seat_names(puzzle: Puzzle) -> tuple[str, str]:
    """The board's names for the two seats: the solver, and the other."""
    you, other = _("You"), _("Your opponent")
    return (you, other) if puzzle.seat == 0 else (other, you)


def puzzle_embed(shown: PuzzleShown, *, daily: str | None = None) -> discord.Embed:
    """The puzzle to solve: where it comes from, the board as its player saw it, what only they
    knew, and the question. ``daily`` titles the day's post."""
    puzzle = worded(shown.puzzle)
    engine = games.get(puzzle.game)
    view = position(puzzle)
    parts = [boards.draw(engine.board(view), seat_names(puzzle))]
    own = private_side(puzzle.game).own_secrets(view)
    if own:
        parts.append(own)
    parts.append(f"**{puzzle.question}**")
    title = daily or _("Puzzle · {game}", game=_(engine.title))
    embed = discord.Embed(
        title=title, description=fit("\n\n".join(parts), EMBED_DESCRIPTION_MAX), colour=COLOUR
    )
    embed.set_footer(text=source(shown))
    return embed


def source(shown: PuzzleShown) -> str:
    """Where the puzzle comes from, naming no one, and its rating."""
    rating = display(shown.rating)
    if shown.match_id is not None:
        return _("Puzzle #{id} · from match #{match} · rated {rating}", id=shown.id,
                 match=shown.match_id, rating=rating)  # fmt: skip
    return _("Puzzle #{id} · rated {rating}", id=shown.id, rating=rating)


def choice_buttons(shown: PuzzleShown, asked: str | None) -> Buttons:
    """A button for each choice; ``asked`` is the game the member asked for (``None``: any)."""
    puzzle = worded(shown.puzzle)
    return [
        (
            fit(choice.move, LABEL_MAX),
            f"parlor:puzzle:{shown.id}:{index}:{asked or ANY_GAME}",
            discord.ButtonStyle.primary,
        )
        for index, choice in enumerate(puzzle.choices)
    ]


def open_button(shown: PuzzleShown) -> Buttons:
    """The daily post's Solve: the puzzle, privately."""
    return [(_("Solve"), f"parlor:puzzle:{shown.id}:open", discord.ButtonStyle.primary)]


def next_button(game: str | None) -> Buttons:
    return [
        (_("Next puzzle"), f"parlor:puzzle:next:{game or ANY_GAME}", discord.ButtonStyle.success)
    ]


def answer_embed(answered: Answered) -> discord.Embed:
    """Right or wrong, the best move and why, and the member's puzzle rating moving."""
    puzzle = worded(answered.shown.puzzle)
    best = puzzle.best.move
    chosen = next(c.move for c in puzzle.choices if c.action == answered.action)
    if answered.correct:
        head = _("✅ Right: {move} is the best move.", move=best)
    else:
        head = _("❌ Not {chosen}: the best move is {move}.", chosen=chosen, move=best)
    lines = [head, puzzle.why]
    if answered.counted:
        lines.append(rating_line(answered.before, answered.after))
    else:
        lines.append(_("You had answered this puzzle already: your first answer counts."))
    lines.append(
        _("Streak {streak} · best {best}", streak=answered.streak, best=answered.best_streak)
    )
    colour = discord.Colour.green() if answered.correct else discord.Colour.red()
    embed = discord.Embed(
        title=_("Puzzle · {game}", game=_(games.get(puzzle.game).title)),
        description=fit("\n\n".join(lines), EMBED_DESCRIPTION_MAX),
        colour=colour,
    )
    embed.set_footer(text=source(answered.shown))
    return embed


def rating_line(before: Rating, after: Rating) -> str:
    change = round(after.rating) - round(before.rating)
    return _(
        "Puzzle rating {before} → {after} ({change})",
        before=display(before),
        after=display(after),
        change=f"{change:+d}",
    )


def puzzle_ratings(ratings: Sequence[MemberPuzzles]) -> str:
    """A member's puzzle rating and streak in each game, a line each."""
    return "\n".join(
        _(
            "{game}: rating {rating} · {solved}/{tried} solved · streak {streak} · best {best}",
            game=_(games.get(line.game).title),
            rating=display(line.rating),
            solved=line.solves,
            tried=line.tries,
            streak=line.streak,
            best=line.best_streak,
        )
        for line in ratings
    )
