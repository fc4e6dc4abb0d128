"""Parlor on SimCord, a second Discord independent of the project's own fake.

SimCord (the ``simcord`` package) runs the real, unmodified discord.py client in-process against
its own model of Discord's REST API and gateway: interaction rules, permissions, validation
limits, forms, DMs and a virtual clock. Here the bot is the real ``bot.chat.app.Parlor``, on a
SQLite file of the test's own, with its match service on SimCord's clock, so deadlines pass only
when a test lets time pass (``Table.let_time_pass``) and the sweeper acts on them in virtual time.

Tests act through ``Member`` (slash commands, button presses, typed DMs, forms) and read what the
members see: the channel's public messages, their DMs and the private answers to their requests,
with contents, embeds and buttons.

Each match has one board message in the channel, from the challenge to the result, which the bot
edits in place: a test keeps the board it was given (``start``) and reads it again with
``Table.now``, or finds a match's board with ``Table.board``. With threads on, the challenge
starts the match's thread (``Table.thread``), where its board is.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import discord
import simcord
from simcord import InteractionResult, MemberActor, ResponseMessage
from simcord.backend.models import Channel

from bot.chat.app import Parlor
from bot.settings import Settings
from bot.wiring import App, build

SEED = 1
"""Every match's seed: ``Random(1).randrange(2) == 0``, so the challenger moves first."""

SETTLE_TIMEOUT = 15.0
"""Real seconds SimCord waits for the bot to finish reacting to one action (a bound, not a
measure: an action takes milliseconds, but the machine may be busy)."""

CANNOT_DM = 50007

Readable = discord.Message | ResponseMessage


class SimClock:
    """SimCord's virtual clock, for the match service: bound to the environment once it exists."""

    def __init__(self) -> None:
        self._env: simcord.Env | None = None

    def bind(self, env: simcord.Env) -> None:
        self._env = env

    def __call__(self) -> datetime:
        assert self._env is not None, "the clock is read before SimCord started"
        return self._env.now()


def only(allowed: discord.Permissions) -> discord.PermissionOverwrite:
    """A channel overwrite that allows ``allowed`` and denies every other permission."""
    others = discord.Permissions(discord.Permissions.all().value & ~allowed.value)
    return discord.PermissionOverwrite.from_pair(allowed, others)


APPS: weakref.WeakKeyDictionary[Parlor, App] = weakref.WeakKeyDictionary()
"""Each client's bot process, for the tests that look at its parts (the client holds none)."""


def new_parlor(settings: Settings, clock: SimClock) -> Parlor:
    """A bot process as ``python -m bot`` builds it, on SimCord's clock and with fixed seeds."""
    app = build(settings, clock=clock, seeds=lambda: SEED)
    APPS[app.client] = app
    return app.client


# ---------------------------------------------------------------------- reading messages


def as_message(message: Readable) -> discord.Message:
    """``message`` as discord.py's ``Message`` (ephemeral answers come as ``ResponseMessage``)."""
    return message.message if isinstance(message, ResponseMessage) else message


def buttons(message: Readable) -> list[discord.Button]:
    """The message's buttons, row by row, as its reader sees them."""
    found: list[discord.Button] = []
    for row in as_message(message).components:
        if isinstance(row, discord.ActionRow):
            found.extend(child for child in row.children if isinstance(child, discord.Button))
    return found


def labels(message: Readable) -> list[str]:
    """The labels of the buttons one can press (enabled ones), in order."""
    return [button.label or "" for button in buttons(message) if not button.disabled]


def embed_text(message: Readable) -> str:
    """Everything the message's embeds show: titles, descriptions, fields and footers."""
    parts: list[str] = []
    for embed in as_message(message).embeds:
        parts += [embed.title or "", unbroken(embed.description or "")]
        for field in embed.fields:
            parts += [field.name or "", field.value or ""]
        parts.append(embed.footer.text or "")
    return "\n".join(part for part in parts if part)


def text_of(message: Readable) -> str:
    """Everything the message shows: its content, its embeds' text, its buttons' labels."""
    shown = [as_message(message).content, embed_text(message)]
    shown += [button.label or "" for button in buttons(message)]
    return "\n".join(part for part in shown if part)


def last_event(board: Readable) -> str:
    """What just happened, as the board says it: its embed's "**Last:**" paragraph, with the
    line breaks it has to fit a phone read as the spaces they stand for."""
    lead = "**Last:** "
    for embed in as_message(board).embeds:
        for paragraph in (embed.description or "").split("\n\n"):
            if paragraph.startswith(lead):
                return paragraph.removeprefix(lead).replace("\n", " ")
    raise AssertionError(f"the board says nothing happened:\n{text_of(board)}")


