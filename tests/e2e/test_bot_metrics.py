"""The host's metrics and health check on ``python -m bot``, as a host runs and scrapes it.

With ``METRICS_PORT`` set the bot serves Prometheus's text on ``/metrics`` and a health check on
``/healthz``; unset, it opens no port at all.
"""

from __future__ import annotations

import asyncio
import signal
import socket
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp
import psutil
import pytest
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr
from sqlalchemy import event

from bot.chat.components import Press, Verb
from bot.gauges import READ_KEPT
from bot.settings import Settings
from db.models import PUBLIC_POOL
from tests.e2e.test_board_games import fill_in
from tests.e2e.test_bot_games import play_crystal, start
from tests.e2e.test_bot_seasons import manager
from tests.puzzle_values import crown_puzzle, crystal_puzzle

from .bot_process import READY, BotProcess, bot_process
from .fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeMember, FakeMessage
from .fake_discord.permissions import SEND_MESSAGES
from .fake_discord.state import MANAGE_GUILD

if TYPE_CHECKING:
    from .bot_fixtures import Table

pytest_plugins = ("tests.e2e.bot_fixtures",)

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port: int = unused.getsockname()[1]
    return port


def button(message: FakeMessage, verb: str) -> str:
    return next(c for c in message.custom_ids if (p := Press.parse(c)) and p.verb == verb)


async def scrape(port: int) -> Samples:
    """Every sample ``/metrics`` serves, by name and labels."""
    url = f"http://127.0.0.1:{port}/metrics"
    async with aiohttp.ClientSession() as session, session.get(url) as answer:
        assert answer.status == 200
        assert answer.headers["Content-Type"].startswith("text/plain")
        text = await answer.text()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


async def health(port: int) -> tuple[int, dict[str, str]]:
    url = f"http://127.0.0.1:{port}/healthz"
    async with aiohttp.ClientSession() as session, session.get(url) as answer:
        return answer.status, await answer.json()


async def health_becomes(port: int, status: int, check: Callable[[dict[str, str]], bool]) -> None:
    """Poll ``/healthz`` (its answers are kept a second) until it answers ``status`` and
    ``check`` holds for its body."""
    for _ in range(100):
        got, body = await health(port)
        if got == status and check(body):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"/healthz still answers {got} {body}")


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def counted(samples: Samples, *kinds: str) -> dict[tuple[str, str], float]:
    """The requests of ``kinds`` counted, by kind and outcome (those never counted left out)."""
    every = {
        (kind, outcome): value(samples, "parlor_interactions_total", kind=kind, outcome=outcome)
        for kind in kinds
        for outcome in ("ok", "refused", "failed")
    }
    return {key: n for key, n in every.items() if n}


async def start_and_move(
    fake: FakeDiscord, channel: FakeChannel, alice: FakeMember, bob: FakeMember
) -> None:
    """Alice challenges Bob to Crystal Capture, Bob accepts, the player not to move presses a
    crystal (refused), then the one to move takes it."""
    challenged = await fake.slash(alice, channel, "crystal challenge", opponent=bob)
    await fake.wait_for_response(challenged)
    challenge = await fake.wait_for_message(channel, lambda m: "challenges you" in m.text)
    mark = fake.checkpoint()
    await fake.click(bob, challenge, button(challenge, Verb.ACCEPT))
    board = await fake.wait_for_message(
        channel, lambda m: "your move." in m.text, after=mark, edited=True
    )
    mover, waiting = (alice, bob) if f"<@{alice.id}>, your move." in board.text else (bob, alice)
    crystal = button(board, Verb.PLAY)
    refused = await fake.wait_for_response(await fake.click(waiting, board, crystal))
    assert "It is not your turn" in refused.messages[0].content
    mark = fake.checkpoint()
    await fake.click(mover, board, crystal)
    await fake.wait_for_message(
        channel, lambda m: "captures crystal" in m.text, after=mark, edited=True
    )


