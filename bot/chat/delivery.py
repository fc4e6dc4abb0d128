"""Turning a use case's ``Report`` into what members see, on one live board per match.

- **The board.** Each match has one channel message, from the challenge to the result, edited in
  place. An update rides on the interaction that caused it wherever Discord allows, since
  interaction responses do not count against the bot's rate limits: the challenge is the
  command's response, and a button pressed on the board edits it in the press's own response.
  Any other update (a slash command, a DM, a deadline) edits the board through the interaction
  that last answered with it, while that interaction's token is valid (15 minutes; tokens are
  kept in memory only and never logged), and with one bot-token call after that.
- **Buried boards.** When other messages have pushed a board up its channel, its next update
  re-posts it at the bottom and deletes the old one, and the re-post mentions whom the match
  waits for: that is how a player is notified (an edit notifies nobody). A re-post rides on the
  update's interaction when it has one; otherwise it takes a bot-token post within the
  channel's budget, and when that is spent the board is edited in place and re-posted with a
  later update.
- **Private things.** A ``Private`` notice goes to the member who acted, ephemerally (or in the
  DM picker they used), and to anyone else by DM. A ``Prompt`` goes by DM; when the DM is refused
  (403, code 50007) the channel gets a button that asks the same privately.

Answers come in the interaction's first response when the use case is done within ``QUICK``
seconds; otherwise the interaction is deferred first. Logs name match and user ids only: never a
message's text, which may hold a secret.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import sys
import time
import weakref
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

import discord

from bot.chat import render
from bot.chat.buttons import to_view
from bot.chat.components import Post, Press
from bot.chat.render import NOT_YOUR_MATCH
from bot.service.errors import REFUSALS, AlreadyPlayed
from bot.service.matches import MatchService
from bot.service.notices import MatchSnapshot, Private, Prompt, Public, Report
from bot.service.outbox import OutboxItem

if TYPE_CHECKING:
    from bot.chat.app import Parlor

log = logging.getLogger(__name__)

CANNOT_DM = 50007
"""Discord's error code for a DM the recipient does not accept."""
UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008
MISSING_ACCESS = 50001
MISSING_PERMISSIONS = 50013
THREAD_ARCHIVED = 50083
UNREACHABLE = frozenset({UNKNOWN_CHANNEL, MISSING_ACCESS, MISSING_PERMISSIONS, THREAD_ARCHIVED})
"""Error codes that mean a match's channel is out of the bot's reach for good."""

QUICK = 1.0
"""Seconds a use case may take before its interaction is deferred (Discord allows 3)."""
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

FAILED = "Something went wrong on my side and nothing was played. Please try again."

Interaction = discord.Interaction[Any]


def log_failure(what: str, *args: object, error: BaseException | None = None) -> None:
    """Log ``error`` (default: the exception being handled) without its text.

    The text may quote a secret: a database error quotes its statement's parameters, and a
    match's state holds the match's secrets. The full traceback goes to DEBUG only.
    """
    error = error or sys.exc_info()[1]
    log.error(f"{what}: %s", *args, type(error).__name__)
    log.debug("%s", what % args, exc_info=error)


class Actor(Protocol):
    """The member whose typed DM produced a report, and how to answer them privately."""

    user_id: int

    async def tell(self, text: str) -> None: ...


class MessageActor:
    """Answers a typed DM in the same DM channel; ``told`` says whether it did."""

    def __init__(self, message: discord.Message) -> None:
        self.user_id = message.author.id
        self.channel = message.channel
        self.told = False

    async def tell(self, text: str) -> None:
        self.told = True
        await self.channel.send(text)


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
        kwargs = _message_kwargs(post, edit=True)
        if self.original:
            await self.interaction.edit_original_response(**kwargs)
        else:
            await self.interaction.followup.edit_message(self.message_id, **kwargs)

    async def delete(self) -> None:
        if self.original:
            await self.interaction.delete_original_response()
        else:
            await self.interaction.followup.delete_message(self.message_id)