def answered(result: InteractionResult) -> InteractionResult:
    """``result``, checked to be answered as Discord requires.

    An interaction the bot never acknowledges shows the member "This interaction failed"; one
    left "thinking" never gets its answer. SimCord records both without failing.
    """
    assert result.acknowledged, "the bot never answered: the member sees 'interaction failed'"
    response = result.response
    assert response is None or not response.flags.loading, "the bot is still 'thinking'"
    return result


def ephemeral_messages(result: InteractionResult) -> list[ResponseMessage]:
    """The messages only the member sees, answering their request (a picker, a refusal)."""
    replies = [result.response] if result.response is not None else []
    replies += result.followups
    return [reply for reply in replies if reply.ephemeral]


def private_messages(result: InteractionResult) -> list[ResponseMessage]:
    """The answers to a request that the member alone sees: ephemeral messages, and the DM the
    request came from when its answer edited that DM (a DM picker that has done its job)."""
    replies = [result.response] if result.response is not None else []
    replies += result.followups
    return [reply for reply in replies if reply.ephemeral or reply.message.guild is None]


def private_answer(result: InteractionResult) -> str:
    """What the member alone was told in answer to a request: the private answers' text."""
    return "\n".join(reply.content for reply in private_messages(result))


def form_field(result: InteractionResult, label: str) -> str:
    """The custom_id of the text field labelled ``label`` in the form ``result`` opened."""
    modal = result.modal
    assert modal is not None, "the press opened no form"

    def fields(nodes: Sequence[dict[str, Any]], outer: str | None) -> Iterator[tuple[str, str]]:
        for node in nodes:
            own = node.get("label") or outer
            if node.get("type") == discord.ComponentType.text_input.value:
                yield own or "", node["custom_id"]
            yield from fields(node.get("components") or [], own)
            if isinstance(node.get("component"), dict):
                yield from fields([node["component"]], own)

    found = dict(fields(modal.get("components") or [], None))
    assert label in found, f"no field {label!r} in the form: it has {sorted(found)}"
    return found[label]


# ---------------------------------------------------------------------- the table


