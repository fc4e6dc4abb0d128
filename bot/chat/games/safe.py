"""``/safe``: Safe Cracker: its commands and the forms a code is typed into."""

from __future__ import annotations

from discord import app_commands

import games
from bot.chat.components import Press, Verb
from bot.chat.games.private_side import PrivateSide
from bot.chat.matches.forms import answer_form, open_form
from bot.chat.matches.game_commands import (
    GameCog,
    Interaction,
    Option,
    challenge_command,
)
from bot.chat.matches.places import playable_anywhere
from bot.chat.parts import Parts
from bot.i18n import _
from bot.service.notices import MatchSnapshot
from games.safe import Options


@playable_anywhere
class Safe(
    GameCog,
    group_name="safe",
    group_description="Safe Cracker: crack your opponent's secret code from exact matches.",
):
    game = "safe"

    challenge = challenge_command(
        "safe",
        digits=Option(app_commands.Range[int, 3, 9], "Largest digit in a code, 3-9 (default 3)."),
        length=Option(app_commands.Range[int, 3, 6], "Digits in a code, 3-6 (default 3)."),
        max_guesses=Option(
            app_commands.Range[int, 1, 50],
            "Guesses each; then the best single guess wins (default: no limit).",
        ),
    )

    @app_commands.command(
        name=games.get("safe").move_command, description="Guess your opponent's code."
    )
    @app_commands.describe(code="Your guess, digits only, e.g. 213.")
    async def guess(self, interaction: Interaction, code: app_commands.Range[str, 1, 20]) -> None:
        await self.play(interaction, code)


class SafePrivateSide(PrivateSide):
    def secret_hint(self, snap: MatchSnapshot) -> str:
        code = Options.from_mapping(snap.options)
        return _(
            "Press **Set my code**, or type your code here: {shape}, e.g. `{example}`.",
            shape=code.shape,
            example=code.example,
        )

    async def open(self, interaction: Interaction, press: Press, parts: Parts) -> bool:
        """The guess form, and the form that sets one's code (also for a member whose DMs
        are closed: the code is typed into it)."""
        if press.verb not in (Verb.GUESS, Verb.CODE, Verb.ASK):
            return False
        guess = press.verb == Verb.GUESS
        form = answer_form(
            press,
            title=_("Guess the code") if guess else _("Set your secret code"),
            label=_("Your guess") if guess else _("Your code (only you see it)"),
            placeholder=_("digits only, e.g. 213"),
        )
        await open_form(interaction, press, form, parts)
        return True


PRIVATE_SIDE = SafePrivateSide()


COG = Safe
"""The game's command group, added by the composition root."""