class ChannelActivity:
    """The messages lately posted in each channel, from the gateway's message events (which need
    no privileged intent: only their ids are read)."""

    KEPT = 50

    def __init__(self) -> None:
        self._recent: dict[int, deque[int]] = {}

    def saw(self, channel_id: int, message_id: int) -> None:
        self._recent.setdefault(channel_id, deque(maxlen=self.KEPT)).append(message_id)

    def posted_after(self, channel_id: int, message_id: int) -> int:
        """How many messages seen in the channel came after ``message_id``."""
        return sum(1 for seen in self._recent.get(channel_id, ()) if seen > message_id)


class PostBudget:
    """Bot-token posts per channel within a sliding window, kept below Discord's limit."""

    def __init__(self, posts: int = CHANNEL_POSTS, window: float = CHANNEL_WINDOW) -> None:
        self.posts = posts
        self.window = window
        self._sent: dict[int, deque[float]] = {}

    def take(self, channel_id: int) -> bool:
        """Spend one post in the channel if the budget allows it."""
        now = time.monotonic()
        sent = self._sent.setdefault(channel_id, deque())
        while sent and now - sent[0] >= self.window:
            sent.popleft()
        if len(sent) >= self.posts:
            return False
        sent.append(now)
        return True


class Delivery:
    """Sends reports to Discord for one bot (one per process)."""

    def __init__(self, client: Parlor, service: MatchService) -> None:
        self.client = client
        self.service = service
        self.activity = ChannelActivity()
        self.budget = PostBudget()
        self._handles: dict[int, BoardHandle] = {}
        """Match id -> the interaction that can edit its board without a bot-token call."""
        self._shown: dict[int, int] = {}
        """Match id -> the newest version its board shows (a late report never rolls it back)."""
        self._posted: dict[int, int] = {}
        """Match id -> the board message this process last posted for it: a report read before
        that post was recorded still finds the board (until the match ends)."""
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._pruned = time.monotonic()
        self._in_flight: Counter[int] = Counter()

    # ------------------------------------------------------------------ interactions

    async def run(
        self,
        interaction: Interaction,
        use_case: Callable[[], Awaitable[Report]],
        *,
        stale: Press | None = None,
    ) -> Report | None:
        """Run ``use_case`` for ``interaction`` and deliver its report.

        A refusal (``REFUSALS``) is answered privately with its message, and ``None``
        returned. ``stale`` is the button pressed, if any, for ``explain``.
        """
        async with self.client.busy():
            try:
                report: Report = await self._in_time(interaction, use_case())
            except REFUSALS as error:
                text = await self.explain(error, stale, interaction)
                if isinstance(error, AlreadyPlayed) and await self._refresh(interaction, stale):
                    await interaction.followup.send(text, ephemeral=True)
                else:
                    await self._answer_privately(interaction, text)
                return None
            except Exception:
                log_failure("request of user %s failed", interaction.user.id)
                await self._answer_privately(interaction, FAILED)
                return None
            await self.deliver(report, interaction=interaction)
            return report

    async def show(
        self,
        interaction: Interaction,
        make: Callable[[], Awaitable[Post]],
        *,
        stale: Press | None = None,
    ) -> None:
        """Answer ``interaction`` privately with the post ``make`` builds (a picker, a prompt).

        A refusal (``REFUSALS``) is answered privately instead, as in ``run``.
        """
        async with self.client.busy():
            try:
                post = await self._in_time(interaction, make(), private=True)
            except REFUSALS as error:
                await self._answer_privately(
                    interaction, await self.explain(error, stale, interaction)
                )
                return
            except Exception:
                log_failure("request of user %s failed", interaction.user.id)
                await self._answer_privately(interaction, FAILED)
                return
            await self._answer_privately(interaction, post)

    async def _in_time(
        self, interaction: Interaction, work: Awaitable[Any], *, private: bool = False
    ) -> Any:
        """``work``'s result; the interaction is deferred if it takes longer than ``QUICK``."""
        task = asyncio.ensure_future(work)
        done, _ = await asyncio.wait({task}, timeout=QUICK)
        if not done:
            if private or interaction.type is discord.InteractionType.application_command:
                await interaction.response.defer(ephemeral=True, thinking=True)
            else:
                await interaction.response.defer()  # a silent update of the pressed message
        return await task

    async def explain(self, error: Exception, press: Press | None, interaction: Interaction) -> str:
        """What to tell the member whose request was refused.

        An out-of-date button says "already played" before the service knows who pressed it;
        someone outside the match is told it is not their match instead.
        """
        if isinstance(error, AlreadyPlayed) and press is not None:
            try:
                snap = await self.service.snapshot(press.match_id)
            except REFUSALS:
                return str(error)
            if interaction.user.id not in (snap.challenger_id, snap.opponent_id):
                return NOT_YOUR_MATCH
        return str(error)

    async def _refresh(self, interaction: Interaction, press: Press | None) -> bool:
        """Bring the board a stale button was pressed on up to date, in the press's answer;
        whether it was the match's board (a board left behind by a failed update heals)."""
        message = interaction.message
        if press is None or message is None or interaction.response.is_done():
            return False
        if _on_private_message(interaction):
            return False
        snap = await self.service.snapshot(press.match_id)
        if snap.message_id != message.id:
            return False
        if snap.status == "challenged":
            return False
        post = render.board_post(*_as_shown_now(snap))
        await interaction.response.edit_message(**_message_kwargs(post, edit=True))
        self._handles[snap.id] = BoardHandle.of(interaction, message.id, original=True)
        return True

    async def _answer_privately(self, interaction: Interaction, answer: str | Post) -> None:
        """Answer the member who acted, ephemerally (in the first response if still free)."""
        post = answer if isinstance(answer, Post) else Post(render.fit(answer))
        kwargs = _message_kwargs(post)
        if interaction.response.is_done():
            await interaction.followup.send(ephemeral=True, **kwargs)
        else:
            await interaction.response.send_message(ephemeral=True, **kwargs)

    def board_url(self, snap: MatchSnapshot) -> str:
        """A link to the match's board in its channel."""
        handle = self._handles.get(snap.id)
        message_id = handle.message_id if handle else snap.message_id
        return render.jump_url(snap.guild_id, snap.channel_id, message_id)

    def is_me(self, user_id: int) -> bool:
        """Whether ``user_id`` is the bot's own user."""
        me = self.client.user
        return me is not None and me.id == user_id

    def server_name(self, guild_id: int) -> str:
        guild = self.client.get_guild(guild_id)
        return guild.name if guild else f"server {guild_id}"

    async def on_guild_message(self, message: discord.Message) -> None:
        """Note a message posted in a server channel: it may push a board up."""
        if message.guild is not None:
            self.activity.saw(message.channel.id, message.id)

    # ------------------------------------------------------------------ reports

    async def deliver(
        self,
        report: Report,
        *,
        interaction: Interaction | None = None,
        actor: Actor | None = None,
    ) -> None:
        """Deliver every notice of ``report``: the board, private lines, prompts.

        ``interaction`` is the one that caused it, if any, and carries what it can; ``actor`` is
        the member whose typed DM caused it. A notice that cannot be delivered is logged and
        skipped: the others still go out (the match itself is already saved). Nothing is ever
        sent to the bot itself: it plays its own seat inside the service.
        """
        self._in_flight[report.match.id] += 1
        try:
            await self._deliver(report, interaction, actor)
        finally:
            self._in_flight[report.match.id] -= 1
            if not self._in_flight[report.match.id]:
                del self._in_flight[report.match.id]

    def delivering(self, match_id: int) -> bool:
        """Whether this process is delivering a report of the match right now: its outbox
        entries are not due for a second delivery, whatever the clock says."""
        return match_id in self._in_flight

    async def _deliver(
        self, report: Report, interaction: Interaction | None, actor: Actor | None
    ) -> None:
        snap = report.match
        publics = [n for n in report.notices if isinstance(n, Public)]
        acting = interaction.user.id if interaction is not None else None
        private_lines = [
            render.private_text(notice)
            for notice in report.notices
            if isinstance(notice, Private) and notice.user_id == acting
        ]
        # An answer that does not carry the board goes first: the board's own update may wait
        # on Discord's rate limits, and the interaction must be answered within 3 seconds.
        answered_first = interaction is not None and not (
            publics and self._rides_on(snap, interaction)
        )
        if interaction is not None and answered_first:
            await self._guarded(snap, "answer", self._finish(interaction, snap, private_lines))
        shown = True
        if publics:
            lines = [line for notice in publics for line in notice.lines]
            shown &= await self._guarded(snap, "board", self._show_board(snap, lines, interaction))
        if interaction is not None and not answered_first:
            await self._guarded(snap, "answer", self._finish(interaction, snap, private_lines))
        for notice in report.notices:
            if isinstance(notice, Public) or self.is_me(notice.user_id):
                continue
            if isinstance(notice, Private) and notice.user_id == acting:
                continue
            if isinstance(notice, Private) and actor and notice.user_id == actor.user_id:
                await self._guarded(snap, "reply", actor.tell(render.private_text(notice)))
            elif isinstance(notice, Private):
                shown &= await self._guarded(snap, "private", self._tell_by_dm(notice))
            else:
                shown &= await self._guarded(snap, "prompt", self._ask(notice))
        if shown:
            # Shown: the outbox may forget it. Otherwise its deliverer tries again.
            self._confirm(report)
        if report.tournament_id is not None:  # its tournament may move on now
            await self._guarded(
                snap, "tournament", self.client.tournaments.progress(report.tournament_id)
            )

    def _confirm(self, report: Report) -> None:
        """Tell the outbox that everything ``report`` had to show was shown."""
        snap = report.match
        outbox = self.client.outbox
        if any(isinstance(notice, Public) for notice in report.notices):
            outbox.board_shown(snap.id, snap.version)
        for notice in report.notices:
            if isinstance(notice, Public) or self.is_me(notice.user_id):
                continue
            if isinstance(notice, Prompt):
                outbox.sent(snap.id, snap.version, "prompt", notice.user_id)
            elif isinstance(notice, Private):
                outbox.sent(snap.id, snap.version, "private", notice.user_id)

    def _rides_on(self, snap: MatchSnapshot, interaction: Interaction) -> bool:
        """Whether the board's update will be ``interaction``'s own response: a new board or a
        re-post in its channel, or an edit of the board it was pressed on."""
        if interaction.channel_id != snap.channel_id or _on_private_message(interaction):
            return False
        board = snap.message_id
        if board is None or self._buried(snap, board):
            return True
        return interaction.message is not None and interaction.message.id == board

    def _buried(self, snap: MatchSnapshot, board: int) -> bool:
        return self.activity.posted_after(snap.channel_id, board) >= BURIED_AFTER

    async def redeliver(self, entry: OutboxItem) -> bool:
        """Deliver an outbox entry its own process did not confirm; whether it is shown now.

        A board shows the match as it is now (an edit is idempotent); a DM goes with the same
        nonce as its first attempt, so Discord does not post it twice.
        """
        try:
            if entry.kind == "board":
                snap = await self.service.snapshot(entry.match_id)
                # The newest event shows as what just happened, the others as the log.
                await self._show_board(*_as_shown_now(snap), None)
            elif entry.kind == "prompt" and entry.user_id is not None:
                try:
                    prompt = await self.service.prompt(entry.match_id, entry.user_id)
                except REFUSALS:
                    return True  # answered meanwhile, or the match is over: nothing to ask
                await self._ask(prompt)
            elif entry.user_id is not None:
                post = Post(render.fit(f"Match #{entry.match_id}: {entry.text}"))
                nonce = _nonce(entry.match_id, entry.version, "private", entry.user_id)
                await self.send_dm(entry.user_id, post, nonce=nonce)
        except REFUSALS:
            return True
        except discord.HTTPException as error:
            log.warning(
                "match %s: redelivering a %s failed: HTTP %s",
                entry.match_id,
                entry.kind,
                error.status,
            )
            return False
        except Exception:
            log_failure("match %s: redelivering a %s failed", entry.match_id, entry.kind)
            return False
        return True

    async def _guarded(self, snap: MatchSnapshot, what: str, work: Awaitable[None]) -> bool:
        """Run ``work``; whether it succeeded (a failure is logged, never raised)."""
        try:
            await work
            return True
        except discord.HTTPException as error:
            log.warning(
                "match %s: could not deliver the %s: HTTP %s (code %s)",
                snap.id,
                what,
                error.status,
                error.code,
            )
            return False
        except Exception:
            log_failure("match %s: could not deliver the %s", snap.id, what)
            return False

    async def _finish(
        self, interaction: Interaction, snap: MatchSnapshot, private_lines: list[str]
    ) -> None:
        """Answer the interaction if the board did not: private lines, or where the board is."""
        text = "\n".join(private_lines)
        if interaction.response.is_done():
            if text:
                await interaction.followup.send(render.fit(text), ephemeral=True)
            elif (
                interaction.response.type
                is discord.InteractionResponseType.deferred_channel_message
            ):
                # Deferred while the move was slow: the "thinking" answer must say it is done.
                await interaction.edit_original_response(content=_done(snap, self.board_url(snap)))
            return
        if _on_private_message(interaction) and interaction.message is not None:
            # A DM picker or private prompt that has done its job: keep its text, drop its
            # buttons, and add what came of it.
            done = text or f"Done: {self.board_url(snap)}"
            content = render.fit(f"{interaction.message.content}\n\n{done}")
            await interaction.response.edit_message(content=content, view=None)
            return
        if not text and interaction.type is discord.InteractionType.component:
            await interaction.response.defer()  # nothing to say: the board shows it
            return
        await interaction.response.send_message(
            render.fit(text or _done(snap, self.board_url(snap))), ephemeral=True
        )

    # ------------------------------------------------------------------ the board

    async def _show_board(
        self, snap: MatchSnapshot, lines: list[str], interaction: Interaction | None
    ) -> None:
        """Update the board; when it is gone, post it anew, and when its channel is out of
        reach, call the match off and tell the players privately."""
        try:
            await self._update_board(snap, lines, interaction)
        except discord.HTTPException as error:
            if error.code == UNKNOWN_MESSAGE:  # deleted by someone: the match goes on below
                await self._update_board(replace(snap, message_id=None), lines, None)
            elif error.code in UNREACHABLE:
                await self._unreachable(snap, error)
            else:
                raise

    async def _unreachable(self, snap: MatchSnapshot, error: discord.HTTPException) -> None:
        log.warning(
            "match %s: its channel is out of reach (HTTP %s, code %s): calling it off",
            snap.id,
            error.status,
            error.code,
        )
        with contextlib.suppress(*REFUSALS):
            await self.service.call_off(snap.id, "unreachable")
        why = {
            MISSING_ACCESS: "I can no longer see that channel",
            MISSING_PERMISSIONS: "I am no longer allowed to post there",
            THREAD_ARCHIVED: "its thread was archived",
        }.get(error.code, "that channel is gone")
        text = (
            f"Match #{snap.id} ({render.title(snap)}) in <#{snap.channel_id}> was called off: "
            f"{why}. No result, and no rating changed."
        )
        for user_id in snap.members:
            if not self.is_me(user_id):
                await self.send_dm(user_id, Post(text), nonce=_nonce(snap.id, -1, "off", user_id))

    def _forget_expired_tokens(self) -> None:
        """Drop the handles whose token has expired: a token is kept only while it is valid."""
        now = time.monotonic()
        if now - self._pruned < PRUNE_EVERY:
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

    async def _update_board(
        self, snap: MatchSnapshot, lines: list[str], interaction: Interaction | None
    ) -> None:
        self._forget_expired_tokens()
        async with self._lock(snap.id):
            if snap.version < self._shown.get(snap.id, -1):
                return  # a report that lost the race to a newer one: the board shows that one
            self._shown[snap.id] = snap.version
            if snap.over:
                self._shown.pop(snap.id, None)
            if snap.status == "challenged":
                post = render.challenge_post(snap, lines)
            else:
                post = render.board_post(snap, lines)
            # A board this process posted a moment ago may be newer than the one the use case
            # read (its id not stored yet, or stored after the read): the newest message is the
            # board (message ids grow with time). Never post another.
            known = [i for i in (snap.message_id, self._posted.get(snap.id)) if i is not None]
            board = max(known) if known else None
            in_channel = (
                interaction is not None
                and interaction.channel_id == snap.channel_id
                and not _on_private_message(interaction)
            )
            if board is None:
                await self._new_board(snap, post, interaction if in_channel else None)
                return
            pressed = interaction.message if interaction is not None else None
            buried = self._buried(snap, board)
            if (
                interaction is not None
                and pressed is not None
                and pressed.id == board
                and not buried
            ):
                try:
                    await self._edit_in_response(interaction, post)
                except discord.HTTPException as error:
                    # The press's own answer failed: the board must show the move all the same.
                    log.warning(
                        "match %s: answering with the board failed: %s", snap.id, error.status
                    )
                    self._handles.pop(snap.id, None)
                    await self._edit_board(snap, board, post)
                else:
                    self._handles[snap.id] = BoardHandle.of(interaction, board, original=True)
            elif buried and in_channel:
                await self._new_board(snap, post, interaction, replacing=board)
            elif buried and self.budget.take(snap.channel_id):
                await self._new_board(snap, post, None, replacing=board)
            else:
                await self._edit_board(snap, board, post)
            if snap.over:
                self._handles.pop(snap.id, None)
                self._posted.pop(snap.id, None)

    async def _edit_in_response(self, interaction: Interaction, post: Post) -> None:
        kwargs = _message_kwargs(post, edit=True)
        if interaction.response.is_done():
            await interaction.edit_original_response(**kwargs)
        else:
            await interaction.response.edit_message(**kwargs)

    async def _new_board(
        self,
        snap: MatchSnapshot,
        post: Post,
        interaction: Interaction | None,
        *,
        replacing: int | None = None,
    ) -> None:
        """Post the board as a new message: as ``interaction``'s public response when there is
        one, else with the bot token; then delete the message it replaces."""
        old = self._handles.pop(snap.id, None)
        if interaction is None:
            kwargs = _message_kwargs(post, ping=True)
            nonce = _nonce(snap.id, snap.version, "board")
            message_id = (await self._channel(snap).send(nonce=nonce, **kwargs)).id
        elif interaction.response.is_done():
            if interaction.type is discord.InteractionType.application_command:
                # The deferred "thinking" answer is private: fill it in, then post the board.
                await interaction.edit_original_response(content="Posted below.")
            followup = await interaction.followup.send(
                wait=True, **_message_kwargs(post, ping=True)
            )
            message_id = followup.id
            self._handles[snap.id] = BoardHandle.of(interaction, message_id, original=False)
        else:
            callback = await interaction.response.send_message(**_message_kwargs(post, ping=True))
            message_id = callback.message_id or (await interaction.original_response()).id
            self._handles[snap.id] = BoardHandle.of(interaction, message_id, original=True)
        self._posted[snap.id] = message_id
        self.client.outbox.board_moved(snap.id, message_id)
        if replacing is not None:
            await self._delete_board(snap, replacing, old)

    async def _edit_board(self, snap: MatchSnapshot, board: int, post: Post) -> None:
        """Edit the board through the interaction that last answered with it, or with one
        bot-token call when its token has expired."""
        handle = self._handles.get(snap.id)
        if handle is not None and handle.message_id == board and handle.valid():
            try:
                await handle.edit(post)
                return
            except discord.HTTPException as error:
                # An expired token (401, code 50027) or a failure: the bot token goes on.
                log.info(
                    "match %s: editing the board by token failed: HTTP %s", snap.id, error.status
                )
            self._handles.pop(snap.id, None)
        await (
            self._channel(snap).get_partial_message(board).edit(**_message_kwargs(post, edit=True))
        )

    async def _delete_board(self, snap: MatchSnapshot, board: int, old: BoardHandle | None) -> None:
        with contextlib.suppress(discord.NotFound):
            if old is not None and old.message_id == board and old.valid():
                await old.delete()
            else:
                await self._channel(snap).get_partial_message(board).delete()

    def _channel(self, snap: MatchSnapshot) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(snap.channel_id, guild_id=snap.guild_id or None)

    # ------------------------------------------------------------------ direct messages

    async def _tell_by_dm(self, notice: Private) -> None:
        nonce = _nonce(notice.match.id, notice.match.version, "private", notice.user_id)
        if not await self.send_dm(notice.user_id, Post(render.private_text(notice)), nonce=nonce):
            log.info(
                "match %s: a private notice for user %s was not delivered (DMs closed)",
                notice.match.id,
                notice.user_id,
            )

    async def _ask(self, prompt: Prompt) -> None:
        snap = prompt.match
        post = render.prompt_post(
            prompt, server=self.server_name(snap.guild_id), board=self.board_url(snap)
        )
        nonce = _nonce(snap.id, snap.version, "prompt", prompt.user_id)
        if await self.send_dm(prompt.user_id, post, nonce=nonce):
            log.info(
                "match %s: asked user %s for a %s by DM", snap.id, prompt.user_id, prompt.ask.value
            )
            return
        log.info(
            "match %s: DMs of user %s are closed; offering the prompt in the channel",
            snap.id,
            prompt.user_id,
        )
        refused = _message_kwargs(render.dm_refused_post(prompt), ping=True)
        await self._channel(snap).send(nonce=_nonce(snap.id, snap.version, "ask"), **refused)

    async def send_dm(self, user_id: int, post: Post, *, nonce: str | None = None) -> bool:
        """DM ``post`` to the user; ``False`` when they do not accept DMs from the bot.

        A refused DM is reported to the caller, never retried. With a ``nonce``, Discord
        posts it once however often it is sent.
        """
        user = self.client.get_user(user_id) or await self.client.fetch_user(user_id)
        try:
            kwargs = _message_kwargs(post, ping=True)
            await (user.send(nonce=nonce, **kwargs) if nonce else user.send(**kwargs))
        except discord.Forbidden as error:
            if error.code == CANNOT_DM:
                return False
            raise
        return True


