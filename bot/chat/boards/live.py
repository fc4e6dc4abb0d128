"""One live board per match: where its update goes (decided once, by ``board_route.plan``), and
carrying that out on Discord.

- **Handles.** An interaction whose response is a board can edit it without a bot-token call
  for 15 minutes: the token is kept in memory only (never logged or stored) while valid.
- **Channel activity.** The ids of the messages lately posted in each channel, from the
  gateway's message events: a board with ``BURIED_AFTER`` messages below it is buried.
- **The post budget.** Bot-token re-posts per channel, kept below Discord's limit.

What is kept per match and per channel is forgotten once no match there is in play any more,
whichever process ended it (``forget_ended``, from the sweep), so memory follows the matches in
play, not every match and channel ever seen.

An ``InteractionRoute`` is built from an interaction's facts before its use case runs; the
service asks it, inside the use case's transaction, whether the board rides on the interaction's
own response (then no outbox entry is needed), and the plan it decided then is carried out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref
from collections import deque
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import discord

from bot.chat.boards import render
from bot.chat.boards.activity import ChannelActivity
from bot.chat.boards.lines import said
from bot.chat.boards.route import (
    BY_TOKEN,
    POSTING,
    RIDING,
    Facts,
    Plan,
    Route,
    WaitingForPress,
    plan,
)
from bot.chat.components import Post
from bot.chat.matches.answers import Exchange
from bot.chat.matches.places import in_match_channel
from bot.chat.readers import in_board_language
from bot.chat.sending import (
    UNKNOWN_MESSAGE,
    Interaction,
    as_shown_now,
    channel_of,
    message_kwargs,
    nonce,
)
from bot.i18n import _
from bot.service.languages import Languages
from bot.service.lines import PublicLine
from bot.service.notices import MatchSnapshot
from bot.service.outbox import Outbox

log = logging.getLogger(__name__)

TOKEN_LIFE = timedelta(minutes=15) - timedelta(seconds=30)
"""How long an interaction's token is used for: Discord's 15 minutes, less a margin."""
BURIED_AFTER = 5
"""Messages posted below a board after which its next update re-posts it at the bottom."""
CHANNEL_POSTS = 4
"""Bot-token re-posts allowed per channel per ``CHANNEL_WINDOW`` seconds (Discord allows 5
posts, and a refused DM's button may need one)."""
CHANNEL_WINDOW = 5.0
PRUNE_EVERY = 60.0
"""Seconds between two sweeps of the expired interaction tokens out of memory."""


@dataclass
class BoardHandle:
    """The interaction whose response is a match's board message: it can edit the board
    without a bot-token call until ``expires``."""

    interaction: Interaction
    message_id: int
    original: bool
    """The board is the interaction's original response (else one of its followups)."""
    expires: datetime

    @classmethod
    def of(cls, interaction: Interaction, message_id: int, *, original: bool) -> BoardHandle:
        return cls(interaction, message_id, original, interaction.created_at + TOKEN_LIFE)

    def valid(self) -> bool:
        return discord.utils.utcnow() < self.expires

    async def edit(self, post: Post) -> None:
        kwargs = message_kwargs(post, edit=True)
        if self.original:
            await self.interaction.edit_original_response(**kwargs)
        else:
            await self.interaction.followup.edit_message(self.message_id, **kwargs)

    async def delete(self) -> None:
        if self.original:
            await self.interaction.delete_original_response()
        else:
            await self.interaction.followup.delete_message(self.message_id)


class PostBudget:
    """Bot-token posts per channel within a sliding window, kept below Discord's limit."""

    def __init__(self, posts: int = CHANNEL_POSTS, window: float = CHANNEL_WINDOW) -> None:
        self.posts = posts
        self.window = window
        self._sent: dict[int, deque[float]] = {}

    def _recent(self, channel_id: int) -> deque[float]:
        now = time.monotonic()
        sent = self._sent.setdefault(channel_id, deque())
        while sent and now - sent[0] >= self.window:
            sent.popleft()
        return sent

    def allows(self, channel_id: int) -> bool:
        """Whether a post in the channel is within the budget now."""
        return len(self._recent(channel_id)) < self.posts

    def take(self, channel_id: int) -> bool:
        """Spend one post in the channel if the budget allows it."""
        if not self.allows(channel_id):
            return False
        self._sent[channel_id].append(time.monotonic())
        return True

    @property
    def channels(self) -> int:
        """How many channels have a window kept."""
        return len(self._sent)

    def forget_spent(self) -> None:
        """Forget the channels whose window holds no post any more."""
        for channel_id in list(self._sent):
            if not self._recent(channel_id):
                del self._sent[channel_id]


class InteractionRoute:
    """An update's board route, decided once from the facts when first asked for a match's
    snapshot, and kept: the delivery carries out the plan the service was told about."""

    def __init__(self, boards: Boards, exchange: Exchange | None) -> None:
        self._boards = boards
        self.exchange = exchange
        self._decided: dict[tuple[int, int], Plan] = {}

    def rides_on_response(self, snap: MatchSnapshot) -> bool:
        """Whether the board's update for ``snap`` is the interaction's own response."""
        return self.decide(snap).rides_on_response

    def decide(self, snap: MatchSnapshot) -> Plan:
        """The plan for ``snap``'s board, from the facts as they are when first asked: asking
        spends nothing (the post budget is taken when the plan is carried out)."""
        key = (snap.id, snap.version)
        if key not in self._decided:
            self._decided[key] = plan(self._boards.facts(snap, self.exchange))
        return self._decided[key]


class Boards:
    """Every match's live board, for one bot process."""

    def __init__(
        self, client: discord.Client, outbox: Outbox, languages: Languages | None = None
    ) -> None:
        self.client = client
        self.outbox = outbox
        self.languages = languages
        """The server's language, which every board is written in."""
        self.activity = ChannelActivity()
        self.budget = PostBudget()
        self._handles: dict[int, BoardHandle] = {}
        """Match id -> the interaction that can edit its board without a bot-token call."""
        self._shown: dict[int, int] = {}
        """Match id -> the newest version its board shows (a late report never rolls it back)."""
        self._posted: dict[int, int] = {}
        """Match id -> the board message this process last posted for it: a report read before
        that post was recorded still finds the board (until the match ends)."""
        self._reposted: set[int] = set()
        """The matches whose last update re-posted their board: the next one edits it."""
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._pruned = time.monotonic()

    # ------------------------------------------------------------------ facts

    def route(self, exchange: Exchange | None = None) -> InteractionRoute:
        """The route of the updates an interaction (or nothing: ``None``) causes."""
        return InteractionRoute(self, exchange)

    def board_of(self, snap: MatchSnapshot) -> int | None:
        """The match's board message. One this process posted a moment ago may be newer than
        the one the snapshot read (not stored yet): the newest message is the board (message
        ids grow with time)."""
        known = [i for i in (snap.message_id, self._posted.get(snap.id)) if i is not None]
        return max(known) if known else None

    def forget(self, match_id: int) -> None:
        """Forget the match's board message and the interaction that could edit it: its next
        update posts a new board (the match moved to its thread, or its thread archived)."""
        self._handles.pop(match_id, None)
        self._posted.pop(match_id, None)
        self._reposted.discard(match_id)

    def facts(self, snap: MatchSnapshot, exchange: Exchange | None) -> Facts:
        board = self.board_of(snap)
        handle = self._handles.get(snap.id)
        interaction = exchange.interaction if exchange is not None else None
        public = interaction is not None and in_match_channel(interaction, snap)
        pressed = interaction.message if interaction is not None else None
        return Facts(
            board=board,
            public=public,
            on_board=public and pressed is not None and pressed.id == board,
            response_free=exchange is not None and exchange.response_free,
            handle=handle is not None and handle.message_id == board and handle.valid(),
            buried=board is not None
            and self.activity.posted_after(snap.channel_id, board) >= BURIED_AFTER,
            reposted=snap.id in self._reposted,
            budget=self.budget.allows(snap.channel_id),
            bot_token=not snap.by_interaction_only,
        )

    def board_url(self, snap: MatchSnapshot) -> str:
        """A link to the match's board in its channel."""
        handle = self._handles.get(snap.id)
        message_id = handle.message_id if handle else self.board_of(snap)
        return render.jump_url(snap.guild_id, snap.channel_id, message_id)

    async def on_guild_message(self, message: discord.Message) -> None:
        """Note a message posted in a server channel: it may push a board up."""
        if message.guild is not None:
            self.activity.saw(message.channel.id, message.id)

    # ------------------------------------------------------------------ updates

    async def show(
        self, snap: MatchSnapshot, lines: Sequence[PublicLine], route: InteractionRoute
    ) -> None:
        """Update the board as ``route`` planned, first saying what it still owes (outside
        servers: ``Outbox.with_owed``); when it was deleted, post it anew.

        Raises ``discord.HTTPException`` when Discord refuses (the channel is out of reach).
        """
        self._forget_expired_tokens()
        decided = route.decide(snap)
        language = await in_board_language(self.languages, snap)
        async with self._lock(snap.id):
            if snap.version < self._shown.get(snap.id, -1):
                return  # a report that lost the race to a newer one: the board shows that one
            self._shown[snap.id] = snap.version
            lines, owed = await self.outbox.with_owed(snap, lines)
            with language:
                words = [said(line) for line in lines]  # the lines in the server's language
                if snap.status == "challenged":
                    post = render.challenge_post(snap, words)
                else:
                    post = render.board_post(snap, words)
            try:
                await self._carry_out(snap, post, decided, route.exchange)
            except discord.HTTPException as error:
                if error.code != UNKNOWN_MESSAGE or self.board_of(snap) is None:
                    raise
                # Deleted by someone: the match goes on below, on a new board.
                self.forget(snap.id)
                await self._post(snap, post, None)
            if owed:
                await self.outbox.lines_shown(snap.id, snap.version)
            if snap.over:
                self._shown.pop(snap.id, None)
                self.forget(snap.id)

    async def _carry_out(
        self, snap: MatchSnapshot, post: Post, decided: Plan, exchange: Exchange | None
    ) -> None:
        """Carry ``decided`` out on the board as it is now (another update may have moved it
        since the plan), or its ``fallback`` where its route cannot. When the interaction's
        response was to carry the board, the service wrote no outbox entry for it: one is
        written before the fallback, so that a fallback failing too leaves the board owed to
        the redelivery, not stale."""
        board = self.board_of(snap)
        moved = decided.route is Route.EDIT_IN_RESPONSE and decided.board != board
        fallback = decided.fallback
        if fallback is not None and (
            moved or (decided.spends_budget and not self.budget.take(snap.channel_id))
        ):
            await self._fall_back(snap, post, decided, fallback)
            return
        try:
            await self._attempt(snap, post, decided.route, board, exchange)
        except discord.HTTPException as error:
            if decided.route in BY_TOKEN and not decided.bot_token:
                # Its token failed (expired): nothing else reaches it; the next press will.
                self._handles.pop(snap.id, None)
                if decided.rides_on_response:
                    await self.outbox.owe_board(snap.id, snap.version)
                raise WaitingForPress(snap.id) from error
            if fallback is None or decided.route not in BY_TOKEN:
                raise
            # The press's own answer failed, or the token expired (401, code 50027): the board
            # must show the update all the same, with the bot token.
            if decided.rides_on_response:
                log.warning("match %s: answering with the board failed: %s", snap.id, error.status)
            else:
                log.info(
                    "match %s: %s by token failed: HTTP %s",
                    snap.id,
                    decided.route.value,
                    error.status,
                )
            await self._fall_back(snap, post, decided, fallback)

    async def _fall_back(
        self, snap: MatchSnapshot, post: Post, decided: Plan, fallback: Plan
    ) -> None:
        self._handles.pop(snap.id, None)
        if decided.rides_on_response:
            await self.outbox.owe_board(snap.id, snap.version)
        await self._attempt(snap, post, fallback.route, self.board_of(snap), None)

    async def _attempt(
        self,
        snap: MatchSnapshot,
        post: Post,
        route: Route,
        board: int | None,
        exchange: Exchange | None,
    ) -> None:
        if route in POSTING or board is None:
            # A board forgotten since the plan (its match moved to a thread) is posted anew.
            riding = exchange if route in RIDING else None
            await self._post(snap, post, riding, board)
            if board is not None:
                self._reposted.add(snap.id)
            return
        self._reposted.discard(snap.id)
        if route is Route.EDIT_IN_RESPONSE and exchange is not None:
            await self._edit_in_response(exchange, post)
            self._handles[snap.id] = BoardHandle.of(exchange.interaction, board, original=True)
        elif (
            route is Route.EDIT_BY_HANDLE
            and (handle := self._handles.get(snap.id))
            and (handle.message_id == board)
        ):
            await handle.edit(post)
        elif snap.by_interaction_only:
            raise WaitingForPress(snap.id)  # the token it was to use is gone meanwhile
        else:
            message = channel_of(self.client, snap).get_partial_message(board)
            await message.edit(**message_kwargs(post, edit=True))

    async def _edit_in_response(self, exchange: Exchange, post: Post) -> None:
        kwargs = message_kwargs(post, edit=True)
        async with exchange.turn() as response:
            if response.is_done():
                await exchange.interaction.edit_original_response(**kwargs)
            else:
                await response.edit_message(**kwargs)

    async def _post(
        self,
        snap: MatchSnapshot,
        post: Post,
        exchange: Exchange | None,
        replacing: int | None = None,
    ) -> None:
        """Post the board as a new message: as the interaction's public response when there is
        one, else with the bot token; then delete the message it replaces."""
        if exchange is None and snap.by_interaction_only:
            raise WaitingForPress(snap.id)
        old = self._handles.pop(snap.id, None)
        kwargs = message_kwargs(post, ping=True)
        if exchange is None:
            sent = await channel_of(self.client, snap).send(
                nonce=nonce(snap.id, snap.version, "board"), **kwargs
            )
            message_id = sent.id
        else:
            interaction = exchange.interaction
            async with exchange.turn() as response:
                if response.is_done():
                    if interaction.type is discord.InteractionType.application_command:
                        # The deferred "thinking" answer is private: fill it in, then post.
                        await interaction.edit_original_response(content=_("Posted below."))
                    followup = await exchange.followups.send(interaction, wait=True, **kwargs)
                    assert followup is not None  # waited for, and public: never dropped
                    message_id = followup.id
                    original = False
                else:
                    callback = await response.send_message(**kwargs)
                    message_id = callback.message_id or (await interaction.original_response()).id
                    original = True
            self._handles[snap.id] = BoardHandle.of(interaction, message_id, original=original)
        self._posted[snap.id] = message_id
        self.outbox.board_moved(snap.id, message_id)
        if replacing is not None:
            await self._delete(snap, replacing, old)

    async def _delete(self, snap: MatchSnapshot, board: int, old: BoardHandle | None) -> None:
        with contextlib.suppress(discord.NotFound):
            if old is not None and old.message_id == board and old.valid():
                await old.delete()
            else:
                await channel_of(self.client, snap).get_partial_message(board).delete()

    # ------------------------------------------------------------------ a stale press

    async def refresh(self, exchange: Exchange, snap: MatchSnapshot) -> bool:
        """Bring the board a stale button was pressed on up to date, in the press's answer;
        whether it was the match's board (a board left behind by a failed update heals)."""
        interaction = exchange.interaction
        message = interaction.message
        if message is None or not in_match_channel(interaction, snap):
            return False
        if self.board_of(snap) != message.id or snap.status == "challenged":
            return False
        shown, now = as_shown_now(snap)
        lines, owed = await self.outbox.with_owed(shown, now)
        with await in_board_language(self.languages, snap):
            post = render.board_post(shown, lines)
        kwargs = message_kwargs(post, edit=True)
        async with exchange.turn() as response:
            if not response.is_done():
                await response.edit_message(**kwargs)
            elif response.type is discord.InteractionResponseType.deferred_message_update:
                await interaction.edit_original_response(**kwargs)
            else:
                return False
        self._handles[snap.id] = BoardHandle.of(interaction, message.id, original=True)
        if owed:
            await self.outbox.lines_shown(snap.id, snap.version)
        return True

    # ------------------------------------------------------------------ upkeep

    def held(self) -> dict[str, int]:
        """How much this process keeps in memory: matches and channels, by what for."""
        return {
            "handles": len(self._handles),
            "shown": len(self._shown),
            "posted": len(self._posted),
            "reposted": len(self._reposted),
            "locks": len(self._locks),
            "activity": len(self.activity.channels),
            "budget": self.budget.channels,
        }

    async def forget_ended(
        self,
        in_play: Callable[[Collection[int], Collection[int]], Awaitable[tuple[set[int], set[int]]]],
    ) -> None:
        """Forget what is kept of matches no longer in play, and of channels without a match
        in play, wherever those matches ended (here, or in another process: a deadline, a
        typed DM). ``in_play`` says which of the matches and channels are still in play."""
        before = discord.utils.time_snowflake(discord.utils.utcnow())
        matches = set(self._shown) | set(self._handles) | set(self._posted) | self._reposted
        channels = self.activity.channels
        live, busy = await in_play(matches, channels)
        for ended in matches - live:
            self._shown.pop(ended, None)
            self.forget(ended)
        self.activity.forget(channels - busy, before)
        self.budget.forget_spent()
        self._forget_expired_tokens(force=True)

    def _forget_expired_tokens(self, *, force: bool = False) -> None:
        """Drop the handles whose token has expired: a token is kept only while it is valid."""
        now = time.monotonic()
        if now - self._pruned < PRUNE_EVERY and not force:
            return
        self._pruned = now
        for match_id, handle in list(self._handles.items()):
            if not handle.valid():
                del self._handles[match_id]

    def _lock(self, match_id: int) -> asyncio.Lock:
        lock = self._locks.get(match_id)
        if lock is None:
            lock = self._locks[match_id] = asyncio.Lock()
        return lock