async def test_a_move_is_counted_and_health_follows_the_gateway_and_the_database(
    fake_discord: FakeDiscord,
    channel: FakeChannel,
    alice: FakeMember,
    bob: FakeMember,
    tmp_path: Path,
) -> None:
    fake, port = fake_discord, free_port()
    async with bot_process(tmp_path, fake, METRICS_PORT=str(port)) as bot:
        await bot.wait_for_line(READY)
        await health_becomes(port, 200, lambda body: True)
        assert await health(port) == (
            200,
            {"status": "ok", "gateway": "connected", "database": "ok"},
        )

        await start_and_move(fake, channel, alice, bob)
        samples = await scrape(port)
        interactions = "parlor_interactions_total"
        assert value(samples, interactions, kind="/crystal challenge", outcome="ok") == 1
        assert value(samples, interactions, kind="button:accept", outcome="ok") == 1
        assert value(samples, interactions, kind="button:play", outcome="refused") == 1
        assert value(samples, interactions, kind="button:play", outcome="ok") == 1
        assert value(samples, "parlor_interaction_seconds_count", kind="button:play") == 2
        commits = value(
            samples, "parlor_db_transaction_seconds_count", kind="core", outcome="commit"
        )
        assert commits >= 3  # the challenge, the accept, the move
        assert value(samples, "parlor_db_transaction_seconds_sum", kind="core", outcome="commit")
        assert value(samples, "parlor_matches_in_play", status="active") == 1
        assert value(samples, "parlor_matches_in_play", status="challenged") == 0
        assert ("parlor_outbox_entries", frozenset()) in samples
        assert value(samples, "parlor_held_channels") == 0
        assert value(samples, "parlor_shard_connected", shard="0") == 1
        assert value(samples, "parlor_shard_heartbeat_age_seconds", shard="0") >= 0
        assert value(samples, "parlor_shard_latency_seconds", shard="0") < float("inf")

        await database_held_then_shut_down(bot, fake, channel, alice, port, tmp_path)


async def database_held_then_shut_down(
    bot: BotProcess,
    fake: FakeDiscord,
    channel: FakeChannel,
    alice: FakeMember,
    port: int,
    tmp_path: Path,
) -> None:
    """Another program holds the database while a request waits on it: the health check says
    the database does not answer; once shut-down begins, that the gateway is gone too."""
    database = sqlite3.connect(tmp_path / "parlor.db", isolation_level=None)
    try:
        database.execute("BEGIN IMMEDIATE")
        waiting = await fake.slash(alice, channel, "crystal challenge", opponent=fake.bot)
        await fake.wait_until(lambda: waiting.acknowledged, what="the challenge to be deferred")
        await health_becomes(port, 503, lambda body: body["database"] == "timeout")
        assert (await health(port))[1]["status"] == "unavailable"
        bot.send_signal(signal.SIGTERM)
        await bot.wait_for_line("Stopping")
        await health_becomes(port, 503, lambda body: body["gateway"] == "disconnected")
    finally:
        database.rollback()
        database.close()
    assert await bot.wait() == 0
    assert "Traceback" not in bot.output


async def test_metrics_are_off_unless_a_port_is_set(
    fake_discord: FakeDiscord, channel: FakeChannel, alice: FakeMember, tmp_path: Path
) -> None:
    async with bot_process(tmp_path, fake_discord) as bot:
        await bot.wait_for_line(READY)
        await fake_discord.wait_for_response(
            await fake_discord.slash(alice, channel, "rules", game="crown")
        )
        connections = psutil.Process(bot.process.pid).net_connections(kind="inet")
        assert not [c for c in connections if c.status == psutil.CONN_LISTEN]
        bot.send_signal(signal.SIGTERM)
        assert await bot.wait() == 0
    assert "Metrics on" not in bot.output


# ---------------------------------------------------------------------- in process


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """The table's settings with metrics on a free port."""
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        discord_token=SecretStr("unused: the fake Discord has its own"),
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'parlor.db'}",
        sweep_interval=0.1,
        metrics_port=free_port(),
    )


async def test_refused_requests_to_discord_are_counted_by_status(
    table: Table, alice: FakeMember, carol: FakeMember
) -> None:
    mark = table.checkpoint()
    await table.slash(alice, "crown challenge", opponent=carol)
    challenge = await table.posted("challenges you", after=mark)
    await table.click(carol, challenge, Verb.ACCEPT)
    await table.posted("could not send you a DM", after=mark)  # Discord said 403 to the DM
    port = table.settings.metrics_port
    assert port is not None
    samples = await scrape(port)
    assert value(samples, "parlor_discord_client_errors_total", status="403") >= 1
    assert value(samples, "parlor_discord_invalid_requests_window") >= 1
    assert value(samples, "parlor_matches_in_play", status="setup") == 1


async def test_commands_outside_matches_are_counted_once(table: Table, alice: FakeMember) -> None:
    await table.slash(alice, "rules", game="crown")
    await table.slash(alice, "stats")
    port = table.settings.metrics_port
    assert port is not None
    samples = await scrape(port)
    assert value(samples, "parlor_interactions_total", kind="/rules", outcome="ok") == 1
    assert value(samples, "parlor_interactions_total", kind="/stats", outcome="ok") == 1
    assert value(samples, "parlor_interaction_seconds_count", kind="/rules") == 1


async def test_scrapes_however_many_read_the_database_once_in_a_while(table: Table) -> None:
    assert table.app is not None and table.settings.metrics_port is not None
    statements: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        statements.append(statement)

    engine = table.app.engine.sync_engine
    event.listen(engine, "before_cursor_execute", seen)
    began = time.monotonic()
    try:
        for _ in range(20):
            samples = await scrape(table.settings.metrics_port)
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    took = time.monotonic() - began
    assert ("parlor_outbox_entries", frozenset()) in samples
    reads = [s for s in statements if "min(outbox.due_at)" in s]
    assert 1 <= len(reads) <= 1 + took // READ_KEPT