# ---------------------------------------------------------------------- helpers


def _message_kwargs(post: Post, *, edit: bool = False, ping: bool = False) -> dict[str, Any]:
    """The keyword arguments that send or edit ``post``.

    Mentions notify only the members in ``post.ping``, and only when ``ping`` (a new message);
    an edit replaces the content, the embed and the buttons (``None`` removes them).
    """
    users = [discord.Object(uid) for uid in post.ping] if ping else []
    allowed = discord.AllowedMentions(everyone=False, roles=False, replied_user=False, users=users)
    kwargs: dict[str, Any] = {"content": post.content, "allowed_mentions": allowed}
    view = to_view(post.layout)
    if edit:
        kwargs["embed"] = post.embed
        kwargs["view"] = view
        return kwargs
    if post.embed is not None:
        kwargs["embed"] = post.embed
    if view is not None:
        kwargs["view"] = view
    return kwargs


def _as_shown_now(snap: MatchSnapshot) -> tuple[MatchSnapshot, list[str]]:
    """A board drawn outside a use case: the newest event as what just happened, the earlier
    ones as its log."""
    return replace(snap, history=snap.history[:-1]), list(snap.history[-1:])


def _nonce(match_id: int, version: int, kind: str, user_id: int | None = None) -> str:
    """A message nonce for one delivery (Discord takes at most 25 characters): a retry of the
    same delivery carries the same nonce, so Discord posts it once."""
    key = f"{match_id}:{version}:{kind}:{user_id}".encode()
    return hashlib.blake2b(key, digest_size=10).hexdigest()


def _on_private_message(interaction: Interaction) -> bool:
    """Whether the pressed message is private: a DM, or an ephemeral message."""
    message = interaction.message
    return interaction.guild_id is None or bool(message and message.flags.ephemeral)


def _done(snap: MatchSnapshot, board: str) -> str:
    if snap.status == "challenged":
        return f"Challenge posted: {board}"
    return f"Played: {board}"
