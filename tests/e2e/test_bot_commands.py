"""Start-up and the shared commands: registration and sync, /rules, /settings, /games, /resign,
/stats after real matches, and ``python -m bot`` without a token."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from bot.chat.components import Verb
from bot.i18n import mentions

from .fake_discord import InvalidInvocation
from .fake_discord.gateway import PRIVILEGED_INTENTS
from .fake_discord.state import MANAGE_GUILD

if TYPE_CHECKING:
    from .bot_fixtures import Table
    from .fake_discord import FakeDiscord, FakeGuild, FakeMember

pytest_plugins = ("tests.e2e.bot_fixtures",)

ROOT = Path(__file__).resolve().parents[2]
CHALLENGE_OPTIONS = {
    "crown": ["opponent", "level", "hints"],
    "claim": ["opponent", "level", "size", "hidden"],
    "crystal": ["opponent", "level"],
    "flag": ["opponent", "level"],
    "safe": ["opponent", "level", "digits", "length", "max_guesses"],
}
SUBCOMMAND, INTEGER = 1, 4


def subcommands(command: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {o["name"]: o for o in command.get("options", []) if o["type"] == SUBCOMMAND}


async def test_commands_are_registered_with_descriptions_and_ranges(
    idle_table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with idle_table.running():
        session = idle_table.fake.gateway.session
        assert session is not None and not session.intents & PRIVILEGED_INTENTS
    registered = {c["name"]: c for c in idle_table.fake.commands()}
    assert set(registered) == {
        *CHALLENGE_OPTIONS,
        *("stats", "games", "resign", "rules", "settings", "tournament", "play"),
        *("history", "replay", "puzzle", "ranks"),
    }
    for game, options in CHALLENGE_OPTIONS.items():
        challenge = subcommands(registered[game])["challenge"]
        assert [o["name"] for o in challenge.get("options", [])] == options
        assert not challenge["options"][0].get("required")  # left out: an open challenge
    every_option = [
        option
        for command in registered.values()
        for level in [command, *subcommands(command).values()]
        for option in level.get("options", [])
        if option["type"] != SUBCOMMAND
    ]
    assert all(o["description"] and o["description"] != "…" for o in every_option)
    numbers = [o for o in every_option if o["type"] == INTEGER]
    assert all("choices" in o or ("min_value" in o and "max_value" in o) for o in numbers)
    attack = subcommands(registered["crown"])["attack"]["options"]
    assert [(o["min_value"], o["max_value"]) for o in attack] == [(1, 3), (1, 3)]
    assert int(registered["settings"]["default_member_permissions"]) == MANAGE_GUILD
    # Every game, /stats, /games, /resign, /history and /replay reach user installs and
    # private channels; what belongs to a server stays there.
    anywhere = ("crown", "claim", "crystal", "flag", "safe", "stats", "games", "resign")
    for name in (*anywhere, "history", "replay"):
        assert sorted(registered[name]["integration_types"]) == [0, 1], name
        assert sorted(registered[name]["contexts"]) == [0, 1, 2], name
    for name in ("settings", "tournament", "play", "ranks"):
        assert registered[name]["integration_types"] in (None, [0]), name
        assert registered[name]["contexts"] in (None, [0]), name
    invite = next(r.getMessage() for r in caplog.records if "Invite link" in r.getMessage())
    assert "scope=bot+applications.commands" in invite
    # View Channels, Send Messages, Send Messages in Threads, Embed Links, Attach Files (the
    # rating charts), Read Message History
    assert "permissions=309237763072" in invite
    assert "integration_type=0" in invite
    mine = next(r.getMessage() for r in caplog.records if "Add to my apps" in r.getMessage())
    assert mine.endswith(
        f"?client_id={idle_table.fake.application_id}"
        "&integration_type=1&scope=applications.commands"
    )


async def test_a_dev_guild_gets_the_commands_at_once_and_nothing_global(
    idle_table: Table, guild: FakeGuild
) -> None:
    idle_table.settings = idle_table.settings.model_copy(update={"dev_guild_id": guild.id})
    async with idle_table.running():
        pass
    assert not idle_table.fake.commands()
    assert {c["name"] for c in idle_table.fake.commands(guild)} >= {"crown", "settings"}


async def test_global_commands_are_synced_only_when_they_changed(idle_table: Table) -> None:
    global_path = f"/applications/{idle_table.fake.application_id}/commands"

    def global_syncs() -> int:
        return sum(
            1 for r in idle_table.fake.requests if r.method == "PUT" and r.path == global_path
        )

    async with idle_table.running():
        pass
    assert global_syncs() == 1
    async with idle_table.running():  # a restart with the same commands: no sync
        pass
    assert global_syncs() == 1
    assert {c["name"] for c in idle_table.fake.commands()} >= {"crown", "stats"}


async def test_commands_are_synced_with_their_names_in_each_language(idle_table: Table) -> None:
    """A member whose client is in German sees the commands' German names: Discord shows each
    member the localisations synced with the commands."""
    async with idle_table.running():
        registered = {c["name"]: c for c in idle_table.fake.commands()}
        # Texts name commands by Discord's mention, with the IDs Discord gave them.
        resign_id = registered["resign"]["id"]
        assert mentions.command("resign") == f"</resign:{resign_id}>"
        crown_id = registered["crown"]["id"]
        assert mentions.command("crown challenge") == f"</crown challenge:{crown_id}>"
    crown = registered["crown"]
    assert crown["name_localizations"]["de"] == "krone"
    assert crown["description_localizations"]["de"].startswith("Kronenraub:")
    challenge = subcommands(crown)["challenge"]
    assert challenge["name_localizations"]["de"] == "herausfordern"
    opponent = challenge["options"][0]
    assert opponent["name_localizations"]["de"] == "gegner"
    assert registered["resign"]["name_localizations"] == {
        "de": "aufgeben",
        "es-ES": "rendirse",
        "es-419": "rendirse",
        "fr": "abandonner",
        "pt-BR": "desistir",
    }
    stats_game = registered["stats"]["options"][0]
    choices = {c["value"]: c["name_localizations"]["de"] for c in stats_game["choices"]}
    assert choices["crown"] == "Kronenraub"
    assert "en-US" not in registered["resign"]["name_localizations"]


async def test_after_a_restart_without_a_sync_commands_are_still_mentioned(
    idle_table: Table,
) -> None:
    async with idle_table.running():
        first = mentions.command("resign")
    mentions.forget()
    async with idle_table.running():  # the commands did not change: read, not synced
        assert mentions.command("resign") == first
    assert first.startswith("</resign:")


async def test_rules_are_short_and_private(table: Table, alice: FakeMember) -> None:
    shown = await table.slash(alice, "rules", game="claim")
    (message,) = shown.messages
    assert message.ephemeral
    assert "first player always wins by taking the largest number" in message.content


async def test_settings_are_for_server_managers_and_apply_to_new_matches(
    table: Table, fake_discord: FakeDiscord, guild: FakeGuild, alice: FakeMember, bob: FakeMember
) -> None:
    role = fake_discord.add_role(guild, "mods", permissions=MANAGE_GUILD)
    mod = fake_discord.add_member(guild, fake_discord.add_user("mod"), roles=(role,))
    with pytest.raises(InvalidInvocation):
        await fake_discord.slash(bob, table.channel, "settings", turn="1h")

    shown = table.answer(await table.slash(mod, "settings"))
    assert "turn: 10 minutes" in shown and "hint: 2 minutes" in shown
    saved = table.answer(await table.slash(mod, "settings", turn="1h", challenge="2m"))
    assert "Settings saved." in saved
    assert "turn: 1 hour" in saved and "challenge: 2 minutes" in saved
    refused = table.answer(await table.slash(mod, "settings", hint="10s"))
    assert "hint timeout must be between 30 seconds and 1 day (got 10 seconds)" in refused
    refused = table.answer(await table.slash(mod, "settings", turn="soon"))
    assert "e.g. 90s, 10m, 2h or 1d" in refused

    mark = table.checkpoint()
    await table.slash(alice, "crystal challenge", opponent=bob)
    challenge = await table.posted("challenges you", after=mark)
    assert "expires in 2 minutes" in challenge.content


async def test_web_pages_are_turned_on_with_a_secret_link_and_off_again(
    table: Table, fake_discord: FakeDiscord, guild: FakeGuild, bob: FakeMember
) -> None:
    role = fake_discord.add_role(guild, "mods", permissions=MANAGE_GUILD)
    mod = fake_discord.add_member(guild, fake_discord.add_user("mod"), roles=(role,))
    with pytest.raises(InvalidInvocation):
        await fake_discord.slash(bob, table.channel, "settings", web="on")

    first = table.answer(await table.slash(mod, "settings", web="on"))
    links = re.findall(r"<(http://127\.0\.0\.1:8080/s/([A-Za-z0-9_-]{32})/)>", first)
    assert len(links) == 1 and "web pages are on" in first
    again = table.answer(await table.slash(mod, "settings", web="on"))
    assert links[0][0] not in again, "on again makes a new link"
    assert "their link no longer works" in table.answer(
        await table.slash(mod, "settings", web="off")
    )
    assert "already off" in table.answer(await table.slash(mod, "settings", web="off"))


async def test_games_lists_unfinished_matches_and_resign_ends_them(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    mark = table.checkpoint()
    await table.slash(alice, "crystal challenge", opponent=bob)
    crystal = await table.posted("challenges you to Crystal Capture", after=mark)
    await table.slash(alice, "flag challenge", opponent=bob)
    flag = await table.posted("challenges you to Flag Chase", after=mark)

    listed = table.answer(await table.slash(alice, "games"))
    assert "Crystal Capture #1" in listed and "Flag Chase #2" in listed
    assert f"/{table.channel.id}/{crystal.id}" in listed
    assert "challenge open" in listed

    told = table.answer(await table.slash(alice, "resign"))
    assert "2 unfinished matches in this channel" in told
    await table.slash(alice, "resign", game="crystal")
    await table.fake.wait_until(lambda: "called the match off" in crystal.content, what="abort")
    assert not crystal.custom_ids and table.board_of(1) is crystal

    await table.click(bob, flag, Verb.ACCEPT)
    board = await table.posted("Coin toss", after=mark)
    assert board is flag
    mark = table.checkpoint()
    resigned = await table.slash(alice, "resign")
    assert all(m.ephemeral for m in resigned.messages)
    end = await table.posted("resigned", after=mark)
    assert end is flag and end.content == ""
    assert f"<@{bob.id}> wins: <@{alice.id}> resigned." in end.text
    assert "no unfinished matches" in table.answer(await table.slash(bob, "games"))


async def play_crystal(table: Table, first: FakeMember, second: FakeMember) -> None:
    """``first`` takes 9, ``second`` 1, ``first`` 6: exactly 15, a win for ``first``."""
    board = table.board()
    for who, crystal in ((first, 9), (second, 1), (first, 6)):
        mark = table.checkpoint()
        await table.click(who, board, Verb.PLAY, str(crystal))
        assert await table.posted(f"captures crystal {crystal}:", after=mark) is board
    assert [p.verb for p in table.presses(board)] == [Verb.REMATCH, Verb.REVIEW]


async def test_stats_after_a_match_and_its_rematch(
    table: Table, alice: FakeMember, bob: FakeMember
) -> None:
    mark = table.checkpoint()
    await table.slash(alice, "crystal challenge", opponent=bob)
    await table.click(bob, await table.posted("challenges you", after=mark), Verb.ACCEPT)
    await table.posted("Coin toss", after=mark)
    await play_crystal(table, alice, bob)

    # Bob asks for a rematch from the final board; as the challenger he now moves first. The
    # rematch is a new match with a challenge of its own; the first match's board stays.
    first = table.board_of(1)
    mark = table.checkpoint()
    await table.click(bob, first, Verb.REMATCH)
    rematch = await table.posted("challenges you", after=mark)
    assert rematch.id != first.id and table.board_of(2) is rematch
    assert rematch.content.startswith(f"<@{alice.id}>, <@{bob.id}> challenges you")
    await table.click(alice, rematch, Verb.ACCEPT)
    assert await table.posted("Coin toss", after=mark) is rematch
    await play_crystal(table, bob, alice)
    assert table.board_of(1) is first and "wins with exactly 15 points" in first.text

    board = table.answer(await table.slash(alice, "stats"))
    crystal = board.split("Crystal Capture", 1)[1].split("\n\n", 1)[0]
    assert f"<@{alice.id}>" in crystal and f"<@{bob.id}>" in crystal
    assert "Nobody is ranked yet." in crystal  # two games each: both still provisional
    assert re.search(r"Provisional: <@\d+> 1\d{3}\?, <@\d+> 1\d{3}\?", crystal)
    assert "No finished matches yet." in board  # the other games

    record = table.answer(await table.slash(bob, "stats", user=alice))
    assert "1 W · 1 L · 0 D" in record
    assert re.search(r"Rating 1\d{3}\?", record)  # provisional after two games
    assert "streak 1 L" in record
    assert len(re.findall(r"Crystal Capture vs <@\d+>: (?:win|loss)", record)) == 2


def test_without_a_token_the_bot_explains_how_to_get_one(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DISCORD_")}
    env["PYTHONPATH"] = str(ROOT)
    result = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    said = " ".join(result.stderr.split())
    for needed in (
        "Developer Portal",
        "New Application",
        "Bot",
        "applications.commands",
        "privileged",
        "DISCORD_TOKEN",
        ".env",
    ):
        assert needed in said
