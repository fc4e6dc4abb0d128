"""``/play game:``: the quick-pair queue on Discord (docs/queue.md).

One message per game and channel shows how many wait, with Join and Leave; it is edited in
place. Every ``WAVE_EVERY`` this process runs the waves (any process may: the database settles
who pairs whom), posts the boards of the matches they start, edits the queue messages of its
servers whose count changed, and offers the bot to the members whose ``/play`` (or Join) it
answered, through that interaction: its token is kept here, in memory only, while it is valid.

Each queue message is edited on its own: one refused never keeps the others from their count.
A channel the bot may no longer post in (missing access or permission, a locked or archived
thread) is held like a match's (``bot.chat.matches.channel_holds``): logged once, not tried
while it is held, and tried again with backoff by ``bot.chat.matches.hold_retries``. Its count is
not recorded as shown meanwhile, so the first round after the hold ends shows the count as it is
then. A channel that is gone has its queue closed.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import time
import weakref
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

import discord
from discord import app_commands
from discord.ext import commands, tasks

import games
from bot.chat.matches.carried import Carried, Pressed, carried_view
from bot.chat.matches.game_commands import missing_permissions
from bot.chat.parts import Parts
from bot.chat.readers import acting_of, in_server_language
from bot.chat.refusals import say
from bot.chat.request_outcomes import OK, REFUSED, settle
from bot.chat.request_watch import InteractionObserver, observe_press
from bot.chat.sending import UNKNOWN_CHANNEL, UNREACHABLE
from bot.i18n import N_, _, n_, speaking
from bot.i18n.formats import command
from bot.i18n.names import human
from bot.service.errors import REFUSALS
from bot.service.failures import log_failure
from bot.service.quick_pair import STAY, WAVE_EVERY, Board, QuickPair, Spot

if TYPE_CHECKING:
    from bot.chat.app import Parlor

log = logging.getLogger(__name__)

Interaction = discord.Interaction[Any]

TOKEN_LIFE = 14 * 60
"""Seconds an interaction's token is used for: Discord honours it 15 minutes."""
LABELS = {"join": N_("Join"), "leave": N_("Leave"), "bot": N_("Play me instead")}
LEVEL_NAMES = {"easy": N_("easy"), "normal": N_("normal"), "hard": N_("hard")}
"""The bot's levels as the offer names them."""
GAMES = [app_commands.Choice(name=games.get(name).title, value=name) for name in games.GAMES]


QUEUE_TEMPLATE = r"parlor:queue:(?P<verb>join|leave|bot)(?::(?P<game>[a-z]+))?"
"""Join and Leave on a queue's message (``parlor:queue:join:<game>``), and the bot's offer."""
STYLES = {"join": discord.ButtonStyle.success, "bot": discord.ButtonStyle.primary}


def queue_button(verb: str, game: str = "") -> Carried:
    """A queue button, answered by the cog's registered ``QueueButton``."""
    return Carried(
        label=_(LABELS[verb]),
        style=STYLES.get(verb, discord.ButtonStyle.secondary),
        custom_id=f"parlor:queue:{verb}" + (f":{game}" if game else ""),
    )


def _button_class(cog: QueueCog) -> type[discord.ui.DynamicItem[Any]]:
    """The queue's one dynamic item class, answering through ``cog``."""

    class QueueButton(Pressed, template=QUEUE_TEMPLATE):
        """Join and Leave on a queue's message (the channel is where it is pressed), and the
        bot's private offer."""

        def __init__(self, button: discord.ui.Button[Any], match: re.Match[str]) -> None:
            super().__init__(button, match)
            self.verb, self.game = match["verb"], match["game"] or ""

        async def callback(self, interaction: Interaction) -> None:
            if self.verb == "bot":
                await cog.play_bot(interaction)
                return
            joins = self.verb == "join"
            answering = (cog.join if joins else cog.leave)(interaction, self.game)
            await observe_press(cog.observer, interaction, f"button:queue_{self.verb}", answering)

    return QueueButton


def offer_text(game: str, level: str) -> str:
    """The bot's private offer to a member nobody near their rating pairs with."""
    return _(
        "Nobody near your rating is waiting for {game} yet. Play me at level {level} instead "
        "(unrated), or keep waiting.",
        game=game_title(game),
        level=_(LEVEL_NAMES[level]) if level in LEVEL_NAMES else level,
    )


def gone_text() -> str:
    """What a member who waited the longest stay without a match is told."""
    return _(
        "You waited {stay} without a match, so you left the queue. Use {command} again whenever "
        "you like.",
        stay=human(int(STAY.total_seconds())),
        command=command("play"),
    )


def _offer_view() -> discord.ui.View:
    return carried_view(queue_button("bot"))


def queue_view(game: str) -> discord.ui.View:
    return carried_view(queue_button("join", game), queue_button("leave", game))


def game_title(game: str) -> str:
    return _(games.get(game).title)


