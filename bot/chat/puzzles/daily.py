"""The daily puzzle on Discord: each sweep round chooses the day's puzzle where it is due, then
posts it, or edits its post in place, wherever the post is behind its latest change.

The post shows the position, how many tried and solved, the day's first solvers (mentions
that notify no one) and a Solve button that opens the puzzle privately; the answer is never
on it. The next day's post tells the day before's answer. A new post spends the channel's post
budget (``PostBudget``), like a board's; when it is spent the post waits for a later round.
A channel the bot cannot post in, or one gone, is given up for the day with a log line. A
post sent again after a crash, before its message id was stored, carries the same nonce, which
Discord enforces: the day is posted once.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable

import discord

from bot.chat.boards.live import PostBudget
from bot.chat.puzzles import texts
from bot.chat.puzzles.desk import PuzzleDesk
from bot.i18n import _, speaking
from bot.service.daily_puzzles import DailyPost, DailyPuzzles
from bot.service.languages import Languages
from games.puzzles import worded

log = logging.getLogger(__name__)


class DailyPoster:
    """Posts and edits the daily puzzles of the servers this process ``runs``."""

    def __init__(
        self,
        client: discord.Client,
        daily: DailyPuzzles,
        desk: PuzzleDesk,
        budget: PostBudget,
        languages: Languages | None,
        runs: Callable[[int], bool],
    ) -> None:
        self.client = client
        self.daily = daily
        self.desk = desk
        self.budget = budget
        self.languages = languages
        self.runs = runs

    async def round(self) -> int:
        """Choose the day's puzzles that are due, then bring every post up to date: how many
        posts were made or edited."""
        await self.daily.plan(self.runs)
        done = 0
        for post in await self.daily.behind(self.runs):
            done += await self._show(post)
        return done

    async def _show(self, post: DailyPost) -> int:
        if post.message_id is None and not self.budget.take(post.channel_id):
            return 0  # the channel's posts are spent for now: a later round posts it
        language = await self.languages.server(post.guild_id) if self.languages else None
        with speaking(language):
            content, embed = daily_text(post), texts.puzzle_embed(post.shown, daily=title(post))
            view = self.desk.view(texts.open_button(post.shown))
        channel = self.client.get_partial_messageable(post.channel_id, guild_id=post.guild_id)
        none = discord.AllowedMentions.none()
        try:
            if post.message_id is None:
                message = await channel.send(content, embed=embed, view=view, allowed_mentions=none)
                await self.daily.shown(post.guild_id, post.day, post.version, message.id)
            else:
                await channel.get_partial_message(post.message_id).edit(
                    content=content, embed=embed, view=view, allowed_mentions=none
                )
                await self.daily.shown(post.guild_id, post.day, post.version)
        except (discord.Forbidden, discord.NotFound) as error:
            log.warning(
                "server %s: the daily puzzle could not be shown in channel %s (%s); given up "
                "for the day",
                post.guild_id,
                post.channel_id,
                type(error).__name__,
            )
            await self.daily.shown(post.guild_id, post.day, post.version)
            return 0
        return 1


def daily_nonce(post: DailyPost) -> str:
    """The post's message nonce: a post sent again after a crash, before its message was
    recorded, carries the same one, and Discord posts it once."""
    key = f"daily:{post.guild_id}:{post.day}".encode()
    return hashlib.blake2b(key, digest_size=10).hexdigest()


def title(post: DailyPost) -> str:
    return _("Daily puzzle · {day}", day=post.day)


def daily_text(post: DailyPost) -> str:
    """How many tried and solved, the first solvers, and the day before's answer."""
    lines = [_("{tried} tried · {solved} solved", tried=post.tries, solved=post.solves)]
    if post.first_solvers:
        names = ", ".join(f"<@{user_id}>" for user_id in post.first_solvers)
        lines.append(_("First solvers: {names}", names=names))
    if post.yesterday is not None:
        puzzle = worded(post.yesterday.puzzle)
        lines.append(
            _(
                "Yesterday's answer (puzzle #{id}): {move}. {why}",
                id=post.yesterday.id,
                move=puzzle.best.move,
                why=puzzle.why,
            )
        )
    return "\n".join(lines)
