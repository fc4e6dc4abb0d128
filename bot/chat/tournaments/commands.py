"""``/tournament``: create, start, standings, leave, cancel.

Organizers are members with the Manage Server permission or the role set with ``/settings
organizer_role``. A command that names no tournament means the one of this channel (or, for
``leave``, the one the member plays in); with several, it asks for the number.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.chat.boards.delivery import FAILED
from bot.chat.followups import Followups
from bot.chat.refusals import say
from bot.chat.request_outcomes import FAILED_OUTCOME, REFUSED, settle
from bot.chat.shared_commands import GAME_CHOICES
from bot.chat.tournaments import posts
from bot.chat.tournaments.buttons import Busy, signup_view
from bot.chat.tournaments.desk import TournamentDesk
from bot.i18n import N_, _, n_
from bot.service.errors import REFUSALS
from bot.service.failures import log_failure
from bot.service.tournaments.refusals import NoTournamentMeant, TournamentRefused
from bot.service.tournaments.rounds import FORMATS
from bot.service.tournaments.service import MAX_ENTRANTS, MAX_ROUNDS, OPEN
from bot.service.tournaments.view import TournamentView

log = logging.getLogger(__name__)

Interaction = discord.Interaction[Any]
T = TypeVar("T")

FORMAT_CHOICES = [app_commands.Choice(name=posts.FORMAT_NAMES[f], value=f) for f in FORMATS]
TournamentNumber = app_commands.Range[int, 1, 2_000_000_000]
NUMBER_HELP = "The tournament's number (default: the one of this channel)."

NEEDED = (
    ("view_channel", N_("View Channel")),
    ("send_messages", N_("Send Messages")),
    ("embed_links", N_("Embed Links")),
    ("create_public_threads", N_("Create Public Threads")),
    ("send_messages_in_threads", N_("Send Messages in Threads")),
)
"""What the bot needs in a tournament's channel: to post the sign-up, rounds and standings (as
embeds), and to start each round's thread and post its boards there."""

SIGNUP_WHAT = N_("There is no tournament in sign-up in this channel: give the tournament's number.")
UNDER_WAY_WHAT = N_(
    "There is no tournament under way in this channel: give the tournament's number."
)
"""What ``/tournament start`` and ``cancel`` say when the channel has no tournament to mean."""