async def test_the_queue_sign_ups_and_the_after_game_pages_are_counted(
    table: Table, guild: FakeGuild, alice: FakeMember, bob: FakeMember, carol: FakeMember
) -> None:
    port = table.settings.metrics_port
    assert port is not None
    fake = table.fake
    # A finished match's Review, pressed by someone who did not play it.
    await start(table, alice, bob, "crystal challenge")
    await play_crystal(table, alice, bob)
    reviewed = await table.click(carol, table.board(), Verb.REVIEW)
    await fake.wait_for_response(reviewed)
    assert "Review · Crystal Capture" in table.answer(reviewed)

    # The queue's Leave, pressed twice (the second is refused: she is not waiting), then Join.
    await table.slash(alice, "play", game="crystal")
    queue = await table.posted("Crystal Capture queue", after=0)
    for who, verb, said in (
        (alice, "leave", "You left the queue."),
        (alice, "leave", "You are not waiting in this queue."),
        (bob, "join", "You are waiting for Crystal Capture"),
    ):
        custom_id = next(c for c in queue.custom_ids if c.endswith(f"{verb}:crystal"))
        pressed = await fake.wait_for_response(await fake.click(who, queue, custom_id))
        assert said in table.answer(pressed)

    # A tournament's sign-up: Join, Leave, and a Leave refused (she is not entered).
    role = fake.add_role(guild, "mods", permissions=MANAGE_GUILD)
    organizer = fake.add_member(guild, fake.add_user("organizer"), roles=(role,))
    (signup,) = (
        await table.slash(organizer, "tournament create", game="crystal", format="swiss")
    ).messages
    for who, verb in ((alice, "join"), (alice, "leave"), (alice, "leave")):
        custom_id = next(c for c in signup.custom_ids if c.endswith(f":{verb}"))
        await fake.wait_for_response(await fake.click(who, signup, custom_id))
    assert "Entrants (0)" in signup.text

    samples = await scrape(port)
    counted = {
        (kind, outcome): value(samples, "parlor_interactions_total", kind=kind, outcome=outcome)
        for kind in (
            "button:review",
            "button:queue_join",
            "button:queue_leave",
            "button:signup_join",
            "button:signup_leave",
        )
        for outcome in ("ok", "refused", "failed")
    }
    assert {key: n for key, n in counted.items() if n} == {
        ("button:review", "ok"): 1,
        ("button:queue_leave", "ok"): 1,
        ("button:queue_leave", "refused"): 1,
        ("button:queue_join", "ok"): 1,
        ("button:signup_join", "ok"): 1,
        ("button:signup_leave", "ok"): 1,
        ("button:signup_leave", "refused"): 1,
    }
    seconds = "parlor_interaction_seconds_count"
    assert value(samples, seconds, kind="button:queue_leave") == 2
    assert value(samples, seconds, kind="button:review") == 1
    assert value(samples, "parlor_interactions_total", kind="button", outcome="ok") == 0


async def test_refusals_the_commands_answer_themselves_are_counted_as_refused(
    table: Table, guild: FakeGuild, alice: FakeMember, bob: FakeMember
) -> None:
    """Each command answers privately what is wrong; each is counted ``refused``, and the
    commands answered in full ``ok``."""
    port = table.settings.metrics_port
    assert port is not None
    fake = table.fake
    mod = manager(fake, guild)

    async def refused(who: FakeMember, command: str, said: str, **options: object) -> None:
        answered = await table.slash(who, command, **options)
        assert said in table.answer(answered), command
        assert all(m.ephemeral for m in answered.messages), command

    # The bot may not post here: the queue and a challenge say so.
    fake.set_overwrite(table.channel, fake.bot, deny=SEND_MESSAGES)
    await fake.wait_until(
        lambda: not fake.permissions(fake.bot, table.channel) & SEND_MESSAGES, what="the overwrite"
    )
    await refused(alice, "play", "I cannot run a match in this channel", game="crystal")
    await refused(alice, "crystal challenge", "I cannot run a match", opponent=bob)
    fake.clear_overwrite(table.channel, fake.bot)
    await fake.wait_until(
        lambda: fake.permissions(fake.bot, table.channel) & SEND_MESSAGES, what="the overwrite"
    )

    await refused(alice, "replay", "There is no finished match #999", match=999)
    await refused(alice, "tournament standings", "There is no tournament #7.", tournament=7)
    await table.slash(mod, "tournament create", game="crystal", format="swiss")
    await refused(alice, "tournament cancel", "or an organizer can cancel it")
    await refused(alice, "stats", "is not a season", season="soon")
    await refused(mod, "settings", "The queue's wait is at most 10 minutes.", queue_wait="11m")
    await refused(mod, "ranks clear", "Name one rank role to clear")
    await refused(alice, "claim pick", "Give either `number`")
    await table.slash(alice, "history")

    samples = await scrape(port)
    assert counted(
        samples,
        "/play",
        "/crystal challenge",
        "/replay",
        "/history",
        "/tournament standings",
        "/tournament create",
        "/tournament cancel",
        "/stats",
        "/settings",
        "/ranks clear",
        "/claim pick",
    ) == {
        ("/play", "refused"): 1,
        ("/crystal challenge", "refused"): 1,
        ("/replay", "refused"): 1,
        ("/history", "ok"): 1,
        ("/tournament standings", "refused"): 1,
        ("/tournament create", "ok"): 1,
        ("/tournament cancel", "refused"): 1,
        ("/stats", "refused"): 1,
        ("/settings", "refused"): 1,
        ("/ranks clear", "refused"): 1,
        ("/claim pick", "refused"): 1,
    }
    assert value(samples, "parlor_interaction_seconds_count", kind="/replay") == 1


