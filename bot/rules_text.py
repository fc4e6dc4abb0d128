"""The short rules ``/rules`` shows, one text per game (Discord markdown, well under 2000 chars)."""

from __future__ import annotations

RULES: dict[str, str] = {
    "crown": (
        "**Capture the Crown** (`/crown`)\n"
        "Each player hides a Crown on their own 3x3 grid (by DM). Then you take turns attacking "
        "a cell of the other player's grid with `/crown attack` or the board's buttons.\n"
        "• **Hit**: you capture the Crown and win.\n"
        "• **Miss**: the defender gives you one true hint, chosen privately: whether the Crown's "
        "row, or its column, is greater than, less than or equal to the one you attacked. With "
        "`hints: auto` the bot always gives the least helpful hint.\n"
        "Attacking a cell twice is refused and costs no turn. Four attacks always suffice."
    ),
    "claim": (
        "**Number Claim** (`/claim`)\n"
        "A 3x3 grid holds the numbers 1-9 in a random arrangement. Players take turns claiming "
        "one unclaimed number (`/claim pick` or the buttons). When all are claimed, the higher "
        "total wins.\n"
        "On the plain grid the first player always wins by taking the largest number left each "
        "turn. The variants make it interesting: `size: 4` plays 1-16 on a 4x4 grid (equal "
        "totals are a draw), and `hidden: true` hides the numbers until claimed, so you claim "
        "cells, not values."
    ),
    "crystal": (
        "**Crystal Capture** (`/crystal`)\n"
        "Crystals 1-9 lie in a shared pool; both players start at 0 points. On your turn take one "
        "crystal (`/crystal take` or the buttons) that does not take you over 15. Reaching "
        "exactly **15** wins at once.\n"
        "If you cannot take a crystal without going over 15 you pass (automatically); when both "
        "players would pass in a row the match is a draw. With perfect play the first player wins."
    ),
    "flag": (
        "**Flag Chase** (`/flag`)\n"
        "A 5x5 grid; the first player's flag and agent start at (1,1), the second's at (5,5). "
        "On your turn do exactly one thing:\n"
        "• **Move** your agent to one of the 8 cells around it (`/flag move`): not off the grid, "
        "not onto the other agent, not onto your own trap.\n"
        "• **Place a trap** in secret (`/flag trap` or the Trap button): at most 2 per match, not "
        "on a flag or an agent.\n"
        "Stepping on the other player's trap reveals it and sends your agent home. Reaching the "
        "other flag wins. After 200 actions the match is a draw."
    ),
    "safe": (
        "**Safe Cracker** (`/safe`)\n"
        "Each player sets a secret code by DM: 3 digits, each 1-3, repeats allowed. Then you take "
        "turns guessing the other code (`/safe guess` or the Guess button); the answer is how "
        "many digits are right and in the right place. Guessing the whole code wins.\n"
        "Variants: `digits` (largest digit, 3-9), `length` (3-6 digits) and `max_guesses` each "
        "(if nobody cracks the code, the best single guess wins; equal is a draw)."
    ),
}
"""Short rules by game short name."""

COMMON = (
    "Challenges expire after a while; secrets are asked by DM (or privately in the channel when "
    "your DMs are closed); a player who runs out of time on their turn loses. `/resign` gives up."
)
"""What every game shares, shown under each game's rules."""


def rules(game: str) -> str:
    """The short rules of ``game`` with the common lines."""
    return f"{RULES[game]}\n\n{COMMON}"
