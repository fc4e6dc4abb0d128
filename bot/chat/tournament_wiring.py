"""How a composition root builds the Discord side of tournaments, and what it must do with it.

``build_tournaments`` gives the desk and the ``/tournament`` cog, each handed what it uses. The
root then:

- adds the cog (``await bot.add_cog(cog)``);
- registers ``tournament_buttons.signup_items(desk, busy)`` with ``bot.add_dynamic_items``;
- after delivering a report whose match has ended and plays a tournament's pairing, calls
  ``desk.progress(tournament_id)``; and calls ``desk.sweep()`` from its sweeper.
"""

from __future__ import annotations

from typing import Protocol

import discord

from bot.chat.tournament_buttons import Busy
from bot.chat.tournament_desk import TournamentDesk
from bot.chat.tournaments import Tournaments
from bot.service.match_parts import MatchParts
from bot.service.notices import Report
from bot.service.tournaments.service import tournament_service


class Delivers(Protocol):
    async def deliver(self, report: Report) -> None: ...


def build_tournaments(
    bot: discord.Client, matches: MatchParts, delivery: Delivers, *, busy: Busy
) -> tuple[TournamentDesk, Tournaments]:
    """The tournament desk over ``matches`` (posting with ``bot``, delivering match reports with
    ``delivery``) and the ``/tournament`` cog over it."""
    desk = TournamentDesk(tournament_service(matches), delivery.deliver, bot)
    return desk, Tournaments(desk, busy)