def queue_text(game: str, waiting: int) -> str:
    """The queue's public message: how many wait, and how to join."""
    title = game_title(game)
    if waiting == 0:
        head = _("**{game} queue**: nobody is waiting.", game=title)
    else:
        head = n_(
            "**{game} queue**: {n} is waiting.",
            "**{game} queue**: {n} are waiting.",
            waiting,
            game=title,
        )
    how = _(
        "Press {join} (or use {command}) to be paired with a member near your rating; the match "
        "starts here at once.",
        join=_(LABELS["join"]),
        command=command("play"),
    )
    return f"{head} {how}"


class Holds(Protocol):
    """The channels out of the bot's reach (``ChannelReach``): which are held, and holding one."""

    def holds(self, channel_id: int) -> bool: ...

    async def hold(self, guild_id: int, channel_id: int) -> None: ...


class QueueCog(commands.Cog, name="Queue"):
    """``/play``, the queue's buttons, and the waves. ``observer`` hears how each press of the
    buttons ended (``None``: nobody)."""

    def __init__(
        self,
        bot: Parlor,
        queue: QuickPair,
        parts: Parts,
        reach: Holds,
        observer: InteractionObserver | None = None,
    ) -> None:
        self.bot = bot
        self.queue = queue
        self.parts = parts
        self.reach = reach
        self.observer = observer
        self.button_class = _button_class(self)
        self._tokens: dict[int, tuple[Interaction, float]] = {}
        """Member -> the interaction of their last ``/play`` or Join, and when it stops being
        used. Memory only: a token is never stored or logged."""
        self._posting: weakref.WeakValueDictionary[tuple[int, str], asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        """A lock per queue message being posted, gone once nobody holds it."""
        self.waves = tasks.loop(seconds=WAVE_EVERY.total_seconds())(self._tick)
        self.waves.before_loop(bot.wait_until_ready)

    async def cog_load(self) -> None:
        self.waves.start()

    async def cog_unload(self) -> None:
        self.waves.cancel()

    @app_commands.command(
        name="play", description="Wait here for a game: you are paired with a member near you."
    )
    @app_commands.guild_only()
    @app_commands.describe(game="The game to play")
    @app_commands.choices(game=GAMES)
    async def play(self, interaction: Interaction, game: app_commands.Choice[str]) -> None:
        settle(interaction, await self.join(interaction, game.value))

    async def join(self, interaction: Interaction, game: str) -> str:
        """Put the member in this channel's queue for ``game``, privately answered; how the
        request ended (``OK`` or ``REFUSED``)."""
        missing = missing_permissions(interaction)
        if missing:
            await interaction.response.send_message(
                _(
                    "I cannot run a match in this channel: I am missing {permissions} here.",
                    permissions=", ".join(_(name) for name in missing),
                ),
                ephemeral=True,
            )
            return REFUSED
        guild, channel = interaction.guild_id or 0, interaction.channel_id or 0
        try:
            joined = await self.queue.join(guild, channel, game, acting_of(interaction))
            wait = await self.queue.fallback_wait(guild)
        except REFUSALS as error:
            await interaction.response.send_message(say(error), ephemeral=True)
            return REFUSED
        self._tokens[interaction.user.id] = (interaction, time.monotonic() + TOKEN_LIFE)
        await interaction.response.send_message(
            _(
                "You are waiting for {game} in this channel ({waiting} waiting). I pair you with "
                "a member near your rating; after {wait} I offer you a game against me. You "
                "leave the queue with {leave}, when a match of yours starts, or after {stay}.",
                game=game_title(game),
                waiting=joined.waiting,
                wait=human(wait),
                leave=_(LABELS["leave"]),
                stay=human(int(STAY.total_seconds())),
            ),
            ephemeral=True,
        )
        await self._ensure_message(joined.spot, joined.waiting)
        if joined.wave_now:
            await self._wave(joined.spot)
        return OK

    async def leave(self, interaction: Interaction, game: str) -> str:
        """Take the member out of this channel's queue for ``game``; how the request ended."""
        spot = Spot(interaction.guild_id or 0, interaction.channel_id or 0, game)
        try:
            await self.queue.leave(acting_of(interaction), spot)
        except REFUSALS as error:
            await interaction.response.send_message(say(error), ephemeral=True)
            return REFUSED
        self._tokens.pop(interaction.user.id, None)
        await interaction.response.send_message(_("You left the queue."), ephemeral=True)
        return OK

    async def play_bot(self, interaction: Interaction) -> None:
        """The bot's offer, taken: a match against me in the queue's channel."""
        guild = interaction.guild_id or 0
        self._tokens.pop(interaction.user.id, None)
        await self.parts.requests.run(
            interaction,
            lambda _board: self.queue.play_bot(acting_of(interaction), guild),
            kind="button:queue_bot",
        )

    async def _ensure_message(self, spot: Spot, waiting: int) -> None:
        """Post the queue's message if it has none; the waves keep its count up to date."""
        lock = self._posting.get((spot.channel_id, spot.game))
        if lock is None:
            lock = self._posting[spot.channel_id, spot.game] = asyncio.Lock()
        async with lock:
            board = await self.queue.board(spot)
            if board.message_id is not None:
                return
            channel = self.bot.get_partial_messageable(spot.channel_id, guild_id=spot.guild_id)
            with await self._in_server_language(spot.guild_id):  # a public post
                text, view = queue_text(spot.game, waiting), queue_view(spot.game)
            try:
                message = await channel.send(text, view=view)
            except discord.HTTPException as error:
                if error.code not in UNREACHABLE:
                    raise
                await self._out_of_reach(spot, error)
                return
            await self.queue.board_shown(spot, message.id, waiting)

    async def _wave(self, spot: Spot) -> None:
        wave = await self.queue.wave(spot)
        for report in wave.reports:
            await self.parts.delivery.deliver(report)

    async def _tick(self) -> None:
        """One round: members past their stay out, waves, the bot's offers, the messages."""
        try:
            waves, gone = await self.queue.tick()
            for wave in waves:
                for report in wave.reports:
                    await self.parts.delivery.deliver(report)
            for entry in gone:
                await self._tell(entry.user_id, gone_text)
            await self._offer()
        except Exception:
            log_failure(log, "queue round failed")  # the next round tries again
        try:
            await self._refresh_messages()
        except Exception:
            log_failure(log, "queue messages not updated")  # the next round tries again

    async def _offer(self) -> None:
        now = time.monotonic()
        for user, (_held, until) in list(self._tokens.items()):
            if until <= now:
                del self._tokens[user]
        for offer in await self.queue.offers(set(self._tokens)):
            text = functools.partial(offer_text, offer.spot.game, offer.level)
            await self._tell(offer.user_id, text, buttons=_offer_view)

    async def _in_server_language(self, guild_id: int) -> AbstractContextManager[None]:
        return await in_server_language(self.parts.languages, guild_id)

    async def _tell(
        self,
        user_id: int,
        text: Callable[[], str],
        buttons: Callable[[], discord.ui.View] | None = None,
    ) -> None:
        """Tell the member privately, through their last ``/play`` or Join; ``text`` (and
        ``buttons``) are built in the language of that interaction's member."""
        held = self._tokens.get(user_id)
        if held is None:
            return
        interaction = held[0]
        with speaking(interaction.locale):
            said = text()
            view = discord.utils.MISSING if buttons is None else buttons()
        try:
            await self.parts.followups.send(interaction, said, ephemeral=True, view=view)
        except discord.HTTPException:
            self._tokens.pop(user_id, None)

    async def _refresh_messages(self) -> None:
        """Edit each queue message of this process's servers whose count is out of date, each
        on its own; those of held channels wait for their hold to end."""
        mine = {guild.id for guild in self.bot.guilds}
        for board in await self.queue.stale_boards(mine):
            if self.reach.holds(board.spot.channel_id):
                continue  # out of reach: not tried, its count stays owed
            try:
                await self._refresh(board)
            except discord.HTTPException as error:
                log.warning(
                    "queue message in channel %s: not updated: HTTP %s (code %s)",
                    board.spot.channel_id,
                    error.status,
                    error.code,
                )
            except Exception:
                log_failure(log, "queue message in channel %s: not updated", board.spot.channel_id)

    async def _refresh(self, board: Board) -> None:
        """Show the queue's count on its message (posted again if it was deleted)."""
        spot = board.spot
        assert board.message_id is not None
        channel = self.bot.get_partial_messageable(spot.channel_id, guild_id=spot.guild_id)
        with await self._in_server_language(spot.guild_id):  # a public post
            text = queue_text(spot.game, board.waiting)
        try:
            await channel.get_partial_message(board.message_id).edit(content=text)
        except discord.HTTPException as error:
            if error.code in UNREACHABLE:
                await self._out_of_reach(spot, error)
            elif isinstance(error, discord.NotFound):  # the message was deleted: post it again
                await self.queue.board_shown(spot, None, 0)
                await self._ensure_message(spot, board.waiting)
            else:
                raise
            return
        await self.queue.board_shown(spot, board.message_id, board.waiting)

    async def _out_of_reach(self, spot: Spot, error: discord.HTTPException) -> None:
        """Discord refused the queue's message with one of ``UNREACHABLE``'s codes: the channel
        is held (its count is shown once it is back), or, gone, its queue is closed."""
        log.warning(
            "queue message in channel %s: out of reach (HTTP %s, code %s)",
            spot.channel_id,
            error.status,
            error.code,
        )
        if error.code == UNKNOWN_CHANNEL:
            await self.queue.close(spot)
            return
        await self.reach.hold(spot.guild_id, spot.channel_id)
