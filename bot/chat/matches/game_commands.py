"""What every game's command group shares: the challenge command and playing a typed move.

Each game declares its ``challenge`` with ``challenge_command(game, **its options)``. The options
every challenge has are listed once, in ``COMMON_OPTIONS``: one added there (say a ``level`` for
playing against the bot) is offered by all five challenge commands and passed to
``Challenges.challenge`` as the keyword argument of its name. The game's own options go to the
engine.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

import games
from bot.chat.app import NOT_A_MEMBER_TO_CHALLENGE, Parlor
from bot.chat.matches.places import MatchPlace, not_a_member, place_of
from bot.chat.parts import Parts
from bot.chat.readers import acting_of
from bot.chat.request_outcomes import REFUSED, settle
from bot.i18n import N_, _, n_
from bot.service.errors import WrongStatus
from bot.service.notices import BoardRoute, Report
from games.players import Level

Interaction = discord.Interaction[Any]


@dataclass(frozen=True)
class Option:
    """A slash command option: its type (``Range``, ``Literal``, ...), description and default."""

    annotation: Any
    description: str
    default: Any = None
    """``inspect.Parameter.empty`` makes the option required."""


OPPONENT = Option(
    discord.User,  # a member in a server; a user in a DM or group DM
    "The member you challenge, or me (the bot); leave it out for an open challenge anyone may "
    "accept.",
)

COMMON_OPTIONS: dict[str, Option] = {
    "level": Option(Level, "Only when you challenge me: how well I play (default normal)."),
}
"""Options of every challenge command besides the opponent, passed on to the service by name."""


def challenge_command(game: str, **options: Option) -> app_commands.Command[Any, ..., None]:
    """The ``/<game> challenge`` command with ``COMMON_OPTIONS`` and the game's ``options``.

    Option values the member left out are not passed on, so the game's defaults apply.
    """
    engine = games.get(game)

    async def challenge(self: GameCog, interaction: Interaction, **values: Any) -> None:
        opponent = values.pop("opponent")
        common = {name: values.pop(name) for name in COMMON_OPTIONS}
        await self.challenge_member(interaction, opponent, values, common)

    every = {"opponent": OPPONENT, **COMMON_OPTIONS, **options}
    parameters = [
        inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter(
            "interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction
        ),
        *(
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=option.annotation,
                default=option.default,
            )
            for name, option in every.items()
        ),
    ]
    # discord.py reads the options from the callback's signature and its descriptions from
    # this attribute; the qualified name marks the callback as a method (its first argument
    # is the cog).
    challenge.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    challenge.__qualname__ = f"{GameCog.__name__}.challenge"
    challenge.__discord_app_commands_param_description__ = {  # type: ignore[attr-defined]
        name: option.description for name, option in every.items()
    }
    return app_commands.Command(
        name="challenge",
        description=f"Challenge a member, or me, to {engine.title}.",
        callback=challenge,
    )


def missing_permissions(interaction: Interaction) -> list[str]:
    """The channel permissions a match needs that the bot lacks where ``interaction`` came from
    (Discord sends the bot's own with every interaction)."""
    have = interaction.app_permissions
    channel = interaction.channel
    in_thread = isinstance(channel, discord.Thread)
    needed = {
        N_("View Channel"): have.view_channel,
        N_("Send Messages in Threads") if in_thread else N_("Send Messages"): (
            have.send_messages_in_threads if in_thread else have.send_messages
        ),
        N_("Embed Links"): have.embed_links,
        N_("Read Message History"): have.read_message_history,
    }
    # English names, as Discord's settings call them; ``_(name)`` reads them in the member's
    # language, as their client shows them.
    return [name for name, granted in needed.items() if not granted]


CogType = TypeVar("CogType", bound="type[GameCog]")


def only_privately(interaction: Interaction) -> bool:
    """Whether a user-installed command may answer only privately here: a server without the
    bot whose Use External Apps is off for the member (Discord then sends the interaction
    without Send Messages among the app's permissions, and makes every answer ephemeral)."""
    return interaction.guild_id is not None and not interaction.app_permissions.send_messages


def server_only(cog: CogType) -> CogType:
    """A game's command group offered in servers only (its whole match does not work
    elsewhere yet)."""
    return app_commands.guild_only()(cog)


class GameCog(commands.GroupCog):
    """A game's command group. Subclasses set ``game`` and ``group_name`` to its short name,
    and are decorated ``server_only`` or ``playable_anywhere`` (``bot.chat.matches.places``)."""

    game: ClassVar[str]

    def __init__(self, bot: Parlor, parts: Parts) -> None:
        self.bot = bot
        self.parts = parts
        super().__init__()

    async def challenge_member(
        self,
        interaction: Interaction,
        opponent: discord.abc.User | None,
        options: dict[str, Any],
        common: dict[str, Any] | None = None,
    ) -> None:
        """Post a challenge to ``opponent`` in this channel (``None``: an open challenge).

        ``options`` are the game's (those left out take the game's defaults); ``common`` are
        the values of ``COMMON_OPTIONS``, for the service.
        """
        place = place_of(interaction)
        if not_a_member(interaction, opponent) and not (opponent and opponent.bot):
            await interaction.response.send_message(_(NOT_A_MEMBER_TO_CHALLENGE), ephemeral=True)
            settle(interaction, REFUSED)
            return
        if place is MatchPlace.INTERACTION and only_privately(interaction):
            await interaction.response.send_message(
                _(
                    "This server lets apps it did not add answer only privately (Use External "
                    "Apps is off here), so nobody else could see a match: challenge in a DM or "
                    "group DM, or ask a server manager to add me to the server."
                ),
                ephemeral=True,
            )
            settle(interaction, REFUSED)
            return
        missing = missing_permissions(interaction) if place is MatchPlace.SERVER else []
        if missing:
            await interaction.response.send_message(
                n_(
                    "I cannot run a match in this channel: I am missing the permission "
                    "{permissions} here. Ask a server manager to grant it, or challenge in "
                    "another channel.",
                    "I cannot run a match in this channel: I am missing the permissions "
                    "{permissions} here. Ask a server manager to grant them, or challenge in "
                    "another channel.",
                    len(missing),
                    permissions=", ".join(_(name) for name in missing),
                ),
                ephemeral=True,
            )
            settle(interaction, REFUSED)
            return
        challenges = self.parts.matches.challenges
        given = {name: value for name, value in options.items() if value is not None}
        extra = {name: value for name, value in (common or {}).items() if value is not None}

        async def use_case(board: BoardRoute) -> Report:
            return await challenges.challenge(
                guild_id=interaction.guild_id or 0,  # 0: outside servers
                channel_id=interaction.channel_id or 0,
                challenger_id=acting_of(interaction),
                opponent_id=None if opponent is None else opponent.id,
                game=self.game,
                options=given,
                opponent_is_bot=opponent is not None and opponent.bot,
                board=board,
                place=place,
                **extra,
            )

        await self.parts.requests.run(interaction, use_case)

    async def play(self, interaction: Interaction, text: str) -> None:
        """Play ``text`` in the caller's match of this game in this channel."""
        await self.parts.requests.run(
            interaction, lambda board: self.play_here(interaction, text, board)
        )

    async def play_here(
        self, interaction: Interaction, text: str, board: BoardRoute | None
    ) -> Report:
        """Submit ``text`` to the caller's match of this game here (typed: no version check);
        the match is found in the move's own transaction."""
        if interaction.channel_id is None:
            raise WrongStatus(_("Matches are played in a server channel."))
        return await self.parts.matches.play.play_in_channel(
            interaction.guild_id or 0,
            interaction.channel_id,
            self.game,
            acting_of(interaction),
            text,
            board=board,
        )

    async def match_of(self, interaction: Interaction) -> int:
        """The caller's unfinished match of this game in this channel (for what is not a move:
        the trap picker)."""
        if interaction.channel_id is None:
            raise WrongStatus(_("Matches are played in a server channel."))
        return await self.parts.matches.lookups.find_match(
            interaction.guild_id or 0, interaction.channel_id, self.game, interaction.user.id
        )


Coordinate3 = app_commands.Range[int, 1, 3]
"""A row or column of a 3x3 grid."""
Coordinate5 = app_commands.Range[int, 1, 5]
"""A row or column of a 5x5 grid."""