class Tournaments(commands.GroupCog, group_name="tournament"):
    """Swiss, round-robin and knockout events of any Parlor game."""

    def __init__(self, desk: TournamentDesk, busy: Busy, followups: Followups) -> None:
        self.desk = desk
        self.busy = busy
        self.followups = followups
        super().__init__()

    # ------------------------------------------------------------------ commands

    @app_commands.command(description="Open a tournament's sign-up in this channel (organizers).")
    @app_commands.rename(format_="format")
    @app_commands.describe(
        game="The game every match is played in.",
        format_="Swiss, round robin (everyone meets everyone) or knockout.",
        rounds=f"Swiss only: the number of rounds, 1-{MAX_ROUNDS} (default: log2 of players).",
        max_players=f"The most players who may join, 2-{MAX_ENTRANTS} (default {MAX_ENTRANTS}).",
        hints="Capture the Crown: who picks the hint after a miss (default the defender).",
        size="Number Claim: grid size 3 (default) or 4.",
        hidden="Number Claim: hide the numbers until claimed.",
        digits="Safe Cracker: largest digit in a code, 3-9 (default 3).",
        length="Safe Cracker: digits in a code, 3-6 (default 3).",
        max_guesses="Safe Cracker: guesses each (default: no limit).",
    )
    @app_commands.choices(game=GAME_CHOICES, format_=FORMAT_CHOICES)
    @app_commands.guild_only()
    async def create(
        self,
        interaction: Interaction,
        game: str,
        format_: str,
        rounds: app_commands.Range[int, 1, MAX_ROUNDS] | None = None,
        max_players: app_commands.Range[int, 2, MAX_ENTRANTS] | None = None,
        hints: Literal["defender", "auto"] | None = None,
        size: Literal[3, 4] | None = None,
        hidden: bool | None = None,
        digits: app_commands.Range[int, 3, 9] | None = None,
        length: app_commands.Range[int, 3, 6] | None = None,
        max_guesses: app_commands.Range[int, 1, 50] | None = None,
    ) -> None:
        given = {
            "hints": hints,
            "size": size,
            "hidden": hidden,
            "digits": digits,
            "length": length,
            "max_guesses": max_guesses,
        }
        options = {name: value for name, value in given.items() if value is not None}
        missing = [name for flag, name in NEEDED if not getattr(interaction.app_permissions, flag)]
        if missing:
            await interaction.response.send_message(
                _(
                    "I need these permissions in this channel to run a tournament here: "
                    "{permissions}.",
                    permissions=", ".join(_(name) for name in missing),
                ),
                ephemeral=True,
            )
            settle(interaction, REFUSED)
            return

        async def work() -> TournamentView:
            return await self.desk.service.create(
                guild_id=interaction.guild_id or 0,
                channel_id=interaction.channel_id or 0,
                creator_id=interaction.user.id,
                may_organize=await self._may_organize(interaction),
                game=game,
                format=format_,
                options=options,
                rounds=rounds,
                max_players=max_players,
            )

        async with self.busy():
            view = await self._attempt(interaction, work)
            if view is None:
                return
            with await self.desk.in_server_language(view.guild_id):  # a public post
                embed, buttons = posts.signup_embed(view), signup_view(view)
            assert buttons is not None  # sign-up is open
            callback = await interaction.response.send_message(
                embed=embed,
                view=buttons,
                allowed_mentions=discord.AllowedMentions.none(),
            )
            message_id = callback.message_id or (await interaction.original_response()).id
            await self.desk.service.set_message(view.id, message_id)
            log.info("tournament %s created by user %s", view.id, interaction.user.id)

    @app_commands.command(description="Close sign-up and post round 1 (creator or organizers).")
    @app_commands.describe(tournament=NUMBER_HELP)
    @app_commands.guild_only()
    async def start(
        self, interaction: Interaction, tournament: TournamentNumber | None = None
    ) -> None:
        async def work() -> TournamentView:
            number = tournament or (await self._here(interaction, ["signup"], SIGNUP_WHAT)).id
            may = await self._may_organize(interaction)
            return await self.desk.service.start(
                number, interaction.user.id, guild_id=interaction.guild_id or 0, may_organize=may
            )

        async with self.busy():
            view = await self._attempt(interaction, work)
            if view is None:
                return
            await interaction.response.send_message(
                n_(
                    "Tournament #{id} has started with {n} player: round 1 is posted in its "
                    "channel.",
                    "Tournament #{id} has started with {n} players: round 1 is posted in its "
                    "channel.",
                    len(view.entrants),
                    id=view.id,
                ),
                ephemeral=True,
            )
            await self.desk.update_signup(view)
            await self.desk.progress(view.id)

    @app_commands.command(description="A tournament's standings, or its results so far.")
    @app_commands.describe(tournament=NUMBER_HELP)
    @app_commands.guild_only()
    async def standings(
        self, interaction: Interaction, tournament: TournamentNumber | None = None
    ) -> None:
        async def work() -> TournamentView:
            if tournament is not None:
                return await self.desk.service.view(tournament, guild_id=interaction.guild_id or 0)
            statuses = ["signup", "running", "finished"]
            return await self._here(interaction, statuses, None, newest=True)

        async with self.busy():
            view = await self._attempt(interaction, work)
            if view is None:
                return
            await interaction.response.send_message(
                embed=posts.standings_embed(view),
                ephemeral=True,
                allowed_mentions=discord.AllowedMentions.none(),
            )

    @app_commands.command(description="Leave a tournament (once it has started, you withdraw).")
    @app_commands.describe(tournament="The tournament's number (default: the one you play in).")
    @app_commands.guild_only()
    async def leave(
        self, interaction: Interaction, tournament: TournamentNumber | None = None
    ) -> None:
        service, user, guild = self.desk.service, interaction.user.id, interaction.guild_id or 0

        async def work() -> Any:
            number = tournament
            if number is None:
                number = (await service.find(guild, (), OPEN, entrant=user)).id
            return await service.leave(number, user, guild_id=guild)

        async with self.busy():
            left = await self._attempt(interaction, work)
            if left is None:
                return
            view = left.tournament
            text = _("You left tournament #{id}.", id=view.id)
            if left.report is not None:
                resigned = _("Your match #{match} is resigned.", match=left.report.match.id)
                text = f"{text} {resigned}"
            await interaction.response.send_message(text, ephemeral=True)
            if view.status == "signup":
                await self.desk.update_signup(view)
            if left.report is not None:
                await self.desk.deliver(left.report)
            await self.desk.progress(view.id)

    @app_commands.command(description="Cancel a tournament: matches in play end without a result.")
    @app_commands.describe(tournament=NUMBER_HELP)
    @app_commands.guild_only()
    async def cancel(
        self, interaction: Interaction, tournament: TournamentNumber | None = None
    ) -> None:
        async def work() -> Any:
            number = tournament or (await self._here(interaction, OPEN, UNDER_WAY_WHAT)).id
            may = await self._may_organize(interaction)
            return await self.desk.service.cancel(
                number, interaction.user.id, guild_id=interaction.guild_id or 0, may_organize=may
            )

        async with self.busy():
            # Calling off every match in play takes a while: answer at once, privately.
            await interaction.response.defer(ephemeral=True, thinking=True)
            cancelled = await self._attempt(interaction, work)
            if cancelled is None:
                return
            view, count = cancelled.tournament, len(cancelled.reports)
            log.info("tournament %s cancelled by user %s", view.id, interaction.user.id)
            if count:
                said = n_(
                    "Tournament #{id} is cancelled: {n} match called off.",
                    "Tournament #{id} is cancelled: {n} matches called off.",
                    count,
                    id=view.id,
                )
            else:
                said = _("Tournament #{id} is cancelled.", id=view.id)
            await self.followups.send(interaction, said, ephemeral=True)
            await self.desk.announce_cancelled(view, interaction.user.id)
            await self.desk.update_signup(view)
            for report in cancelled.reports:
                await self.desk.deliver(report)

    # ------------------------------------------------------------------ helpers

    async def _attempt(
        self, interaction: Interaction, work: Callable[[], Awaitable[T]]
    ) -> T | None:
        """``work``'s result; ``None`` once a refusal or a failure has been answered privately
        (and settled, for the request watch)."""
        try:
            return await work()
        except REFUSALS as error:
            await self._answer(interaction, say(error))
            settle(interaction, REFUSED)
        except Exception:
            log_failure(log, "tournament command of user %s failed", interaction.user.id)
            await self._answer(interaction, _(FAILED))
            settle(interaction, FAILED_OUTCOME)
        return None

    async def _here(
        self, interaction: Interaction, statuses: Any, what: str | None, *, newest: bool = False
    ) -> TournamentView:
        """The tournament of this channel (or of the channel this thread is in); ``what`` says
        which one is looked for, in the refusal when there is none."""
        channel = interaction.channel
        here = {interaction.channel_id or 0}
        if isinstance(channel, discord.Thread) and channel.parent_id:
            here.add(channel.parent_id)
        try:
            return await self.desk.service.find(
                interaction.guild_id or 0, here, statuses, newest=newest
            )
        except NoTournamentMeant:
            if what is None:
                raise
            raise TournamentRefused(_(what)) from None

    async def _may_organize(self, interaction: Interaction) -> bool:
        """Whether the member has Manage Server or the server's organizer role."""
        if interaction.permissions.manage_guild:
            return True
        role = await self.desk.service.organizer_role(interaction.guild_id or 0)
        member = interaction.user
        return (
            role is not None
            and isinstance(member, discord.Member)
            and any(r.id == role for r in member.roles)
        )

    async def _answer(self, interaction: Interaction, text: str) -> None:
        """Answer privately, after a deferral as before any."""
        if interaction.response.is_done():
            await self.followups.send(interaction, text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