class Table:
    """The server "Parlor test" with its channel #duels, and the bot running on SimCord."""

    def __init__(
        self,
        env: simcord.Env,
        settings: Settings,
        clock: SimClock,
        *,
        preferred_locale: str | None = None,
        bot_may: discord.Permissions | None = None,
    ) -> None:
        """``preferred_locale``: the server's language in its Discord settings (English by
        default). ``bot_may``: the only permissions the bot has in the channel (by default
        SimCord's: every one but Administrator)."""
        self.env = env
        self.settings = settings
        self.clock = clock
        self.guild = env.create_guild("Parlor test", preferred_locale=preferred_locale)
        if bot_may is None:
            self.channel = self.guild.create_text_channel("duels")
        else:
            bot = env.bot.user
            assert bot is not None, "the bot is not logged in"
            self.channel = self.guild.create_text_channel("duels", overwrites={bot: only(bot_may)})

    @property
    def bot(self) -> Parlor:
        bot = self.env.bot
        assert isinstance(bot, Parlor)
        return bot

    @property
    def app(self) -> App:
        """The running bot process, with every part it built."""
        return APPS[self.bot]

    def seat(self, name: str, *, dms_open: bool = True, manager: bool = False) -> Member:
        """A new member of the server; with ``dms_open=False``, the bot's DMs to them fail; with
        ``manager=True``, they have a role with the Manage Server permission (``/settings``)."""
        roles = [self._managers()] if manager else []
        actor = self.guild.add_member(self.env.create_user(name), roles=roles)
        if not dms_open:
            # Discord answers a DM the recipient does not accept with 403, code 50007.
            self.env.inject_error(
                "POST",
                f"/channels/{actor.user.dm_channel.id}/messages",
                status=403,
                code=CANNOT_DM,
                message="Cannot send messages to this user",
                times=None,
            )
        return Member(self, actor)

    def _managers(self) -> simcord.RoleHandle:
        """The server's role "Managers", with the Manage Server permission."""
        found = self.guild.roles.get("Managers")
        if found is not None:
            return found
        return self.guild.create_role(
            "Managers", permissions=discord.Permissions(manage_guild=True)
        )

    async def restart(self) -> None:
        """Stop the bot process and start a new one on the same database file."""
        old = self.bot
        await self.env.settle()
        await old.close()
        await self.env.restart_bot(new_parlor(self.settings, self.clock))

    async def let_time_pass(self, **duration: float) -> None:
        """Move SimCord's clock on by ``duration`` (``timedelta`` keywords), then by one interval
        of the bot's sweeper, so that it has looked at every deadline passed meanwhile.

        The sweeper runs in SimCord's virtual time: each of its rounds happens as the clock
        passes it, on SimCord's clock, as does the match service's idea of now.
        """
        seconds = timedelta(**duration).total_seconds()
        await self.env.advance_time(seconds + self.settings.sweep_interval)

    # ------------------------------------------------------------------ reading

    def messages(self, where: simcord.ChannelHandle | None = None) -> list[discord.Message]:
        """The channel's public messages (or those of ``where``, one of its threads), oldest
        first, as they stand now."""
        return (where or self.channel).history()

    def threads(self) -> list[simcord.ChannelHandle]:
        """The channel's threads, archived or not."""
        return self.channel.threads

    def thread(self, starter: Readable) -> simcord.ChannelHandle:
        """The thread started from the channel's message ``starter`` (it has the same id)."""
        found = [thread for thread in self.threads() if thread.id == starter.id]
        assert found, f"no thread started from message {starter.id}: {self.threads()}"
        return found[0]

    def thread_record(self, thread: simcord.ChannelHandle) -> Channel:
        """The thread as SimCord holds it: its type, its creator, and its ``thread_metadata``
        (archived or not, its auto-archive duration)."""
        record = self.env.backend.channels[thread.id]
        assert record.thread_metadata is not None, f"{thread} is no thread"
        return record

    def _places(self) -> list[simcord.ChannelHandle]:
        return [self.channel, *self.threads()]

    def latest(self, text: str) -> discord.Message:
        """The newest public message that shows ``text`` (in its content, embed or buttons)."""
        for message in reversed(self.messages()):
            if text in text_of(message):
                return message
        raise AssertionError(f"no message says {text!r}; the channel has:\n{self.transcript()}")

    def now(self, message: Readable) -> discord.Message:
        """``message`` (in the channel or one of its threads) as it stands now (edited since,
        perhaps)."""
        (place,) = [where for where in self._places() if where.id == as_message(message).channel.id]
        found = [m for m in self.messages(place) if m.id == message.id]
        assert found, f"message {message.id} is gone; the channel has:\n{self.transcript()}"
        return found[0]

    def board(self, match: int | None = None) -> discord.Message:
        """The board of match #``match``, or the newest board: a public message with an embed."""
        boards = [message for message in self.messages() if message.embeds]
        if match is not None:
            mark = f" · match #{match}"
            boards = [m for m in boards if (m.embeds[0].title or "").endswith(mark)]
        assert boards, f"no board in the channel; it has:\n{self.transcript()}"
        return boards[-1]

    def linked(self, link: str) -> discord.Message:
        """The public message ``link`` leads to, in the channel or one of its threads."""
        found = [
            message
            for where in self._places()
            for message in self.messages(where)
            if message.jump_url == link
        ]
        assert found, f"{link} leads to no message; the channel has:\n{self.transcript()}"
        return found[0]

    def public_text(self) -> str:
        """Everything the channel shows anyone: contents, embeds, button labels and ids."""
        parts = []
        for message in self.messages():
            parts.append(text_of(message))
            for button in buttons(message):
                parts += [button.label or "", button.custom_id or ""]
        return "\n".join(parts)

    def transcript(self) -> str:
        return "\n".join(f"- {text_of(message)[:300]!r}" for message in self.messages())


@dataclass(frozen=True)
class Form:
    """A form a member opened and has not submitted yet."""

    opened: InteractionResult
    in_dm: bool


