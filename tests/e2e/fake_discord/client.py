"""The test-side driver: run the fake, build its world, act as its users, wait, and read.

Typical use (``tests/e2e/conftest.py`` wraps the first and last steps in the ``fake_discord``
fixture)::

    fake = FakeDiscord()
    await fake.start()
    guild = fake.add_guild("Parlor test")
    channel = fake.add_text_channel(guild, "duels")
    alice = fake.add_member(guild, fake.add_user("alice"))
    with fake.patch_discord():
        bot = MyBot(intents=discord.Intents.default(), guild_ready_timeout=0.02)
        async with fake.connected(bot):
            interaction = await fake.slash(alice, channel, "ping")
            await fake.wait_for_response(interaction)
            assert interaction.original.content == "ok"
    await fake.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Iterator, Mapping
from functools import partial
from typing import Any, TypeVar

import discord
import yarl
from aiohttp import web
from discord.gateway import DiscordWebSocket
from discord.http import Route

from .commands import CHANNEL, CHAT_INPUT, MENTIONABLE, ROLE, USER, invocation_options
from .errors import JSON, InvalidInvocation
from .gateway import Gateway
from .installs import (
    BOT_DM,
    GUILD,
    authorizing_owners,
    command_contexts,
    interaction_context,
)
from .interactions import (
    DEFAULT_DEADLINE,
    answers_only_ephemeral,
    check_select_values,
    interaction_create_payload,
    modal_submit_data,
)
from .limits import BUTTON, CONTENT_MAX, LINK_STYLE, PREMIUM_STYLE, SELECT_TYPES, check_locale
from .permissions import (
    ADMINISTRATOR,
    BOT_PERMISSIONS,
    MANAGE_THREADS,
    MEMBER,
    ROLE_OVERWRITE,
    USE_APPLICATION_COMMANDS,
    VIEW_CHANNEL,
    Overwrite,
    sending_permission,
)
from .ratelimits import RateLimiter, RateLimitHit, RateLimits
from .records import (
    APPLICATION_COMMAND,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    RecordedRequest,
)
from .replies import channel_resource
from .server import API_PREFIX, GATEWAY_PATH, RestAPI
from .shards import Shard
from .state import DiscordState
from .threads import set_archived

DEFAULT_TOKEN = "fake-discord.bot-token.for-tests"
DEFAULT_TIMEOUT = 5.0
RECHECK_INTERVAL = 0.01
"""Seconds between checks of a waited condition when the fake sees no change (the condition may
depend on the bot's side, e.g. what ``on_message`` collected)."""

T = TypeVar("T")
Person = FakeUser | FakeMember
"""Who acts: a user, or a member (the user is taken from it)."""


class ClientStopped(RuntimeError):
    """The discord.py client being driven stopped while a test was waiting for it."""


class FakeDiscord:
    """A fake Discord on 127.0.0.1: REST API and gateway, for an unmodified discord.py client.

    ``interaction_deadline`` is Discord's 3 s for an initial response. ``clock`` is the fake's
    time source (the deadline, the 15-minute interaction tokens, the rate limit windows and the
    times recorded all read it); :meth:`advance_clock` moves it forward without waiting.
    ``rate_limits`` are Discord's unless given (tighten a field to test throttling). ``shards``
    is the shard count ``GET /gateway/bot`` recommends. With ``privileged_intents`` false,
    identifying with members/presences/message content intents is refused (close code 4014) as
    for a bot without them enabled.
    """

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_name: str = "Parlor",
        interaction_deadline: float = DEFAULT_DEADLINE,
        heartbeat_interval: float = 41.25,
        privileged_intents: bool = True,
        clock: Callable[[], float] = time.perf_counter,
        rate_limits: RateLimits | None = None,
        shards: int = 1,
    ) -> None:
        self.state = DiscordState(token=token, bot_name=bot_name, clock=clock)
        self.gateway = Gateway(
            self.state,
            heartbeat_interval=heartbeat_interval,
            privileged_intents=privileged_intents,
        )
        self.limiter = RateLimiter(rate_limits or RateLimits(), self.state.clock)
        self.api = RestAPI(self.state, self.gateway, self.limiter, shards=shards)
        self.api.interactions.deadline = interaction_deadline
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self._client_tasks: set[asyncio.Task[None]] = set()

    # -- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen on a free port of 127.0.0.1."""
        runner = web.AppRunner(self.api.application(), access_log=None, handle_signals=False)
        await runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        await web.SockSite(runner, sock).start()
        self.gateway.loop = asyncio.get_running_loop()
        self._runner = runner
        self._port = sock.getsockname()[1]
        self.api.base_url = f"http://127.0.0.1:{self._port}"
        self.gateway.url = f"ws://127.0.0.1:{self._port}{GATEWAY_PATH}"

    async def close(self) -> None:
        """Close every gateway connection and stop listening."""
        await self.gateway.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    @property
    def api_base(self) -> str:
        """``http://127.0.0.1:PORT/api/v10``: the value for ``discord.http.Route.BASE``."""
        return f"{self._base()}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        """``ws://127.0.0.1:PORT/gateway``: the value for ``DiscordWebSocket.DEFAULT_GATEWAY``."""
        return self._base().replace("http://", "ws://") + GATEWAY_PATH

    def _base(self) -> str:
        if self._port is None:
            raise RuntimeError("the fake Discord is not started")
        return f"http://127.0.0.1:{self._port}"

    @property
    def token(self) -> str:
        """The bot token the fake accepts."""
        return self.state.token

    @property
    def bot(self) -> FakeUser:
        """The bot's own user; its id is also the application id."""
        return self.state.bot

    @property
    def owner(self) -> FakeUser:
        """The application's owner, also the default owner of new guilds."""
        return self.state.owner

    @property
    def application_id(self) -> int:
        """The application's id (the bot user's id, as for most bots)."""
        return self.state.application_id

    @property
    def interaction_deadline(self) -> float:
        """Seconds a bot has for an initial response; later ones get 404 (code 10062)."""
        return self.api.interactions.deadline

    @interaction_deadline.setter
    def interaction_deadline(self, seconds: float) -> None:
        self.api.interactions.deadline = seconds

    @property
    def rate_limits(self) -> RateLimits:
        """The limits enforced; change a field to tighten (or with ``None`` lift) a bucket."""
        return self.limiter.limits

    @property
    def shards(self) -> int:
        """The shard count ``GET /gateway/bot`` recommends."""
        return self.api.shards

    def now(self) -> float:
        """The fake's time (seconds on its clock, plus what :meth:`advance_clock` added)."""
        return self.state.clock()

    def advance_clock(self, seconds: float) -> None:
        """Move the fake's time forward: interaction deadlines and tokens age, buckets refill."""
        self.state.clock_offset += seconds
        self.state.notify()

    @contextlib.contextmanager
    def patch_discord(self) -> Iterator[None]:
        """Point discord.py's REST base and default gateway at the fake; restore them after."""
        base, gateway = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
        Route.BASE = self.api_base
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        try:
            yield
        finally:
            Route.BASE = base
            DiscordWebSocket.DEFAULT_GATEWAY = gateway

    @contextlib.asynccontextmanager
    async def connected(
        self, client: discord.Client, *, ready_timeout: float = 10.0
    ) -> AsyncIterator[discord.Client]:
        """Run ``client.start(token)`` in a task until it is ready; close it cleanly on exit.

        Pass the client ``guild_ready_timeout`` of a few hundredths of a second, or discord.py
        waits 2 s after the last GUILD_CREATE before it is ready. Build the world (guilds,
        channels) first: what is added later reaches the client as gateway events, a moment
        later. While the client runs, the waiting helpers fail at once (:class:`ClientStopped`)
        if it dies; if it died unnoticed, leaving the block raises :class:`ClientStopped`.
        Several clients may be connected at once (nest the blocks), e.g. one per shard.
        """
        if self.api_base != Route.BASE:
            raise RuntimeError("discord.py does not point at this fake: use patch_discord()")
        logins = self._count_requests("GET", "/users/@me")
        task = asyncio.create_task(client.start(self.token), name="fake-discord-client")
        self._client_tasks.add(task)
        try:
            # client.start() prepares wait_until_ready() before its first request.
            await self.wait_until(
                lambda: self._count_requests("GET", "/users/@me") > logins,
                timeout=ready_timeout,
                what="the client to log in",
            )
            await self._wait_with_client(client.wait_until_ready(), ready_timeout, "ready")
            yield client
        finally:
            self._client_tasks.discard(task)
            await client.close()
            failure = await self._outcome(task, ready_timeout)
        if failure is not None:
            raise ClientStopped(f"the discord.py client stopped: {failure!r}") from failure

    @staticmethod
    async def _outcome(task: asyncio.Task[None], seconds: float) -> BaseException | None:
        """Wait for a closed client's task to end; return what it raised, if anything."""
        done, _ = await asyncio.wait({task}, timeout=seconds)
        if not done:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            return None
        return None if task.cancelled() else task.exception()

    async def _wait_with_client(
        self, waiting: Coroutine[Any, Any, object], seconds: float, what: str
    ) -> None:
        waiter = asyncio.ensure_future(waiting)
        watched: set[asyncio.Future[Any]] = {waiter, *self._client_tasks}
        done, _ = await asyncio.wait(watched, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        if waiter in done:
            waiter.result()
            return
        waiter.cancel()
        self._raise_if_client_stopped()
        raise TimeoutError(self._timeout_message(f"the client to be {what}", seconds))

    def _raise_if_client_stopped(self) -> None:
        for task in self._client_tasks:
            if task.done():
                error = None if task.cancelled() else task.exception()
                raise ClientStopped(f"the discord.py client stopped: {error!r}") from error

    # -- building the world -------------------------------------------------------------------

    def add_user(
        self, name: str, *, bot: bool = False, dms_open: bool = True, locale: str = "en-US"
    ) -> FakeUser:
        """A new user (a bot account if ``bot``); ``dms_open=False`` refuses the bot's DMs;
        ``locale`` is their Discord app's language (a Discord locale)."""
        return self.state.add_user(name, bot=bot, dms_open=dms_open, locale=locale)

    def set_locale(self, user: FakeUser, locale: str) -> None:
        """The user switches their Discord app to ``locale``: their next interactions carry it."""
        user.locale = check_locale(locale)
        self.state.notify()

    def add_guild(
        self,
        name: str,
        *,
        owner: FakeUser | None = None,
        bot_permissions: int = BOT_PERMISSIONS,
        shard: tuple[int, int] | None = None,
        preferred_locale: str = "en-US",
        with_app: bool = True,
    ) -> FakeGuild:
        """A new guild the bot is in (with its managed role of ``bot_permissions``).

        ``shard=(shard_id, shard_count)`` gives it an id whose events go to that shard;
        ``preferred_locale`` is the server's language in its settings (a Discord locale). With
        ``with_app=False`` the application is not installed there: the bot is not a member and
        hears nothing of it, its token gets 403 50001 there, and only members' user installs
        reach it (see :meth:`install_for_user`).
        """
        guild = self.state.add_guild(
            name,
            owner=owner or self.owner,
            bot_permissions=bot_permissions,
            shard=None if shard is None else Shard(*shard),
            preferred_locale=preferred_locale,
            with_app=with_app,
        )
        if with_app:
            self.gateway.guild_created(guild)
        return guild

    def install_for_user(self, user: Person) -> None:
        """``user`` adds the application to their account (a user install): commands whose
        ``integration_types`` include 1 follow them into DMs, group DMs and servers without
        the application, as their ``contexts`` allow."""
        self._user(user).installed_app = True
        self.state.notify()

    def uninstall_for_user(self, user: Person) -> None:
        """``user`` removes the application from their account."""
        self._user(user).installed_app = False
        self.state.notify()

    def add_dm_between(self, user: Person, other: Person) -> FakeChannel:
        """The DM between two people (channel type 1, the bot not in it)."""
        return self.state.add_private_channel(self._user(user), [self._user(other)])

    def add_group_dm(self, owner: Person, *others: Person, name: str = "group") -> FakeChannel:
        """A group DM (channel type 3) ``owner`` started with ``others``; the bot is not in it."""
        people = [self._user(other) for other in others]
        return self.state.add_private_channel(self._user(owner), people, name=name)

    def _tells_bot(self, guild_id: int | None) -> bool:
        """True if the bot hears of changes in ``guild_id`` (the application is installed)."""
        return guild_id is not None and guild_id in self.state.guilds

    def set_preferred_locale(self, guild: FakeGuild, locale: str) -> None:
        """The server's owner changes its language (GUILD_UPDATE)."""
        guild.preferred_locale = check_locale(locale)
        self.state.notify()
        self.gateway.guild_updated(guild)

    def add_text_channel(self, guild: FakeGuild, name: str) -> FakeChannel:
        """A new text channel of ``guild``."""
        channel = self.state.add_text_channel(guild, name)
        if self._tells_bot(guild.id):
            self.gateway.channel_created(channel)
        return channel

    def delete_channel(self, channel: FakeChannel) -> None:
        """A moderator deletes the text channel ``channel`` (CHANNEL_DELETE): every route to it
        and its threads answers 404 Unknown Channel (10003) from then on."""
        if channel.guild_id is None or channel.is_thread:
            raise ValueError("only a server's text channel is deleted this way")
        self.state.delete_channel(channel)
        self.gateway.channel_deleted(channel)

    def add_role(
        self, guild: FakeGuild, name: str, *, permissions: int = 0, position: int | None = None
    ) -> FakeRole:
        """A new role of ``guild`` granting ``permissions`` (Discord's permission bits), at the
        top of its roles, or at ``position`` (1 is just above ``@everyone``: below the bot's
        role), the roles from there up moved one higher (GUILD_ROLE_CREATE and UPDATE)."""
        role, moved = self.state.add_role(guild, name, permissions, position)
        if self._tells_bot(guild.id):
            self.gateway.role_created(role)
            for each in moved:
                self.gateway.role_updated(each)
        return role

    def add_member(
        self,
        guild: FakeGuild,
        user: FakeUser,
        *,
        nick: str | None = None,
        roles: tuple[FakeRole, ...] = (),
    ) -> FakeMember:
        """Make ``user`` a member of ``guild`` (or return their membership)."""
        existing = guild.member(user.id)
        if existing is not None:
            return existing
        member = self.state.add_member(guild, user, nick=nick, roles=list(roles))
        if self._tells_bot(guild.id):
            self.gateway.member_added(member)
        return member

    def delete_role(self, role: FakeRole) -> None:
        """A manager deletes ``role`` (GUILD_ROLE_DELETE); its members lose it, and a request
        naming it is then 404 10011."""
        self.state.delete_role(role)
        if self._tells_bot(role.guild_id):
            self.gateway.role_deleted(role)

    def set_role_permissions(self, role: FakeRole, permissions: int) -> None:
        """Change what ``role`` grants (GUILD_ROLE_UPDATE); see :meth:`bot_role` for the bot's."""
        role.permissions = permissions
        self.state.notify()
        if self._tells_bot(role.guild_id):
            self.gateway.role_updated(role)

    def set_member_roles(self, guild: FakeGuild, who: Person, roles: Iterable[FakeRole]) -> None:
        """Give ``who`` (the bot too: ``fake.bot``) exactly ``roles`` in ``guild``
        (GUILD_MEMBER_UPDATE)."""
        member = guild.member(self._user(who).id)
        if member is None:
            raise ValueError("not a member of that guild")
        member.roles = list(roles)
        self.state.notify()
        if self._tells_bot(guild.id):
            self.gateway.member_updated(member)

    def bot_role(self, guild: FakeGuild) -> FakeRole:
        """The role Discord manages for the bot in ``guild``."""
        return next(role for role in guild.roles.values() if role.bot_id == self.bot.id)

    def set_overwrite(
        self,
        channel: FakeChannel,
        target: FakeRole | Person,
        *,
        allow: int = 0,
        deny: int = 0,
    ) -> None:
        """Give ``channel`` an overwrite for a role (``guild.everyone`` too) or a member.

        ``target`` may be the bot (``fake.bot``). The client gets CHANNEL_UPDATE, so
        ``channel.permissions_for(guild.me)`` agrees with what the fake enforces.
        """
        if channel.is_thread:
            raise ValueError("a thread has no overwrites of its own: set its parent's")
        if isinstance(target, FakeRole):
            overwrite = Overwrite(target.id, ROLE_OVERWRITE, allow, deny)
        else:
            overwrite = Overwrite(self._user(target).id, MEMBER, allow, deny)
        self.state.set_overwrite(channel, overwrite, overwrite.id)
        if self._tells_bot(channel.guild_id):
            self.gateway.channel_updated(channel)

    def clear_overwrite(self, channel: FakeChannel, target: FakeRole | Person) -> None:
        """Remove ``channel``'s overwrite for ``target`` (CHANNEL_UPDATE)."""
        target_id = target.id if isinstance(target, FakeRole) else self._user(target).id
        self.state.set_overwrite(channel, None, target_id)
        if self._tells_bot(channel.guild_id):
            self.gateway.channel_updated(channel)

    def permissions(self, who: Person, channel: FakeChannel) -> int:
        """What ``who`` (the bot, a user or member) may do in ``channel``, as the fake enforces."""
        return self.state.channel_permissions(channel, self._user(who).id)

    def add_thread(
        self,
        channel: FakeChannel,
        name: str,
        *,
        owner: Person | None = None,
        private: bool = False,
        members: tuple[Person, ...] = (),
        from_message: FakeMessage | None = None,
    ) -> FakeChannel:
        """A thread of the text channel ``channel``, started by ``owner`` (THREAD_CREATE).

        Public unless ``private``; ``owner`` (the guild's owner by default) and ``members`` join
        it. ``from_message`` starts it from that message (the thread takes the message's id).
        """
        guild = self.state.guild_of(channel)
        if guild is None or channel.is_thread or channel.is_dm:
            raise ValueError("threads belong to a guild text channel")
        starter = self._user(owner) if owner is not None else self.state.users[guild.owner_id]
        thread = self.state.add_thread(
            channel,
            name,
            owner=starter,
            kind=PRIVATE_THREAD if private else PUBLIC_THREAD,
            thread_id=None if from_message is None else from_message.id,
        )
        for member in members:
            thread.member_ids.setdefault(self._user(member).id, thread.created_at)
        self.gateway.thread_created(thread)
        return thread

    def set_thread_state(
        self, thread: FakeChannel, *, archived: bool | None = None, locked: bool | None = None
    ) -> None:
        """Archive, unarchive, lock or unlock ``thread`` as a moderator would (THREAD_UPDATE)."""
        set_archived(thread, thread.archived if archived is None else archived, locked=locked)
        self.state.notify()
        self.gateway.thread_updated(thread)

    def remove_guild(self, guild: FakeGuild) -> None:
        """Remove the bot from ``guild`` (kicked, or the guild deleted): GUILD_DELETE is sent, and
        the guild and its channels are unknown from then on."""
        self.state.remove_guild(guild)
        self.gateway.guild_deleted(guild)

    def remove_member(self, guild: FakeGuild, user: Person) -> None:
        """``user`` leaves ``guild`` (GUILD_MEMBER_REMOVE only reaches a bot with the members
        intent)."""
        member = self.state.remove_member(guild, self._user(user))
        self.gateway.member_removed(member)

    def close_dms(self, user: Person) -> None:
        """Make the bot's DMs to ``user`` fail with 403 (code 50007)."""
        self._user(user).dms_open = False

    def open_dms(self, user: Person) -> None:
        """Let the bot's DMs to ``user`` through again."""
        self._user(user).dms_open = True

    def dm_channel(self, user: Person) -> FakeChannel:
        """The DM channel between the bot and ``user`` (opened if needed)."""
        return self.state.dm_channel(self._user(user))

    # -- acting as users ----------------------------------------------------------------------

    async def slash(
        self, user: Person, channel: FakeChannel, command: str, /, **options: object
    ) -> FakeInteraction:
        """``user`` runs ``/command`` in ``channel``; returns once INTERACTION_CREATE is sent.

        ``command`` is the full name (``"crown challenge"``); ``options`` are the values by
        option name: ``str``/``int``/``float``/``bool``, a :class:`FakeUser`/:class:`FakeMember`
        for a user option, a :class:`FakeChannel` or :class:`FakeRole`. A choice may be given by
        its value or by its name. Raises :class:`InvalidInvocation` if the command is not
        registered where ``user`` is, or an option is unknown, missing, of the wrong type, not
        among the choices or outside the registered range or length.
        """
        person = self._user(user)
        permissions = self._check_can_act(person, channel)
        if channel.guild_id is not None and not permissions & USE_APPLICATION_COMMANDS:
            raise InvalidInvocation(f"{person.name} may not use application commands there")
        if channel.archived:
            raise InvalidInvocation("application commands cannot be used in an archived thread")
        names = command.split()
        if not names:
            raise InvalidInvocation("no command given")
        installed = self.state.guild_of(channel)
        registered = self.state.commands.find(names[0], None if installed is None else installed.id)
        where = "in DMs" if channel.guild_id is None else f"in guild {channel.guild_id}"
        if registered is None:
            raise InvalidInvocation(f"/{names[0]} is not registered {where}")
        owners = self._check_command_allowed(registered, person, channel)
        resolved: dict[str, dict[str, JSON]] = {}
        resolve = partial(self._resolve_option, person, channel, resolved)
        data: dict[str, JSON] = {
            "id": registered["id"],
            "name": registered["name"],
            "type": CHAT_INPUT,
            "options": invocation_options(registered, names[1:], options, resolve),
        }
        if resolved:
            data["resolved"] = resolved
        if "guild_id" in registered:
            data["guild_id"] = registered["guild_id"]
        interaction = self.state.new_interaction(
            kind=APPLICATION_COMMAND,
            user=person,
            channel=channel,
            data=data,
            command=" ".join(names),
            context=interaction_context(channel),
            owners=owners,
        )
        await self._send_interaction(interaction)
        return interaction

    async def click(self, user: Person, message: FakeMessage, custom_id: str) -> FakeInteraction:
        """``user`` clicks the button ``custom_id`` on ``message`` (as the message is now).

        Raises :class:`InvalidInvocation` if the message has no such button, it is disabled or a
        link, or ``user`` cannot see the message (another user's ephemeral message).
        """
        person = self._user(user)
        component = self._component(person, message, custom_id)
        if component.get("type") != BUTTON:
            raise InvalidInvocation(f"{custom_id!r} is not a button; use select()")
        if component.get("style") in (LINK_STYLE, PREMIUM_STYLE):
            raise InvalidInvocation(f"{custom_id!r} is a link button; it sends no interaction")
        data: dict[str, JSON] = {"custom_id": custom_id, "component_type": BUTTON}
        return await self._component_interaction(person, message, component, data)

    async def select(
        self, user: Person, message: FakeMessage, custom_id: str, values: list[str]
    ) -> FakeInteraction:
        """``user`` picks ``values`` in the select menu ``custom_id`` on ``message``."""
        person = self._user(user)
        component = self._component(person, message, custom_id)
        if component.get("type") not in SELECT_TYPES:
            raise InvalidInvocation(f"{custom_id!r} is not a select menu; use click()")
        check_select_values(component, values)
        data: dict[str, JSON] = {
            "custom_id": custom_id,
            "component_type": component["type"],
            "values": list(values),
        }
        return await self._component_interaction(person, message, component, data)

    async def submit_modal(
        self,
        user: Person,
        source: FakeInteraction | FakeMessage,
        custom_id: str,
        values: Mapping[str, object],
    ) -> FakeInteraction:
        """``user`` fills in and submits the modal ``custom_id``.

        ``source`` is the interaction the bot answered with the modal, or the message whose
        component opened it. ``values`` are by input custom_id: text for a text input, a list of
        option values for a select. Raises :class:`InvalidInvocation` if no such modal is open
        for ``user``, a field is unknown, a required one is empty, or a length is not allowed.
        """
        person = self._user(user)
        opener = source if isinstance(source, FakeInteraction) else self._modal_opener(source)
        if opener is None or opener.modal is None:
            raise InvalidInvocation("no modal is open there")
        if opener.user is not person:
            raise InvalidInvocation(f"the modal was shown to {opener.user.name}, not {person.name}")
        if opener.modal_submitted:
            raise InvalidInvocation("that modal was already submitted")
        if opener.modal.get("custom_id") != custom_id:
            raise InvalidInvocation(f"the open modal is {opener.modal.get('custom_id')!r}")
        data = modal_submit_data(opener.modal, values)
        opener.modal_submitted = True
        interaction = self.state.new_interaction(
            kind=MODAL_SUBMIT,
            user=person,
            channel=opener.channel,
            data=data,
            message=opener.message,
            context=opener.context,
            owners=opener.owners,
        )
        await self._send_interaction(interaction)
        return interaction

    async def dm(self, user: Person, text: str) -> FakeMessage:
        """``user`` writes ``text`` in their DM with the bot (MESSAGE_CREATE, no intent needed)."""
        person = self._user(user)
        return await self.send(person, self.state.dm_channel(person), text)

    async def send(self, user: Person, channel: FakeChannel, text: str) -> FakeMessage:
        """``user`` writes ``text`` in ``channel``; returns once MESSAGE_CREATE is sent (if any).

        In an archived thread the message unarchives it (THREAD_UPDATE first), unless the
        thread is locked: a locked thread takes messages only from members with MANAGE_THREADS.
        """
        person = self._user(user)
        permissions = self._check_can_act(person, channel)
        if not text or len(text) > CONTENT_MAX:
            raise InvalidInvocation(f"a message has 1 to {CONTENT_MAX} characters")
        if channel.guild_id is not None and not permissions & sending_permission(channel.is_thread):
            raise InvalidInvocation(f"{person.name} may not send messages there")
        if channel.locked and (channel.archived or not permissions & MANAGE_THREADS):
            raise InvalidInvocation("the thread is locked")
        if channel.archived:
            set_archived(channel, False)
            self.gateway.thread_updated(channel)
        message = self.state.create_message(channel, person, {"content": text})
        reaches = self.state.bot_reaches(channel)
        sent = self.gateway.message_created(message) if reaches else None
        if sent is not None:
            await asyncio.wait_for(asyncio.shield(sent), DEFAULT_TIMEOUT)
        return message

    async def drop_gateway(self, code: int = 4000, *, shard: int | None = None) -> None:
        """Cut the gateway connections (of one shard) as a network failure would; clients RESUME."""
        await self.gateway.drop_connection(code, shard=shard)

    def request_reconnect(self, *, shard: int | None = None) -> None:
        """Ask the clients (of one shard) to reconnect (op 7), as Discord does; they RESUME."""
        self.gateway.request_reconnect(shard=shard)

    # -- waiting ------------------------------------------------------------------------------

    async def wait_until(
        self,
        condition: Callable[[], T | None],
        *,
        timeout: float = DEFAULT_TIMEOUT,  # noqa: ASYNC109 - a test-facing bound, like pytest's
        what: str = "the condition",
    ) -> T:
        """Wait until ``condition()`` is truthy and return its value.

        The condition is checked again after every change the fake sees (requests, messages,
        interactions), and every few milliseconds for conditions on the bot's side. Raises
        :class:`TimeoutError` (listing the last requests) after ``timeout`` seconds, or
        :class:`ClientStopped` if the driven client dies meanwhile.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            changed = self.state.change_event()
            result = condition()
            if result:
                return result
            self._raise_if_client_stopped()
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(self._timeout_message(what, timeout))
            await self._wait_for_change(changed, min(remaining, RECHECK_INTERVAL))

    async def _wait_for_change(self, changed: asyncio.Event, seconds: float) -> None:
        waiter = asyncio.ensure_future(changed.wait())
        watched: set[asyncio.Future[Any]] = {waiter, *self._client_tasks}
        await asyncio.wait(watched, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()

    async def wait_for_response(
        self,
        interaction: FakeInteraction,
        *,
        timeout: float = DEFAULT_TIMEOUT,  # noqa: ASYNC109 - a test-facing bound
    ) -> FakeInteraction:
        """Wait until the user sees an answer to ``interaction``, and return it.

        That is an initial response with a message, an update or a modal; after a deferral, the
        edit of ``@original`` or the first followup. Read ``original``, ``followups``,
        ``messages``, ``modal`` on the returned record.
        """

        def answered() -> FakeInteraction | None:
            return interaction if interaction.answered else None

        what = f"an answer to interaction {interaction.command or interaction.custom_id!r}"
        return await self.wait_until(answered, timeout=timeout, what=what)

    async def wait_for_message(
        self,
        where: FakeChannel | Person,
        predicate: Callable[[FakeMessage], bool] | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,  # noqa: ASYNC109 - a test-facing bound
        by_bot: bool = True,
        after: FakeMessage | int | None = None,
        edited: bool = False,
    ) -> FakeMessage:
        """Wait for a public message in a channel (or a user's DM with the bot) and return it.

        The first message, oldest first, that satisfies ``predicate`` as it is now (edits count)
        wins. Only the bot's messages unless ``by_bot`` is false; only messages newer than
        ``after`` (a message or a :meth:`checkpoint`) if given, or with ``edited`` also older
        ones edited since.
        """
        after_id = after.id if isinstance(after, FakeMessage) else (after or 0)

        def found() -> FakeMessage | None:
            channel = self._channel_of(where)
            if channel is None:
                return None
            for message in self.state.channel_messages(channel):
                newest = max(message.id, message.revision) if edited else message.id
                if message.ephemeral or message.deleted or newest <= after_id:
                    continue
                if by_bot and message.author is not self.bot:
                    continue
                if predicate is None or predicate(message):
                    return message
            return None

        return await self.wait_until(found, timeout=timeout, what=f"a message in {where!r}")

    def checkpoint(self) -> int:
        """A marker for ``wait_for_message(after=...)``: only messages created later count."""
        return self.state.new_id()

    # -- reading ------------------------------------------------------------------------------

    def messages(
        self, channel: FakeChannel, *, include_ephemeral: bool = False
    ) -> list[FakeMessage]:
        """Live messages of ``channel``, oldest first, as they are now."""
        found = self.state.channel_messages(channel)
        return [m for m in found if include_ephemeral or not m.ephemeral]

    def dms(self, user: Person) -> list[FakeMessage]:
        """Messages of the DM between the bot and ``user`` (both ways), oldest first."""
        channel = self.state.dm_channels.get(self._user(user).id)
        return [] if channel is None else self.messages(channel)

    def visible_messages(self, user: Person, channel: FakeChannel) -> list[FakeMessage]:
        """What ``user`` sees in ``channel``: public messages and ephemeral ones meant for them."""
        person = self._user(user)
        if channel.is_private and person not in channel.recipients:
            return []
        return [
            message
            for message in self.state.channel_messages(channel)
            if not message.ephemeral
            or (message.interaction is not None and message.interaction.user is person)
        ]

    def ephemeral_messages(self, interaction: FakeInteraction) -> list[FakeMessage]:
        """The ephemeral answers to ``interaction``."""
        return interaction.ephemeral_messages

    @property
    def interactions(self) -> list[FakeInteraction]:
        """Every interaction sent, oldest first."""
        return list(self.state.interactions.values())

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every HTTP request received, oldest first."""
        return list(self.state.requests)

    @property
    def unexpected_requests(self) -> list[RecordedRequest]:
        """Requests to routes the fake does not know (answered 404/405)."""
        return [request for request in self.state.requests if not request.expected]

    def bot_calls(self) -> Counter[str]:
        """Requests made with the bot's token, by route, 429s included.

        Keys are method and route template: ``"POST /channels/{channel_id}/messages"``. The
        interaction routes carry the interaction's token, not the bot's: they are not counted.
        """
        return Counter(r.route_key for r in self.state.requests if r.bot_token)

    @property
    def rate_limit_hits(self) -> list[RateLimitHit]:
        """Every 429 the fake sent, oldest first."""
        return list(self.limiter.hits)

    def throttle_channel(self, channel: FakeChannel, seconds: float) -> None:
        """Answer the bot's rate-limited requests on ``channel`` with a shared 429 for a while.

        That is Discord's answer when a busy resource is limited for everyone
        (``X-RateLimit-Scope: shared``), whatever the bot's own buckets hold.
        """
        self.limiter.throttle(channel_resource(channel.id), seconds)

    def outage(self, requests: int, *, bot_token: bool = False) -> None:
        """Answer the next ``requests`` REST requests with 503 Service Unavailable, as Discord
        does while it is down; the gateway is not affected. With ``bot_token``, only requests
        made with the bot's token are answered so (an interaction's token still works)."""
        self.api.unavailable = requests
        self.api.unavailable_to_bot_token = bot_token

    def commands(self, guild: FakeGuild | None = None) -> list[dict[str, JSON]]:
        """The commands registered globally, or in ``guild``."""
        return self.state.commands.commands(None if guild is None else guild.id)

    # -- helpers ------------------------------------------------------------------------------

    @staticmethod
    def _user(person: Person) -> FakeUser:
        return person.user if isinstance(person, FakeMember) else person

    def _channel_of(self, where: FakeChannel | Person) -> FakeChannel | None:
        if isinstance(where, FakeChannel):
            return where
        return self.state.dm_channels.get(self._user(where).id)

    def _count_requests(self, method: str, path: str) -> int:
        return sum(1 for r in self.state.requests if r.method == method and r.path == path)

    def _check_can_act(self, user: FakeUser, channel: FakeChannel) -> int:
        """Refuse an action of ``user`` in a channel they cannot see; return their permissions."""
        if user.bot:
            raise InvalidInvocation(f"{user.name} is a bot; bots cannot use the Discord client")
        if channel.recipient is not None:
            if channel.recipient is not user:
                raise InvalidInvocation(f"{user.name} is not in that DM channel")
            return self.state.channel_permissions(channel, user.id)
        if channel.is_private:
            if user not in channel.recipients:
                raise InvalidInvocation(f"{user.name} is not in that private channel")
            return self.state.channel_permissions(channel, user.id)
        guild = self.state.server_of(channel)
        if guild is None or guild.member(user.id) is None:
            raise InvalidInvocation(f"{user.name} is not a member of the channel's guild")
        permissions = self.state.channel_permissions(channel, user.id)
        if not permissions & VIEW_CHANNEL:
            raise InvalidInvocation(f"{user.name} cannot see that channel")
        return permissions

    def _check_command_allowed(
        self, command: Mapping[str, JSON], user: FakeUser, channel: FakeChannel
    ) -> dict[str, str]:
        """Refuse a command the user's client would not offer there; return the installs that
        authorise it (``authorizing_integration_owners``)."""
        name = command["name"]
        context = interaction_context(channel)
        if context not in command_contexts(command):
            where = {GUILD: "in servers", BOT_DM: "in DMs"}.get(context, "in private channels")
            raise InvalidInvocation(f"/{name} is not available {where}")
        guild = self.state.guild_of(channel)
        owners = authorizing_owners(
            command,
            user=user,
            channel=channel,
            server=self.state.server_of(channel),
            app_in_server=guild is not None,
        )
        if not owners:
            how = "installed to their account" if user.installed_app else "installed here"
            raise InvalidInvocation(f"/{name} is not available: the application is not {how}")
        required = command.get("default_member_permissions")
        if required is None or guild is None or "0" not in owners:
            return owners
        allowed = guild.permissions(user.id)
        needed = int(required)
        if not allowed & ADMINISTRATOR and (needed == 0 or allowed & needed != needed):
            raise InvalidInvocation(f"{user.name} lacks the permissions /{name} requires")
        return owners

    def _resolve_option(
        self,
        user: FakeUser,
        channel: FakeChannel,
        resolved: dict[str, dict[str, JSON]],
        kind: int,
        value: object,
        option: Mapping[str, JSON],
    ) -> str:
        """Add a user/member, channel or role option value to ``resolved``; return its id."""
        name = option["name"]
        guild = self.state.server_of(channel)
        if kind in (USER, MENTIONABLE) and isinstance(value, FakeUser | FakeMember):
            person = self._user(value)
            resolved.setdefault("users", {})[str(person.id)] = person.payload()
            member = None if guild is None else guild.member(person.id)
            if member is not None and guild is not None:
                allowed = self.state.channel_permissions(channel, person.id)
                data = member.payload(with_user=False, permissions=allowed)
                resolved.setdefault("members", {})[str(person.id)] = data
            return str(person.id)
        if kind in (ROLE, MENTIONABLE) and isinstance(value, FakeRole):
            if guild is None or value.guild_id != guild.id:
                raise InvalidInvocation(f"option {name!r}: role {value.name} is not of this guild")
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            return str(value.id)
        if kind == CHANNEL and isinstance(value, FakeChannel):
            if guild is None or value.guild_id != guild.id:
                raise InvalidInvocation(f"option {name!r}: channel is not of this guild")
            types = option.get("channel_types")
            if types is not None and value.type not in types:
                raise InvalidInvocation(f"option {name!r} takes channels of types {types}")
            resolved.setdefault("channels", {})[str(value.id)] = {
                "id": str(value.id),
                "name": value.name,
                "type": value.type,
                "permissions": str(self.state.channel_permissions(value, user.id)),
                "parent_id": None if value.parent_id is None else str(value.parent_id),
                "position": value.position,
            }
            return str(value.id)
        raise InvalidInvocation(f"option {name!r} (type {kind}) cannot take {value!r}")

    def _component(self, user: FakeUser, message: FakeMessage, custom_id: str) -> dict[str, JSON]:
        self._check_can_act(user, message.channel)
        if message.deleted:
            raise InvalidInvocation("the message was deleted")
        if message.ephemeral:
            owner = None if message.interaction is None else message.interaction.user
            if owner is not user:
                raise InvalidInvocation(f"{user.name} cannot see that ephemeral message")
        component = message.component(custom_id)
        if component is None:
            raise InvalidInvocation(
                f"no component {custom_id!r}; the message has {message.custom_ids}"
            )
        if component.get("disabled"):
            raise InvalidInvocation(f"component {custom_id!r} is disabled")
        return component

    async def _component_interaction(
        self,
        user: FakeUser,
        message: FakeMessage,
        component: Mapping[str, JSON],
        data: dict[str, JSON],
    ) -> FakeInteraction:
        if "id" in component:
            data["id"] = component["id"]
        interaction = self.state.new_interaction(
            kind=MESSAGE_COMPONENT,
            user=user,
            channel=message.channel,
            data=data,
            message=message,
            context=interaction_context(message.channel),
            owners=self._component_owners(message),
        )
        await self._send_interaction(interaction)
        return interaction

    def _component_owners(self, message: FakeMessage) -> dict[str, str]:
        """A component's interaction is authorised by the installs that made its message (the
        member who clicks may not have the application at all)."""
        if message.interaction is not None:
            return dict(message.interaction.owners)
        channel = message.channel
        if channel.guild_id is None:
            return {"0": "0"}
        return {"0": str(channel.guild_id)}

    def _modal_opener(self, message: FakeMessage) -> FakeInteraction | None:
        for interaction in reversed(self.state.interactions.values()):
            if interaction.message is message and interaction.modal is not None:
                return interaction
        return None

    async def _send_interaction(self, interaction: FakeInteraction) -> None:
        interaction.ephemeral_only = answers_only_ephemeral(self.state, interaction)
        interaction.payload = interaction_create_payload(self.state, interaction)
        guild_id = None if interaction.guild is None else interaction.guild.id
        sent = self.gateway.dispatch("INTERACTION_CREATE", interaction.payload, guild_id=guild_id)
        if sent is None:
            raise RuntimeError("no client has identified on the gateway for that guild's shard")

        def record(future: asyncio.Future[float]) -> None:
            if not future.cancelled():
                interaction.sent_at = future.result()

        sent.add_done_callback(record)
        try:
            await asyncio.wait_for(asyncio.shield(sent), DEFAULT_TIMEOUT)
        except TimeoutError:
            raise TimeoutError(
                "INTERACTION_CREATE was not delivered: no gateway connection"
            ) from None
        interaction.sent_at = sent.result()
        self.state.notify()

    def _timeout_message(self, what: str, timeout: float) -> str:
        recent = "\n  ".join(str(request) for request in self.state.requests[-12:])
        unexpected = ", ".join(str(request) for request in self.unexpected_requests)
        message = f"timed out after {timeout} s waiting for {what}; last requests:\n  {recent}"
        return message + (f"\nunexpected requests: {unexpected}" if unexpected else "")
