"""How a composition root builds the Discord side of tournaments, and what it must do with it.

``build_tournaments`` gives the desk and the ``/tournament`` cog, each handed what it uses. The
root then:

- adds the cog (``await bot.add_cog(cog)``) instead of loading ``bot.chat.tournaments`` as an
  extension, and keeps the desk as ``bot.tournaments``: a sign-up press reaches it through the
  client it arrives on (``tournament_buttons.SignupHost``);
- registers ``tournament_buttons.DYNAMIC_ITEMS`` with ``bot.add_dynamic_items``;
- after delivering a report whose match has ended and plays a tournament's pairing, calls
  ``desk.progress(tournament_id)``; and calls ``desk.sweep()`` from its sweeper.
"""

from __future__ import annotations

from typing import Protocol

import discord

from bot.chat.tournament_desk import TournamentDesk
from bot.chat.tournaments import Busy, Tournaments
from bot.service.matches import MatchService
from bot.service.notices import Report
from bot.service.tournaments.service import TournamentService


class Delivers(Protocol):
    async def deliver(self, report: Report) -> None: ...


def build_tournaments(
    bot: discord.Client, matches: MatchService, delivery: Delivers, *, busy: Busy
) -> tuple[TournamentDesk, Tournaments]:
    """The tournament desk over ``matches`` (posting with ``bot``, delivering match reports with
    ``delivery``) and the ``/tournament`` cog over it."""
    service = TournamentService(matches.sessions, matches, clock=matches.clock)
    desk = TournamentDesk(service, delivery.deliver, bot)
    return desk, Tournaments(desk, busy)
