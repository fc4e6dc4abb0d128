"""Followup messages, counted per interaction, within Discord's cap.

An interaction that only a member's own install authorised (a DM or group DM between members, a
server without the app) may create 5 followup messages; Discord refuses the sixth (400, code
40094). Every followup the bot creates goes through the process's one ``Followups`` (built by
``bot.wiring``), which counts them per interaction (one token each) and never sends one the cap
would refuse: a private answer past the cap takes the place of the interaction's original
response when that response is private too, and is dropped (logged) when the original response
is public, such as a match's message, which a private line must never overwrite. Counts live in
memory for the token's 15 minutes, like the tokens themselves; a server's own install is not
capped.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from datetime import datetime, timedelta
from typing import Any

import discord

Interaction = discord.Interaction[Any]

log = logging.getLogger(__name__)

FOLLOWUP_CAP = 5
"""Followups an interaction authorised by a member's install alone may create (Discord's docs,
"Receiving and responding": followup messages)."""
TOKEN_LIFE = timedelta(minutes=15)


def capped(interaction: Interaction) -> bool:
    """Whether the cap applies: only a user install authorised the interaction."""
    return interaction.is_user_integration() and not interaction.is_guild_integration()


class Followups:
    """Creates the followups of one bot process, counting them per capped interaction.

    Built once by the composition root and handed to everything that creates a followup, so
    every followup on one interaction is counted in one place.
    """

    def __init__(self) -> None:
        self._sent: OrderedDict[int, tuple[datetime, int]] = OrderedDict()
        """Capped interaction id -> when it was created and the followups created on it,
        oldest first."""

    def sent(self, interaction: Interaction) -> int:
        """The followups created on a capped ``interaction`` (or reserved, being sent)."""
        entry = self._sent.get(interaction.id)
        return entry[1] if entry is not None else 0

    async def send(
        self, interaction: Interaction, content: str | None = None, **kwargs: Any
    ) -> discord.WebhookMessage | None:
        """Create a followup of ``interaction`` with ``content`` and ``kwargs`` (as
        ``Webhook.send`` takes them); the message when ``wait`` was given, else ``None``.

        Past the cap, a private followup edits the interaction's original response instead
        when that response is private, else is dropped; a public one (a match's message posted
        after a deferral) raises ``FollowupCapped``: nothing else may post it.
        """
        if content is not None:
            kwargs["content"] = content
        if self._reserve(interaction):
            try:
                message: discord.WebhookMessage | None = await interaction.followup.send(**kwargs)
            except discord.HTTPException:
                self._release(interaction)
                raise
            return message
        if not kwargs.get("ephemeral"):
            raise FollowupCapped(interaction.id)
        original = await interaction.original_response()
        if not original.flags.ephemeral:
            log.info(
                "interaction %s: a private followup past the cap of %d was dropped",
                interaction.id,
                FOLLOWUP_CAP,
            )
            return None
        await interaction.edit_original_response(**_as_edit(kwargs))
        return None

    def _reserve(self, interaction: Interaction) -> bool:
        """Count one more followup on ``interaction`` if the cap allows it; whether it did.
        Only capped interactions are counted: a server's own are kept nowhere."""
        if not capped(interaction):
            return True
        self._forget_expired(discord.utils.utcnow())
        count = self.sent(interaction)
        if count >= FOLLOWUP_CAP:
            return False
        self._sent[interaction.id] = (interaction.created_at, count + 1)
        return True

    def _release(self, interaction: Interaction) -> None:
        """A reserved followup was not created (Discord refused it): it does not count."""
        entry = self._sent.get(interaction.id)
        if entry is not None:
            self._sent[interaction.id] = (entry[0], max(entry[1] - 1, 0))

    def _forget_expired(self, now: datetime) -> None:
        while self._sent:
            created, _count = next(iter(self._sent.values()))
            if now - created < TOKEN_LIFE:
                return
            self._sent.popitem(last=False)


def _as_edit(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``Webhook.send``'s arguments as ``edit_original_response`` takes them: the answer
    replaces the original one whole (its text, embed, buttons and files)."""
    edit: dict[str, Any] = {"content": None, "embed": None, "view": None, "attachments": []}
    if "embeds" in kwargs:
        del edit["embed"]
    for key in ("content", "embed", "embeds", "view", "allowed_mentions"):
        if key in kwargs and kwargs[key] is not discord.utils.MISSING:
            edit[key] = kwargs[key]
    files = list(kwargs.get("files") or [])
    single = kwargs.get("file", discord.utils.MISSING)
    if single is not discord.utils.MISSING:
        files.append(single)
    if files:
        edit["attachments"] = files
    return edit


class FollowupCapped(Exception):
    """A public followup the cap would refuse was not sent."""

    def __init__(self, interaction_id: int) -> None:
        super().__init__(f"interaction {interaction_id}: followup cap reached")
        self.interaction_id = interaction_id
