"""Commands every game shares: ``/stats``, ``/games``, ``/resign``, ``/rules``, ``/settings``."""

from __future__ import annotations

import logging
import re
from dataclasses import asdict, replace
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import games
from bot.chat.after_game import rating_charts
from bot.chat.app import NOT_A_MEMBER, Parlor
from bot.chat.boards import render, standings
from bot.chat.boards.render import FIELD_VALUE_MAX, fit
from bot.chat.components import Post
from bot.chat.matches.places import not_a_member, playable_anywhere
from bot.chat.parts import Parts
from bot.chat.public_answers import Shown, answer_publicly
from bot.chat.puzzles import texts as puzzle_texts
from bot.chat.readers import acting_of
from bot.chat.refusals import say
from bot.chat.request_outcomes import REFUSED, settle
from bot.chat.seasons import commands as seasons
from bot.chat.seasons.texts import season_embed
from bot.i18n import LANGUAGE_NAMES, LOCALES, N_, _
from bot.i18n.formats import command
from bot.i18n.names import human
from bot.service.errors import MatchNotFound, TimeoutOutOfBounds
from bot.service.notices import BoardRoute, MatchSnapshot, Report
from bot.service.quick_pair import FALLBACK_DEFAULT
from bot.service.servers import FALLBACK_MAX
from bot.service.timeouts import BOUNDS

log = logging.getLogger(__name__)

Interaction = discord.Interaction[Any]

GAME_CHOICES = [app_commands.Choice(name=g.title, value=g.name) for g in games.GAMES.values()]
SERVER_LANGUAGE = "server"
"""``/settings language:`` back to the server's own language on Discord."""
LANGUAGE_CHOICES = [
    *(app_commands.Choice(name=LANGUAGE_NAMES[code], value=code) for code in LOCALES),
    app_commands.Choice(name=N_("The server's language on Discord"), value=SERVER_LANGUAGE),
]
"""The shipped languages by name (each client shows them in its own language), and the way
back to the server's own."""
COMPACT_TOP = 3
"""Players per game on the leaderboard when no game is given."""

_DURATION = re.compile(
    r"(?P<amount>\d{1,7})\s*(?P<unit>s|secs?|seconds?|m|mins?|minutes?|h|hours?|d|days?)?",
    re.IGNORECASE,
)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> int:
    """Seconds in ``text`` such as ``90s``, ``10m``, ``2h``, ``1d``; a bare number is minutes.

    Raises ``ValueError`` naming the accepted forms.
    """
    found = _DURATION.fullmatch(text.strip())
    if found is None:
        raise ValueError(
            _(
                "{text} is not a duration: write a number and a unit, e.g. 90s, 10m, 2h or 1d.",
                text=repr(text.strip()[:20]),
            )
        )
    unit = (found["unit"] or "m")[0].lower()
    return int(found["amount"]) * _UNIT_SECONDS[unit]


def _range_text(kind: str) -> str:
    bounds = BOUNDS[kind]
    return f"{human(bounds.low)} to {human(bounds.high)}"


def rules_text(game: str, commands_: list[Any]) -> str:
    """The short rules of ``game``, the commands of its group, and what every game shares."""
    listed = ", ".join(command(f"{game} {each.name}") for each in commands_)
    commands_line = (
        "\n" + _("Commands: {commands}, or the board's buttons.", commands=listed) if listed else ""
    )
    shared = _(
        "Challenges expire after a while; secrets are asked by DM (or privately in the channel "
        "when your DMs are closed); a player who runs out of time on their turn loses. {command} "
        "gives up.",
        command=command("resign"),
    )
    return f"{games.get(game).rules}\n{commands_line}\n\n{shared}"