class Member:
    """A member of the server, acting as they would in Discord's client."""

    def __init__(self, table: Table, actor: MemberActor) -> None:
        self.table = table
        self.actor = actor

    @property
    def id(self) -> int:
        return self.actor.id

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    # ------------------------------------------------------------------ acting

    async def command(
        self, name: str, /, *, where: simcord.ChannelHandle | None = None, **options: Any
    ) -> InteractionResult:
        """Run the slash command ``name`` (e.g. ``"crown attack"``) in the channel, or in
        ``where`` (one of its threads); members given as options are picked from the member
        list."""
        given = {
            key: value.actor if isinstance(value, Member) else value
            for key, value in options.items()
        }
        return answered(await self.actor.slash(where or self.table.channel, name, **given))

    async def ask(
        self, name: str, /, *, where: simcord.ChannelHandle | None = None, **options: Any
    ) -> str:
        """Run a slash command; what the member alone was told in answer."""
        return private_answer(await self.command(name, where=where, **options))

    async def play(
        self, name: str, /, *, where: simcord.ChannelHandle | None = None, **options: Any
    ) -> discord.Message:
        """Play a move by the slash command ``name``; the board it edited.

        The command answers privately with a link to the board (the board itself shows the move).
        """
        told = await self.ask(name, where=where, **options)
        assert told.startswith("Played: "), f"/{name} was answered {told!r}"
        return self.table.linked(told.removeprefix("Played: "))

    async def stats(self, **options: Any) -> str:
        """Run ``/stats`` (a public answer); the text of the embed it shows."""
        result = await self.command("stats", **options)
        assert result.response is not None and not result.response.ephemeral
        return embed_text(result.response)

    async def press(
        self, message: Readable, label: str | None = None, *, at: tuple[int, int] | None = None
    ) -> InteractionResult:
        """Press the button labelled ``label``, or the one at ``at`` (row, column, from 1)."""
        custom_id = None
        if at is not None:
            row = as_message(message).components[at[0] - 1]
            assert isinstance(row, discord.ActionRow)
            button = row.children[at[1] - 1]
            assert isinstance(button, discord.Button)
            custom_id = button.custom_id
        if as_message(message).guild is None:
            in_dm: InteractionResult = await self.actor.user.click(
                message, label=label, custom_id=custom_id
            )
            return answered(in_dm)
        return answered(await self.actor.click(message, label=label, custom_id=custom_id))

    async def open_form(self, message: Readable, label: str) -> Form:
        """Press the button labelled ``label``, which opens a form."""
        opened = await self.press(message, label)
        assert opened.modal is not None, f"{label!r} opened no form: {private_answer(opened)!r}"
        return Form(opened, in_dm=as_message(message).guild is None)

    async def submit(self, form: Form, field: str, text: str) -> InteractionResult:
        """Type ``text`` in the form's field labelled ``field``, and submit the form."""
        values = {form_field(form.opened, field): text}
        if form.in_dm:
            in_dm: InteractionResult = await self.actor.user.submit_modal(form.opened, values)
            return answered(in_dm)
        return answered(await self.actor.submit_modal(form.opened, values))

    async def type_dm(self, text: str) -> str:
        """Type ``text`` to the bot in DMs; the bot's reply (every DM it sent since, joined)."""
        before = {message.id for message in self.dms()}
        await self.actor.send_dm(text)
        replies = [message.content for message in self.dms() if message.id not in before]
        return "\n".join(replies)

    # ------------------------------------------------------------------ reading

    def dms(self) -> list[discord.Message]:
        """The bot's DMs to the member, oldest first, as they stand now."""
        return [
            message
            for message in self.actor.user.dm_channel.history()
            if message.author.id != self.id
        ]

    def now(self, message: discord.Message) -> discord.Message:
        """The bot's DM ``message`` as it stands now (edited since, perhaps)."""
        (current,) = [m for m in self.dms() if m.id == message.id]
        return current

    def latest_dm(self, text: str) -> discord.Message:
        """The bot's newest DM to the member whose content holds ``text``."""
        for message in reversed(self.dms()):
            if text in message.content:
                return message
        sent = "\n".join(f"- {message.content[:200]!r}" for message in self.dms())
        raise AssertionError(f"no DM to {self.actor.name} says {text!r}; they have:\n{sent}")


# ---------------------------------------------------------------------- shared steps


async def challenge(
    table: Table, challenger: Member, opponent: Member, game: str, **options: Any
) -> discord.Message:
    """``/<game> challenge``: its public answer is the challenge, addressed to the opponent."""
    result = await challenger.command(f"{game} challenge", opponent=opponent, **options)
    assert result.response is not None and not result.response.ephemeral
    offer = table.now(result.response)
    assert offer.content.startswith(f"{opponent.mention}, {challenger.mention} challenges you to")
    assert labels(offer) == ["Accept", "Decline", "Withdraw"]
    return offer


async def start(
    table: Table, challenger: Member, opponent: Member, game: str, **options: object
) -> discord.Message:
    """Challenge and accept; the board: the challenge message itself, turned into the board."""
    offer = await challenge(table, challenger, opponent, game, **options)
    accepted = await opponent.press(offer, "Accept")
    assert accepted.response is not None and accepted.response.id == offer.id
    assert not accepted.followups
    board = table.now(offer)
    assert board.embeds, f"the accepted challenge is no board:\n{text_of(board)}"
    assert f"{opponent.mention} accepted. Coin toss:" in last_event(board)
    assert table.board().id == offer.id
    return board


def unbroken(description: str) -> str:
    """An embed description with the line breaks the board puts in what just happened (its
    "**Last:**" paragraph, broken at spaces to fit a phone) read as the spaces they stand for."""
    return "\n\n".join(
        part.replace("\n", " ") if part.startswith("**Last:**") else part
        for part in description.split("\n\n")
    )
