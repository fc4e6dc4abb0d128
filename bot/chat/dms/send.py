"""Private words by DM: prompts (a secret, a hint, a trap cell) and private notices.

A ``Prompt`` goes by DM; when the DM is refused (403, code 50007) the channel gets a button that
asks the same privately. A private notice to someone other than the member who acted goes by
DM, and is not retried when refused. Every DM carries a nonce, so a retry never posts twice.
"""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager, nullcontext

import discord

from bot.chat.boards import render
from bot.chat.boards.lines import said
from bot.chat.boards.live import Boards
from bot.chat.components import Post
from bot.chat.readers import in_dm_language, in_server_language
from bot.chat.sending import CANNOT_DM, channel_of, message_kwargs, nonce
from bot.i18n import _
from bot.service.dm_answers import AwaitedAnswers
from bot.service.languages import Languages
from bot.service.lines import kept_event
from bot.service.notices import Private, Prompt

log = logging.getLogger(__name__)


class DirectMessages:
    """DMs to members, for one bot process."""

    def __init__(
        self,
        client: discord.Client,
        boards: Boards,
        languages: Languages | None = None,
        answers: AwaitedAnswers | None = None,
    ) -> None:
        self.client = client
        self.boards = boards
        self.languages = languages
        """Each member's DM language, and the server's for a prompt offered in its channel."""
        self.answers = answers
        """Where a prompt asked by DM is noted, for an answer typed while the bot is away."""

    async def speaking_to(self, user_id: int, guild_id: int) -> AbstractContextManager[None]:
        """The language of a DM to the member about something in ``guild_id``."""
        return await in_dm_language(self.languages, user_id, guild_id)

    def server_name(self, guild_id: int) -> str:
        guild = self.client.get_guild(guild_id)
        return guild.name if guild else _("server {id}", id=guild_id)

    def is_me(self, user_id: int) -> bool:
        """Whether ``user_id`` is the bot's own user: it plays its seat inside the service."""
        me = self.client.user
        return me is not None and me.id == user_id

    async def tell(self, notice: Private) -> None:
        """DM a private notice to its member (nothing when their DMs are closed)."""
        match = notice.match
        key = nonce(match.id, match.version, "private", notice.user_id)
        with await self.speaking_to(notice.user_id, match.guild_id):
            post = Post(render.private_text(notice))
        if not await self.send_dm(notice.user_id, post, nonce=key):
            log.info(
                "match %s: a private notice for user %s was not delivered (DMs closed)",
                match.id,
                notice.user_id,
            )

    async def tell_text(self, match_id: int, version: int, user_id: int, text: str) -> None:
        """DM a private notice kept in the outbox (its snapshot is gone): its event worded in
        the member's language, or the words an earlier release kept, as they are."""
        kept = kept_event(text)
        language = nullcontext() if kept is None else await self.speaking_to(user_id, kept.guild_id)
        with language:
            told = text if kept is None else said(kept.told)
            post = Post(render.fit(_("Match #{id}: {text}", id=match_id, text=told)))
        await self.send_dm(user_id, post, nonce=nonce(match_id, version, "private", user_id))

    async def ask(self, prompt: Prompt) -> None:
        """Ask a member by DM; in the channel, with a button, when their DMs are closed."""
        snap = prompt.match
        with await self.speaking_to(prompt.user_id, snap.guild_id):
            post = render.prompt_post(
                prompt, server=self.server_name(snap.guild_id), board=self.boards.board_url(snap)
            )
        key = nonce(snap.id, snap.version, "prompt", prompt.user_id)
        sent = await self._send(prompt.user_id, post, nonce=key)
        if sent is not None:
            log.info(
                "match %s: asked user %s for a %s by DM", snap.id, prompt.user_id, prompt.ask.value
            )
            if self.answers is not None:
                await self.answers.asked(snap.id, prompt.user_id, sent.channel.id, sent.id)
            return
        log.info(
            "match %s: DMs of user %s are closed; offering the prompt in the channel",
            snap.id,
            prompt.user_id,
        )
        with await in_server_language(self.languages, snap.guild_id):
            refused = message_kwargs(render.dm_refused_post(prompt), ping=True)
        await channel_of(self.client, snap).send(
            nonce=nonce(snap.id, snap.version, "ask"), **refused
        )

    async def send_dm(self, user_id: int, post: Post, *, nonce: str | None = None) -> bool:
        """DM ``post`` to the user; ``False`` when they do not accept DMs from the bot.

        A refused DM is reported to the caller, never retried. With a ``nonce``, Discord
        posts it once however often it is sent.
        """
        return await self._send(user_id, post, nonce=nonce) is not None

    async def _send(
        self, user_id: int, post: Post, *, nonce: str | None = None
    ) -> discord.Message | None:
        """``send_dm``: the message sent, or ``None`` when the user does not accept DMs."""
        user = self.client.get_user(user_id) or await self.client.fetch_user(user_id)
        try:
            kwargs = message_kwargs(post, ping=True)
            return await (user.send(nonce=nonce, **kwargs) if nonce else user.send(**kwargs))
        except discord.Forbidden as error:
            if error.code == CANNOT_DM:
                return None
            raise