class Common(commands.Cog):
    def __init__(self, bot: Parlor, parts: Parts) -> None:
        self.bot = bot
        self.parts = parts
        self.matches = parts.matches
        self.servers = parts.servers

    # ------------------------------------------------------------------ /stats

    @app_commands.command(description="The server's leaderboard, or a member's record.")
    @app_commands.describe(
        game="Only this game (default: every game).",
        user="Show this member's record instead of the leaderboard.",
        season="A season's standings: current, or its number (1, 2, ...).",
    )
    @app_commands.choices(game=GAME_CHOICES)
    @playable_anywhere
    async def stats(
        self,
        interaction: Interaction,
        game: str | None = None,
        user: discord.User | None = None,
        season: app_commands.Range[str, 1, 12] | None = None,
    ) -> None:
        if season is not None:
            await self._season(interaction, season, game, user)
            return
        if not_a_member(interaction, user):
            await interaction.response.send_message(_(NOT_A_MEMBER), ephemeral=True)
            settle(interaction, REFUSED)
            return
        guild_id = interaction.guild_id or 0  # 0: the ladder of matches outside servers
        whose: discord.abc.User | None = user
        if whose is None and interaction.guild_id is None:
            whose = interaction.user  # outside servers: one's own record
        if whose is None:
            query = self._leaderboard(guild_id, game)
        else:
            query = self._record(guild_id, whose, game)
        async with self.bot.busy():
            await answer_publicly(interaction, query, self.parts.followups, self.parts.languages)

    async def _season(
        self,
        interaction: Interaction,
        text: str,
        game: str | None,
        user: discord.User | None,
    ) -> None:
        async with self.bot.busy():  # the standings in public, a refusal privately
            try:
                board = await seasons.season_asked(
                    self.parts.seasons, interaction.guild_id, text, game, user is not None
                )
            except seasons.SeasonRefused as refused:
                await interaction.response.send_message(str(refused), ephemeral=True)
                settle(interaction, REFUSED)
                return

            async def shown() -> Shown:
                return season_embed(board), None

            await answer_publicly(interaction, shown(), self.parts.followups, self.parts.languages)

    async def _leaderboard(self, guild_id: int, game: str | None) -> Shown:
        """One game's top 10 with a chart of their ratings, or every game's top players.

        The text leads: its mentions show each member's name and profile, which a picture
        cannot; the chart adds each rating's likely range, which text reads badly."""
        tables = await self.servers.leaderboards(guild_id, game, 10 if game else COMPACT_TOP)
        chart = (
            await rating_charts.top_chart(self.parts.histories, guild_id, game) if game else None
        )
        return standings.leaderboard_embed(tables, compact=game is None), chart

    async def _record(self, guild_id: int, user: discord.abc.User, game: str | None) -> Shown:
        """The member's record, with who won each of their recent matches, and a chart of
        their rating in each game over time."""
        record = await self.servers.member_record(guild_id, user.id, game)
        chart = await rating_charts.member_chart(
            self.parts.histories, guild_id, user.id, game, user.display_name
        )
        embed = standings.record_embed(record, game=game)
        if self.parts.puzzles is not None:  # the same in every server (docs/puzzles.md)
            solved = await self.parts.puzzles.ratings(user.id)
            solved = [line for line in solved if game is None or line.game == game]
            if solved:
                text = fit(puzzle_texts.puzzle_ratings(solved), FIELD_VALUE_MAX)
                embed.add_field(name=_("Puzzles"), value=text, inline=False)
        return embed, chart

    # ------------------------------------------------------------------ /games

    @app_commands.command(description="Your unfinished matches in this server, with links.")
    @playable_anywhere
    async def games(self, interaction: Interaction) -> None:
        async def listing() -> Post:
            snapshots = await self._unfinished(interaction)
            in_server = interaction.guild_id is not None
            return Post(render.games_list(snapshots, interaction.user.id, in_server=in_server))

        await self.parts.requests.show(interaction, listing)

    async def _unfinished(
        self, interaction: Interaction, *, channel_only: bool = False
    ) -> list[MatchSnapshot]:
        found = await self.matches.lookups.unfinished(
            interaction.user.id, interaction.guild_id or 0
        )
        boards = self.parts.places
        return [
            replace(s, message_id=boards.board_of(s))
            for s in found
            if not channel_only or s.channel_id == interaction.channel_id
        ]

    # ------------------------------------------------------------------ /resign

    @app_commands.command(description="Give up your match in this channel (abort it if unstarted).")
    @app_commands.describe(game="The game of the match (needed when you have several here).")
    @app_commands.choices(game=GAME_CHOICES)
    @playable_anywhere
    async def resign(self, interaction: Interaction, game: str | None = None) -> None:
        matches = self.matches

        async def use_case(board: BoardRoute) -> Report:
            if game is not None:
                match_id = await matches.lookups.find_match(
                    interaction.guild_id or 0,
                    interaction.channel_id or 0,
                    game,
                    interaction.user.id,
                )
            else:
                match_id = await self._only_match_here(interaction)
            return await matches.play.resign(
                match_id, acting_of(interaction), guild_id=interaction.guild_id, board=board
            )

        await self.parts.requests.run(interaction, use_case)

    async def _only_match_here(self, interaction: Interaction) -> int:
        here = await self._unfinished(interaction, channel_only=True)
        if not here:
            raise MatchNotFound(_("You have no unfinished match in this channel."))
        if len(here) > 1:
            names = ", ".join(sorted({games.get(s.game).name for s in here}))
            raise MatchNotFound(
                _(
                    "You have {n} unfinished matches in this channel ({games}): say which with "
                    "the game option, e.g. {command}.",
                    n=len(here),
                    games=names,
                    command=command("resign game:crown"),
                )
            )
        return here[0].id

    # ------------------------------------------------------------------ /rules

    @app_commands.command(description="The short rules of a game.")
    @app_commands.describe(game="The game.")
    @app_commands.choices(game=GAME_CHOICES)
    async def rules(self, interaction: Interaction, game: str) -> None:
        group = self.bot.tree.get_command(game)
        commands_ = group.commands if isinstance(group, app_commands.Group) else []
        await interaction.response.send_message(rules_text(game, commands_), ephemeral=True)

    # ------------------------------------------------------------------ /settings

    @app_commands.command(description="This server's timeouts: shows them, or sets those given.")
    @app_commands.describe(
        turn=f"Time for a move, e.g. 10m ({_range_text('turn')}).",
        setup=f"Time to choose secrets, e.g. 5m ({_range_text('setup')}).",
        challenge=f"Time to answer a challenge, e.g. 5m ({_range_text('challenge')}).",
        hint=f"Time for a Crown hint, e.g. 2m ({_range_text('hint')}).",
        organizer_role="Members with this role may run tournaments, as Manage Server may.",
        clear_organizer_role="Clear the organizer role: only Manage Server runs tournaments.",
        web="on: this server's web pages (leaderboards, players, replays) at a secret link; "
        "off: no pages.",
        queue_wait="How long a member waits in /play's queue before I offer to play them, e.g. "
        "60s (at most 10m).",
        language="The language of boards and announcements here (members' own answers stay "
        "in their app's language).",
        threads="on: each match is played in its own thread; off: in the channel.",
        puzzle_channel="Post a daily puzzle in this channel, the same for everyone.",
        clear_puzzle_channel="Stop posting the daily puzzle.",
        season_length="How long a season lasts (calendar periods, UTC); off: no seasons.",
        season_score="What ranks a season's standings: rating, or points (1 a win, ½ a draw).",
        season_channel="Where I post a season's podium when it ends.",
        clear_season_channel="Post no podiums (seasons go on; /stats season: shows them).",
    )
    @app_commands.choices(
        web=[
            app_commands.Choice(name="on", value="on"),
            app_commands.Choice(name="off", value="off"),
        ],
        language=LANGUAGE_CHOICES,
        threads=[
            app_commands.Choice(name="on", value="on"),
            app_commands.Choice(name="off", value="off"),
        ],
        season_length=seasons.SEASON_LENGTH_CHOICES,
        season_score=seasons.SEASON_SCORE_CHOICES,
    )
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.checks.has_permissions(manage_guild=True)
    @app_commands.guild_only()
    async def settings(
        self,
        interaction: Interaction,
        turn: app_commands.Range[str, 1, 20] | None = None,
        setup: app_commands.Range[str, 1, 20] | None = None,
        challenge: app_commands.Range[str, 1, 20] | None = None,
        hint: app_commands.Range[str, 1, 20] | None = None,
        organizer_role: discord.Role | None = None,
        clear_organizer_role: bool = False,
        web: str | None = None,
        queue_wait: app_commands.Range[str, 1, 20] | None = None,
        language: str | None = None,
        threads: str | None = None,
        puzzle_channel: discord.TextChannel | None = None,
        clear_puzzle_channel: bool = False,
        season_length: str | None = None,
        season_score: str | None = None,
        season_channel: discord.TextChannel | None = None,
        clear_season_channel: bool = False,
    ) -> None:
        if puzzle_channel is not None and clear_puzzle_channel:
            await interaction.response.send_message(
                _("Set the puzzle channel or clear it, not both."), ephemeral=True
            )
            settle(interaction, REFUSED)
            return
        if organizer_role is not None and clear_organizer_role:
            await interaction.response.send_message(
                _("Set the organizer role or clear it, not both."), ephemeral=True
            )
            settle(interaction, REFUSED)
            return
        refused = seasons.season_channel_refusal(season_channel, clear=clear_season_channel)
        if refused is not None:
            await interaction.response.send_message(refused, ephemeral=True)
            settle(interaction, REFUSED)
            return
        given = {
            kind: text
            for kind, text in (
                ("turn", turn),
                ("setup", setup),
                ("challenge", challenge),
                ("hint", hint),
            )
            if text is not None
        }
        try:
            seconds = {
                kind: BOUNDS[kind].check(kind, parse_duration(text)) for kind, text in given.items()
            }
            wait = None if queue_wait is None else parse_duration(queue_wait)
        except (ValueError, TimeoutOutOfBounds) as error:
            await interaction.response.send_message(say(error), ephemeral=True)
            settle(interaction, REFUSED)
            return
        if wait is not None and wait > FALLBACK_MAX:
            await interaction.response.send_message(
                _("The queue's wait is at most {most}.", most=human(FALLBACK_MAX)), ephemeral=True
            )
            settle(interaction, REFUSED)
            return
        async with self.bot.busy():
            await interaction.response.defer(ephemeral=True, thinking=True)
            current, changed = await self._save_timeouts(interaction.guild_id or 0, seconds)
            if changed:
                log.info(
                    "server %s: timeouts set by user %s", interaction.guild_id, interaction.user.id
                )
            organizers = organizer_role is not None or clear_organizer_role
            text = render.settings_text(current, changed=changed or organizers)
            text += await self._organizers(
                interaction.guild_id or 0, organizer_role, clear=clear_organizer_role
            )
            if web is not None:
                text += await self._web(interaction.guild_id or 0, on=web == "on")
                log.info("server %s: web pages %s", interaction.guild_id, web)
            options = await self.servers.set_options(
                interaction.guild_id or 0,
                queue_fallback=wait,
                threads=None if threads is None else threads == "on",
            )
            waited = FALLBACK_DEFAULT if options.queue_fallback is None else options.queue_fallback
            text += "\n" + _(
                "Queue ({command}): I offer to play a member after {wait} waiting.",
                command=command("play"),
                wait=human(waited),
            )
            text += "\n" + (
                _("Threads: each match is played in its own thread.")
                if options.threads
                else _("Threads: off, matches are played in their channel.")
            )
            if threads is not None:
                log.info("server %s: threads %s", interaction.guild_id, threads)
            text += await self._language(interaction.guild_id or 0, language)
            if language is not None:
                log.info("server %s: language set to %s", interaction.guild_id, language)
            text += await self._puzzle_channel(
                interaction.guild_id or 0, puzzle_channel, clear=clear_puzzle_channel
            )
            text += await seasons.season_settings(
                self.parts.seasons,
                interaction.guild_id or 0,
                (season_length, season_score, season_channel, clear_season_channel),
            )
            await self.parts.followups.send(
                interaction, text, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
            )

    async def _puzzle_channel(
        self, guild_id: int, channel: discord.TextChannel | None, *, clear: bool
    ) -> str:
        """Set or clear the daily puzzle's channel; the line that shows it."""
        daily = self.parts.daily
        if daily is None:
            return ""
        if channel is not None or clear:
            chosen = None if channel is None else channel.id  # clear: no channel
            await daily.set_channel(guild_id, chosen)
            log.info("server %s: puzzle channel %s", guild_id, chosen)
        current = await daily.channel(guild_id)
        if current is None:
            return "\n" + _("Daily puzzle: off.")
        return "\n" + _(
            "Daily puzzle: posted in {channel} each day (UTC).", channel=f"<#{current}>"
        )

    async def _organizers(self, guild_id: int, role: discord.Role | None, *, clear: bool) -> str:
        """Set or clear the tournament organizer role; the line that shows it."""
        tournaments = self.parts.tournaments
        if role is not None:
            await tournaments.set_organizer_role(guild_id, role.id)
        if clear:
            await tournaments.clear_organizer_role(guild_id)
            return "\n" + _(
                "• tournament organizer role is cleared: Manage Server runs tournaments"
            )
        role_id = await tournaments.organizer_role(guild_id)
        if role_id is None:
            return ""
        role_mention = f"<@&{role_id}>"
        return "\n" + _("• tournament organizers: {role}", role=role_mention)

    async def _language(self, guild_id: int, choice: str | None) -> str:
        """Set the server's language (``SERVER_LANGUAGE``: back to its own on Discord); the
        line that shows it."""
        languages = self.parts.languages
        if languages is None:
            return ""
        if choice is not None:
            await languages.choose(guild_id, None if choice == SERVER_LANGUAGE else choice)
        name = _(LANGUAGE_NAMES[await languages.server(guild_id)])
        if await languages.chosen(guild_id):
            return "\n" + _(
                "Language of boards and announcements: {language}, as chosen here.",
                language=name,
            )
        return "\n" + _(
            "Language of boards and announcements: {language}, the server's language on "
            "Discord (choose another with `/settings language:`).",
            language=name,
        )

    async def _web(self, guild_id: int, *, on: bool) -> str:
        """Turn the server's web pages on (a new link) or off; the lines that say so."""
        if on:
            token = await self.servers.open_site(guild_id)
            link = f"<{self.parts.settings.web_link_base()}/s/{token}/>"
            return "\n" + _(
                "• web pages are on: {link}\n  Anyone with the link can read them; {command} "
                "removes them, and on again makes a new link.",
                link=link,
                command=command("settings web:off"),
            )
        if await self.servers.close_site(guild_id):
            return "\n" + _("• web pages are off: their link no longer works")
        return "\n" + _("• web pages were already off")

    async def _save_timeouts(
        self, guild_id: int, seconds: dict[str, int]
    ) -> tuple[dict[str, int], bool]:
        """Store the given timeouts; the server's timeouts now, and whether any changed."""
        timeouts = await self.servers.set_server_timeouts(guild_id, seconds)
        return asdict(timeouts), bool(seconds)