async def test_safe_crackers_forms_are_counted_by_the_button_that_opens_them(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    """The code form a DM's button opens and the guess form on the board count as presses of
    their buttons; a guess form asked for out of turn is a refusal."""
    port = table.settings.metrics_port
    assert port is not None
    mark = table.checkpoint()
    await start(table, alice, bob, "safe challenge")
    bob_prompt = await table.posted("Choose your secret", after=mark, where=bob)
    await table.dm(alice, "213")
    opened = await table.click(bob, bob_prompt, Verb.CODE)
    await table.fake.wait_for_response(opened)
    await fill_in(table, bob, opened, "312")
    board = await table.posted("Both codes are set", after=mark)
    mover, waiting = (alice, bob) if f"<@{alice.id}>, your move." in board.text else (bob, alice)
    refusal = await table.refused(waiting, board, Verb.GUESS)
    assert "That form is not for you right now" in refusal
    guessing = await table.click(mover, board, Verb.GUESS)
    await table.fake.wait_for_response(guessing)
    assert guessing.modal is not None

    samples = await scrape(port)
    assert counted(samples, "button:code", "button:guess") == {
        ("button:code", "ok"): 1,
        ("button:guess", "ok"): 1,
        ("button:guess", "refused"): 1,
    }
    assert value(samples, "parlor_interaction_seconds_count", kind="button:guess") == 2


async def test_the_puzzles_command_and_buttons_are_counted(
    table: Table, guild: FakeGuild, alice: FakeMember
) -> None:
    """``/puzzle``, a choice, Next puzzle and the daily post's Solve, each counted by what it
    does; none left is a refusal."""
    port = table.settings.metrics_port
    assert port is not None and table.app is not None
    fake = table.fake
    await table.app.puzzles.store(guild.id, None, [crystal_puzzle(1)])
    await table.app.puzzles.store(PUBLIC_POOL, None, [crown_puzzle()])

    async def press(message: FakeMessage, label: str) -> str:
        (custom_id,) = [str(b["custom_id"]) for b in message.buttons if b.get("label") == label]
        return table.answer(
            await fake.wait_for_response(await fake.click(alice, message, custom_id))
        )

    [shown] = (await table.slash(alice, "puzzle")).messages
    await press(shown, "take 1")
    assert "✅ Right" in shown.text
    await press(shown, "Next puzzle")
    assert "Puzzle · Capture the Crown" in shown.text
    await press(shown, "take 2 2")
    assert "❌ Not take 2 2" in shown.text
    assert "No puzzle is left for you here" in await press(shown, "Next puzzle")
    left = await table.slash(alice, "puzzle")
    assert "No puzzle is left for you here" in table.answer(left)

    mod = manager(fake, guild)
    mark = table.checkpoint()
    await table.slash(mod, "settings", puzzle_channel=table.channel)
    post = await table.posted("Daily puzzle ·", after=mark)
    assert "Your move: which one wins?" in await press(post, "Solve")

    samples = await scrape(port)
    assert counted(
        samples,
        "/puzzle",
        "button:puzzle_choice",
        "button:puzzle_next",
        "button:puzzle_solve",
    ) == {
        ("/puzzle", "ok"): 1,
        ("/puzzle", "refused"): 1,
        ("button:puzzle_choice", "ok"): 2,
        ("button:puzzle_next", "ok"): 1,
        ("button:puzzle_next", "refused"): 1,
        ("button:puzzle_solve", "ok"): 1,
    }
    assert value(samples, "parlor_interaction_seconds_count", kind="button:puzzle_next") == 2
    assert value(samples, "parlor_interactions_total", kind="button", outcome="ok") == 0
