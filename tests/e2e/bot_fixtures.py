"""Parlor against the fake Discord: the running bot, a hand-wound clock, and what members see.

Test modules load these fixtures with ``pytest_plugins = ("tests.e2e.bot_fixtures",)`` and reach
everything through the ``table`` fixture (a channel with members and the bot), so they need not
import this module at run time. The bot is the real ``bot.chat.app.Parlor`` on unmodified
discord.py, on a database of the test's own; its clock only moves when a test winds it, so
deadlines fire exactly when a test says so.
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.chat.app import Parlor
from bot.chat.components import Press, Verb
from bot.settings import Settings
from bot.wiring import App, build

from .fake_discord import (
    FakeChannel,
    FakeDiscord,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    FakeUser,
    RecordedRequest,
)

SEED = 1
"""Every match's seed: ``Random(1).randrange(2) == 0``, so the challenger moves first."""

SWEEP_INTERVAL = 0.1
"""The shortest the settings allow: deadlines fire soon after the fake's clock passes them."""

DM_ROUTES = frozenset({"POST /users/@me/channels", "GET /users/{user_id}"})
"""Bot-token routes a DM takes besides its post: opening the DM channel, finding the user."""
CHALLENGE_VERBS = frozenset({Verb.ACCEPT, Verb.DECLINE, Verb.WITHDRAW})


class Clock:
    """A clock that only moves when ``advance`` is called."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> None:
        self.now += timedelta(**kwargs)


class Table:
    """A channel where members play against each other through the bot, and how to read it."""

    def __init__(
        self, fake: FakeDiscord, channel: FakeChannel, settings: Settings, clock: Clock
    ) -> None:
        self.fake = fake
        self.channel = channel
        self.settings = settings
        self.clock = clock
        self.bot: Parlor | None = None
        self.app: App | None = None

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Parlor]:
        """A new bot process, logged in until the block ends (then closed, as on a restart)."""
        app = build(self.settings, clock=self.clock, seeds=lambda: SEED, guild_ready_timeout=0.01)
        bot = app.client
        async with self.fake.connected(bot):
            self.bot, self.app = bot, app
            try:
                yield bot
            finally:
                self.bot, self.app = None, None

    def checkpoint(self) -> int:
        """A marker: ``posted(..., after=checkpoint)`` only sees messages created later."""
        return self.fake.checkpoint()

    # ------------------------------------------------------------------ acting

    async def slash(
        self, who: FakeMember | FakeUser, command: str, **options: object
    ) -> FakeInteraction:
        """Run a slash command in the channel and wait for the answer the member sees."""
        interaction = await self.fake.slash(who, self.channel, command, **options)
        return await self.fake.wait_for_response(interaction)

    async def click(
        self, who: FakeMember | FakeUser, message: FakeMessage, verb: str, arg: str = ""
    ) -> FakeInteraction:
        """Press a button and wait until the bot has acknowledged the press."""
        interaction = await self.fake.click(who, message, button(message, verb, arg))
        await self.fake.wait_until(
            lambda: interaction.acknowledged, what="the press to be acknowledged"
        )
        return interaction

    async def refused(self, who: FakeMember, message: FakeMessage, verb: str, arg: str = "") -> str:
        """Press a button expecting a private refusal; the refusal's text."""
        interaction = await self.fake.click(who, message, button(message, verb, arg))
        await self.fake.wait_for_response(interaction)
        assert interaction.messages and all(m.ephemeral for m in interaction.messages)
        return answer(interaction)

    async def dm(self, who: FakeMember, text: str) -> FakeMessage:
        """The member's typed DM to the bot, and the bot's reply to it."""
        mark = self.checkpoint()
        await self.fake.dm(who, text)
        return await self.fake.wait_for_message(who, after=mark)

    # ------------------------------------------------------------------ reading

    async def posted(
        self,
        contains: str | Callable[[FakeMessage], bool],
        *,
        after: int,
        where: FakeMember | None = None,
    ) -> FakeMessage:
        """The first bot message matching, posted since ``after`` in a member's DMs, or in the
        channel posted or edited since (a board is edited in place)."""
        place: FakeChannel | FakeMember = self.channel if where is None else where
        edited = where is None
        if isinstance(contains, str):
            text = contains
            return await self.fake.wait_for_message(
                place, lambda m: text in m.text, after=after, edited=edited
            )
        return await self.fake.wait_for_message(place, contains, after=after, edited=edited)

    async def closed(self, message: FakeMessage) -> None:
        """Wait until ``message`` has no buttons left."""
        await self.fake.wait_until(lambda: not message.custom_ids, what="the buttons to go")

    def board(self) -> FakeMessage:
        """The newest board (a bot message with an embed) in the channel."""
        boards = [m for m in self.fake.messages(self.channel) if m.embeds]
        assert boards, "no board in the channel"
        return boards[-1]

    def boards_of(self, match_id: int) -> list[FakeMessage]:
        """The channel's messages that show match ``match_id``: its open challenge, its board,
        or the notice a closed challenge leaves."""
        return [m for m in self.fake.messages(self.channel) if shows_match(m, match_id)]

    def board_of(self, match_id: int) -> FakeMessage:
        """The one message in the channel that shows match ``match_id``."""
        found = self.boards_of(match_id)
        assert len(found) == 1, f"match #{match_id} has {len(found)} boards in the channel"
        return found[0]

    # ------------------------------------------------------------------ requests

    def request_mark(self) -> int:
        """A marker for ``bot_calls``: only requests received later count."""
        return len(self.fake.requests)

    def bot_calls(self, since: int) -> BotCalls:
        """The bot-token requests received since ``since`` (a ``request_mark``), by place."""
        calls = BotCalls()
        dms = {c.id for c in self.fake.state.channels.values() if c.is_dm}
        for request in self.fake.requests[since:]:
            if not request.bot_token:
                continue
            place = channel_of(request)
            if place == self.channel.id:
                calls.board[request.route_key] += 1
            elif request.route_key in DM_ROUTES or place in dms:
                calls.dms[request.route_key] += 1
            else:
                calls.other[request.route_key] += 1
        return calls

    @staticmethod
    def answer(interaction: FakeInteraction) -> str:
        return answer(interaction)

    @staticmethod
    def presses(message: FakeMessage) -> list[Press]:
        return presses(message)

    def public_text(self) -> str:
        """Everything public in the channel: every version of every message, button ids too."""
        parts = []
        for message in self.fake.messages(self.channel):
            parts += [message.text, *message.custom_ids, *map(str, message.history)]
        return "\n".join(parts)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings as the environment would give them, without reading any ``.env``.

    The database is a new SQLite file: the bot creates its schema at start, as in production.
    """
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        discord_token=SecretStr("unused: the fake Discord has its own"),
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'parlor.db'}",
        sweep_interval=SWEEP_INTERVAL,
        dev_guild_id=None,
    )


@pytest.fixture
def idle_table(
    fake_discord: FakeDiscord,
    channel: FakeChannel,
    alice: FakeMember,
    bob: FakeMember,
    settings: Settings,
    clock: Clock,
) -> Table:
    """The table with no bot running yet: ``async with table.running(): ...``."""
    return Table(fake_discord, channel, settings, clock)


@pytest.fixture
async def table(idle_table: Table) -> AsyncIterator[Table]:
    """The table with the bot running for the whole test."""
    async with idle_table.running():
        yield idle_table


# ---------------------------------------------------------------------- message helpers


@dataclass
class BotCalls:
    """Bot-token requests by route: in the table's channel, for DMs, and anything else."""

    board: Counter[str] = field(default_factory=Counter)
    dms: Counter[str] = field(default_factory=Counter)
    other: Counter[str] = field(default_factory=Counter)


_CHANNEL_PATH = re.compile(r"/channels/(\d+)(?:/|$)")


def channel_of(request: RecordedRequest) -> int | None:
    """The channel a request's path names, if any."""
    found = _CHANNEL_PATH.match(request.path)
    return int(found.group(1)) if found else None


def shows_match(message: FakeMessage, match_id: int) -> bool:
    """Whether ``message`` is match ``match_id``'s challenge, board or closed-challenge notice."""
    if any(embed.get("title", "").endswith(f"· match #{match_id}") for embed in message.embeds):
        return True
    if any(p.match_id == match_id and p.verb in CHALLENGE_VERBS for p in presses(message)):
        return True
    return f"(match #{match_id})." in message.content


def answer(interaction: FakeInteraction) -> str:
    """The text of every message answering ``interaction``."""
    return "\n".join(message.text for message in interaction.messages)


def button(message: FakeMessage, verb: str, arg: str = "") -> str:
    """The custom_id of the message's button doing ``verb`` with ``arg``."""
    for custom_id in message.custom_ids:
        press = Press.parse(custom_id)
        if press is not None and press.verb == verb and press.arg == arg:
            return custom_id
    raise AssertionError(f"no {verb!r} {arg!r} button: the message has {message.custom_ids}")


def presses(message: FakeMessage) -> list[Press]:
    """What the message's enabled buttons do."""
    found = []
    for component in message.buttons:
        press = Press.parse(str(component.get("custom_id", "")))
        if press is not None and not component.get("disabled"):
            found.append(press)
    return found
