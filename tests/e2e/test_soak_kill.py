"""A kill -9 soak: ten matches at once while the bot process is killed at random moments.

Twenty members play five Capture the Crown and five Crystal Capture matches, each in a channel
of its own, against ``python -m bot`` on one SQLite file. Challenges and accepts come first, with
the bot left alone. Then the Crown players type their Crowns by DM, and everyone plays: attacks
and crystals by slash command, Crown hints typed by DM. Meanwhile the process is killed with
SIGKILL six times and started again on the same database. The kill moments are drawn from a fixed
seed: right after a drawn Crown is typed; after drawn numbers of public moves, either at once
(mostly between the move's commit and its answer, so that the member sees no answer) or at the
bot's next request (in the middle of a delivery); and at the bot's answer to drawn match-ending
moves, so that the board showing the end is left to the outbox. Members behave as people do:
one whose command or DM got no answer sends it again once the bot is back.

The driver reads the database to know whose turn it is and what is legal (``soak.Ledger``, the
test's harness); the assertions are about what members saw, against what the matches logged:

- every move a member saw accepted is in its match's log exactly once, and the log holds nothing
  the member did not send;
- every match finished, and its board shows the result once the outbox has redelivered what the
  kills interrupted; nothing was posted twice (one board per channel, no DM twice);
- ``/stats`` shows every player's wins, losses and draws as the matches ended;
- no version of any public message of a Crown match shows a Crown's cell (or 👑) before the board
  that ends the match.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import games
from bot.chat.boards.emoji import EMOJI
from bot.chat.components import Press, Verb
from games.base import Ask
from games.board import Mark
from games.crown import consistent_cells
from games.grid import Cell, cell_text

from .fake_discord import (
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    RecordedRequest,
)
from .soak import Host, Ledger, Logged, Reads, Seen

SEED = 20260101
"""Seeds everything the soak draws: Crowns, moves, hints, pauses and the kill moments."""
PAIRS = ("crown",) * 5 + ("crystal",) * 5
"""The game of each match; each is played by two members of its own, in a channel of its own."""
FEWEST_MOVES = {"crown": 1, "crystal": 3}
"""The fewest public moves a match can end with: a hit; crystals 9, any, 6."""
KILLS_BY_MOVES = 3
KILLS_BY_ENDINGS = 2
DAY = 24 * 60 * 60
SETTINGS = {
    # A sweep every second: the outbox redelivers within a second of its 15 s grace.
    "SWEEP_INTERVAL": "1",
    # Nothing times out during the soak: every result comes from play.
    "CHALLENGE_TIMEOUT": str(DAY),
    "SETUP_TIMEOUT": str(DAY),
    "TURN_TIMEOUT": str(7 * DAY),
    "HINT_TIMEOUT": str(DAY),
}
TYPING = (0.0, 3.0)
"""Seconds after the accepts at which each Crown player starts typing their Crown (drawn)."""
THINK = (0.2, 0.8)
"""Seconds a member pauses after each move (drawn)."""
POLL = 0.15
"""Seconds between the driver's looks at the database while a member waits for their turn."""
ANSWER_WAIT = 15.0
"""Seconds a member waits for an answer from a bot that is still running."""
ATTEMPTS = 8
"""Times a member sends the same move before the test gives up on it."""
DOWN = (0.0, 1.0)
"""Seconds the bot stays down once killed (drawn), before it is started again."""
FOUND_IN = 1.0
"""Seconds the killer waits for the bot's next request before it kills all the same."""
SOAK_LIMIT = 110.0
"""Seconds the challenges and the play may take before the test fails instead of hanging."""
OUTBOX_WAIT = 30.0
"""Seconds after the last recovery for every board to show its result (the outbox's grace is
15 s, and the sweep runs every second)."""

Move = tuple[str, str, int]
"""A move as its match logs it: what was asked (``secret``, ``hint``, ``action``), the action's
text (``2 3``, ``row``, ``7``) and how many public moves the match had before it (which tells two
hints apart)."""


@dataclass(frozen=True)
class Moment:
    """When the killer strikes: once the matches have logged ``count`` actions answering
    ``ask`` (``at_once``, or at the bot's next request), or at the bot's answer to the
    ``ending``-th match-ending move sent."""

    ask: Ask = Ask.ACTION
    count: int = 0
    at_once: bool = False
    """Between an action's commit and its answer, mostly: the member sees no answer."""
    ending: int = 0


@dataclass(frozen=True)
class Kill:
    """A kill as it happened."""

    moment: Moment
    during: str
    """The request the bot had just made, or ``no request``."""
    actions: int
    """Actions the matches had logged."""
    unfinished: int
    """Matches unfinished at the kill."""


@dataclass
class Player:
    """A member in a match, and what they sent and saw."""

    member: FakeMember
    channel: FakeChannel
    game: str
    rng: random.Random
    crown: Cell | None = None
    """The cell they hide their Crown on (Capture the Crown)."""
    think: tuple[float, float] = THINK
    """Seconds they pause after each move (drawn)."""
    match_id: int = 0
    seat: int = 0
    tried: list[Move] = field(default_factory=list)
    """Every move they set out to make, once each however often they sent it."""
    accepted: list[Move] = field(default_factory=list)
    """The moves whose answer said they were played."""
    refused: list[tuple[Move, str]] = field(default_factory=list)
    unanswered: int = 0
    """Commands and DMs that got no answer: the bot was killed, or down."""
    silences: list[str] = field(default_factory=list)
    """Commands and DMs a running bot left unanswered for ``ANSWER_WAIT``."""

    @property
    def mention(self) -> str:
        return f"<@{self.member.id}>"


class Soak:
    """Members acting through the fake Discord on a bot that ``killer`` kills again and again."""

    def __init__(
        self,
        fake: FakeDiscord,
        host: Host,
        ledger: Reads,
        rng: random.Random,
    ) -> None:
        self.fake = fake
        self.host = host
        self.ledger = ledger
        self.rng = rng
        self.kills: list[Kill] = []
        self.endings: list[FakeInteraction] = []
        """The commands that reached the bot with a move that ends its match, in order (the
        first of each member: a member plays one match)."""

    # ------------------------------------------------------------------ sending a move

    def host_for(self, player: Player, ask: str) -> Host:
        """The bot process that answers ``player``'s moves answering ``ask``."""
        return self.host

    async def attempt(self, player: Player, move: Move, *, ending: bool = False) -> None:
        """Send ``move`` until some answer comes, as a member does when the bot seems gone;
        ``ending``: the move ends the match."""
        if move not in player.tried:
            player.tried.append(move)
        for _ in range(ATTEMPTS):
            await self.host_for(player, move[0]).up.wait()
            answer = await self.send(player, move, ending=ending)
            if answer is None:
                player.unanswered += 1
            elif played(player, answer):
                player.accepted.append(move)
                return
            else:
                player.refused.append((move, answer))
                return
        raise AssertionError(f"{player.mention} got no answer to {move} {ATTEMPTS} times")

    async def send(self, player: Player, move: Move, *, ending: bool) -> str | None:
        """Send ``move`` once; the answer the member saw, or ``None`` when none came."""
        ask, text, _ = move
        if ask == Ask.ACTION:
            return await self.command(player, text, ending=ending)
        return await self.typed(player, ask, text)

    async def command(self, player: Player, text: str, *, ending: bool) -> str | None:
        """The move as a slash command in the match's channel; the answer's text. ``ending``:
        the move ends the match, and the killer may wait for its answer."""
        if player.game == "crown":
            row, col = map(int, text.split())
            name, options = "crown attack", {"row": row, "col": col}
        else:
            name, options = "crystal take", {"crystal": int(text)}
        host = self.host_for(player, Ask.ACTION.value)
        generation = host.generation
        try:
            interaction = await self.fake.slash(player.member, player.channel, name, **options)
        except TimeoutError:  # no gateway connection took it: the bot is down
            return None
        if ending and player.member.id not in {sent.user.id for sent in self.endings}:
            self.endings.append(interaction)
        if not await self.answered(lambda: interaction.answered, host, generation):
            player.silences.append(f"/{name} {options}")
            return None
        if not interaction.answered:
            return None
        return "\n".join(message.text for message in interaction.messages)

    async def typed(self, player: Player, ask: str, text: str) -> str | None:
        """The move typed in the member's DM with the bot; the bot's reply."""
        host = self.host_for(player, ask)
        generation = host.generation
        mark = self.fake.checkpoint()
        try:
            await self.fake.dm(player.member, text)
        except TimeoutError:
            return None

        def reply() -> FakeMessage | None:
            for message in self.fake.dms(player.member):
                if message.id > mark and message.author is self.fake.bot and not prompt(message):
                    return message
            return None

        if not await self.answered(lambda: reply() is not None, host, generation):
            player.silences.append(f"DM {text!r}")
            return None
        found = reply()
        return None if found is None else found.content

    async def answered(self, condition: Callable[[], bool], host: Host, generation: int) -> bool:
        """Wait until ``condition`` holds or the process spoken to (``host``'s ``generation``)
        is gone; ``False`` when a running bot let ``ANSWER_WAIT`` pass."""
        try:
            await self.fake.wait_until(
                lambda: condition() or host.generation != generation,
                timeout=ANSWER_WAIT,
                what="an answer",
            )
        except TimeoutError:
            return False
        return True

    # ------------------------------------------------------------------ playing

    async def play_all(self, players: list[Player]) -> None:
        """Crowns typed by DM first, then every move, each member at their own pace."""
        secret = frozenset({Ask.SECRET})
        await asyncio.gather(*(self.play(p, secret) for p in players if p.game == "crown"))
        moves = frozenset({Ask.ACTION, Ask.HINT})
        await asyncio.gather(*(self.play(p, moves) for p in players))

    async def play(self, player: Player, asks: frozenset[Ask]) -> None:
        """Act whenever the match asks the player for one of ``asks``; return once it is over
        (for ``SECRET``: once it asks the player for something else)."""
        secrets = asks == {Ask.SECRET}
        if secrets:
            await asyncio.sleep(player.rng.uniform(*TYPING))
        while True:
            seen = await self.ledger.match(player.match_id)
            asked = seen.asked(player.seat)
            if seen.over or (secrets and asked is not Ask.SECRET):
                return
            if asked not in asks:
                await asyncio.sleep(POLL)
                continue
            move = choose(player, seen, asked)
            await self.attempt(player, move, ending=ends(seen, player, move))
            await asyncio.sleep(player.rng.uniform(*player.think))

    async def killer(self, moments: list[Moment]) -> None:
        """Kill the bot at each moment and start it again after a drawn time down (on the
        SQLite ``Ledger``, whose thread waits to kill at a commit)."""
        ledger = self.ledger
        assert isinstance(ledger, Ledger)
        for moment in moments:
            if moment.ending:
                ending = await self.ending(moment.ending)
                during = await self.next_request(ending.token)
                await self.host.kill()
            elif moment.at_once:
                during = "a commit"
                await self.host.kill(partial(ledger.wait_logged, moment.ask, moment.count))
            else:
                await self.logged(moment.ask, moment.count)
                during = await self.next_request()
                await self.host.kill()
            actions, ended = await self.ledger.progress()
            self.kills.append(Kill(moment, during, actions, len(PAIRS) - ended))
            await asyncio.sleep(self.rng.uniform(*DOWN))
            await self.host.start()

    async def ending(self, number: int) -> FakeInteraction:
        """The ``number``-th command sent with a move that ends its match, once sent."""
        await self.fake.wait_until(
            lambda: len(self.endings) >= number, timeout=SOAK_LIMIT, what="a match-ending move"
        )
        return self.endings[number - 1]

    async def logged(self, ask: Ask, count: int) -> None:
        """Return once the matches have logged ``count`` actions answering ``ask``."""
        while True:
            if await self.ledger.logged(ask) >= count:
                return
            await asyncio.sleep(POLL / 10)

    async def next_request(self, about: str = "") -> str:
        """The next request the bot makes whose path holds ``about``, once it has made it (``no
        request`` if none comes within ``FOUND_IN``)."""
        mark = len(self.fake.requests)

        def found() -> RecordedRequest | None:
            return next((r for r in self.fake.requests[mark:] if about in r.path), None)

        try:
            return str(await self.fake.wait_until(found, timeout=FOUND_IN))
        except TimeoutError:
            return "no request"


def choose(player: Player, seen: Seen, asked: Ask) -> Move:
    """The player's move: their Crown, a hint, or a legal move.

    A Crown attack goes to a cell where the opponent's Crown may still be, never to the
    attacker's own Crown's cell unless it is the only one left (then it is a hit, which ends
    the match): so a Crown's cell shown in public before the end can only be a leak.
    """
    state = seen.state
    if seen.game == "crystal":
        crystal = player.rng.choice(games.get("crystal").legal_actions(state, player.seat))
        return (Ask.ACTION.value, str(crystal), len(state.captures))
    before = len(state.attacks[0]) + len(state.attacks[1])
    if asked is Ask.SECRET:
        assert player.crown is not None
        return (Ask.SECRET.value, f"{player.crown[0]} {player.crown[1]}", before)
    if asked is Ask.HINT:
        return (Ask.HINT.value, player.rng.choice(("row", "column")), before)
    legal = {action.cell for action in games.get("crown").legal_actions(state, player.seat)}
    cells = sorted(legal & consistent_cells(state.attacks[player.seat]))
    row, col = player.rng.choice([cell for cell in cells if cell != player.crown] or cells)
    return (Ask.ACTION.value, f"{row} {col}", before)


def ends(seen: Seen, player: Player, move: Move) -> bool:
    """Whether ``move`` ends the match (the harness plays it on a copy of the state)."""
    ask, text, _ = move
    if ask != Ask.ACTION:
        return False
    engine = games.get(seen.game)
    after, _ = engine.apply(seen.state, player.seat, engine.parse(seen.state, player.seat, text))
    return engine.outcome(after) is not None


def played(player: Player, answer: str) -> bool:
    """Whether an answer says the move was played: the command's "Played:" link, or the DM
    reply's private line or link."""
    match = player.match_id
    return (
        answer.startswith("Played: ")
        or answer.startswith(f"Match #{match}: Your Crown is at ")
        or answer.startswith(f"Played in match #{match}: ")
    )


def prompt(message: FakeMessage) -> bool:
    """Whether a DM from the bot asks for something, rather than answers."""
    return message.content.startswith("**")


def logged_moves(player: Player, log: list[Logged]) -> list[Move]:
    """The player's moves in their match's log, numbered as ``choose`` numbers them."""
    moves = []
    public = 0
    for entry in log:
        if entry.seat == player.seat:
            moves.append((entry.ask, entry.text, public))
        if entry.ask == Ask.ACTION:
            public += 1
    return moves


# ---------------------------------------------------------------------- reading messages


def custom_ids(components: Any) -> Iterator[str]:
    """Every custom_id in a message payload's components."""
    for component in components or []:
        if "custom_id" in component:
            yield str(component["custom_id"])
        yield from custom_ids(component.get("components"))


def ends_match(version: dict[str, Any]) -> bool:
    """Whether a version of a board shows a finished match: no content, a Rematch button."""
    presses = [Press.parse(custom_id) for custom_id in custom_ids(version.get("components"))]
    rematch = any(press is not None and press.verb == Verb.REMATCH for press in presses)
    return not version.get("content") and rematch


def versions(fake: FakeDiscord, channel: FakeChannel) -> Iterator[dict[str, Any]]:
    """Every version of every public message ever in ``channel``, deleted ones too."""
    for message in fake.state.messages.values():
        if message.channel is channel and not message.ephemeral:
            yield from message.history
            yield message.payload()


def board(fake: FakeDiscord, player: Player) -> FakeMessage | None:
    """The live board of the player's match, if it has one yet."""
    title = f"· match #{player.match_id}"
    found = [
        message
        for message in fake.messages(player.channel)
        if any(str(embed.get("title", "")).endswith(title) for embed in message.embeds)
    ]
    assert len(found) <= 1, f"match #{player.match_id} has {len(found)} boards"
    return found[0] if found else None


def record_line(message: FakeMessage, title: str) -> str:
    """The value of a ``/stats`` record's field for one game."""
    for embed in message.embeds:
        for embed_field in embed.get("fields") or []:
            if embed_field.get("name") == title:
                return str(embed_field.get("value"))
    return ""


# ---------------------------------------------------------------------- the soak


def seat_players(
    fake: FakeDiscord,
    guild: FakeGuild,
    rng: random.Random,
    played: tuple[str, ...] = PAIRS,
    prefix: str = "",
) -> list[tuple[Player, Player]]:
    """Two new members for each match of ``played``, in a channel of its own; Crown players
    get a Crown. ``prefix`` starts the members' names."""
    pairs = []
    for number, game in enumerate(played, 1):
        channel = fake.add_text_channel(guild, f"{game}-{number}")
        two = []
        for side in "ab":
            member = fake.add_member(guild, fake.add_user(f"{prefix}{game}{number}{side}"))
            player = Player(member, channel, game, random.Random(rng.random()))
            if game == "crown":
                player.crown = (rng.randint(1, 3), rng.randint(1, 3))
            two.append(player)
        pairs.append((two[0], two[1]))
    return pairs


def kill_moments(rng: random.Random) -> list[Moment]:
    """The first kill right after a drawn Crown is typed (of ten); then kills after drawn
    numbers of public moves, before the fewest the matches can end with, right after the move
    or at the bot's next request in turn; then kills at the answers to drawn match-ending moves
    (at most the eighth). So every kill meets at least one match in play."""
    fewest = sum(FEWEST_MOVES[game] for game in PAIRS)
    moves = sorted(rng.sample(range(1, fewest), KILLS_BY_MOVES))
    endings = sorted(rng.sample(range(1, len(PAIRS) - 1), KILLS_BY_ENDINGS))
    return [
        Moment(Ask.SECRET, rng.randint(1, 9), at_once=True),
        *(Moment(Ask.ACTION, n, at_once=not i % 2) for i, n in enumerate(moves)),
        *(Moment(ending=n) for n in endings),
    ]


async def challenge(fake: FakeDiscord, challenger: Player, opponent: Player) -> int:
    """The challenge by slash command, accepted with its button; the match's id."""
    asked = await fake.wait_for_response(
        await fake.slash(
            challenger.member,
            challenger.channel,
            f"{challenger.game} challenge",
            opponent=opponent.member,
        )
    )
    (message,) = asked.messages
    accept = next(
        custom_id
        for custom_id in message.custom_ids
        if (press := Press.parse(custom_id)) and press.verb == Verb.ACCEPT
    )
    await fake.wait_for_response(await fake.click(opponent.member, message, accept))
    parsed = Press.parse(accept)
    assert parsed is not None
    return parsed.match_id


async def challenge_all(
    fake: FakeDiscord, ledger: Reads, pairs: list[tuple[Player, Player]]
) -> None:
    """Every pair's challenge and accept at once; each player learns their match and seat."""
    ids = await asyncio.gather(*(challenge(fake, a, b) for a, b in pairs))
    for (a, b), match_id in zip(pairs, ids, strict=True):
        seen = await ledger.match(match_id)
        for player in (a, b):
            player.match_id = match_id
            player.seat = seen.seats.index(player.member.id)


async def boards_end(fake: FakeDiscord, players: list[Player]) -> None:
    """Wait until every player's board shows the end of their match."""

    def all_ended() -> bool:
        shown = [board(fake, player) for player in players]
        return all(b is not None and ends_match(b.payload()) for b in shown)

    await fake.wait_until(all_ended, timeout=OUTBOX_WAIT, what="every board to show its end")


async def stats(
    fake: FakeDiscord, asking: dict[int, tuple[Player, FakeChannel]]
) -> dict[int, FakeMessage]:
    """Each player's own ``/stats``, asked in the channel given, by member id."""
    records = {}
    for member_id, (player, lobby) in asking.items():
        shown = await fake.wait_for_response(
            await fake.slash(player.member, lobby, "stats", user=player.member)
        )
        records[member_id] = shown.messages[0]
    return records


async def test_matches_survive_kill_9_at_random_moments(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    rng = random.Random(SEED)
    guild = fake.add_guild("Soak")
    lobby = fake.add_text_channel(guild, "lobby")
    pairs = seat_players(fake, guild, rng)
    players = [player for pair in pairs for player in pair]
    moments = kill_moments(rng)

    host = Host(tmp_path, fake, SETTINGS)
    await host.start()
    ledger = Ledger(tmp_path / "parlor.db")
    soak = Soak(fake, host, ledger, rng)

    try:
        async with asyncio.timeout(SOAK_LIMIT):
            # Challenges and accepts, the bot left alone.
            await challenge_all(fake, ledger, pairs)
            # Crowns typed by DM, then play, while the bot is killed again and again.
            async with asyncio.TaskGroup() as group:
                group.create_task(soak.killer(moments))
                group.create_task(soak.play_all(players))
        final = {player.match_id: await ledger.match(player.match_id) for player in players}
        logs = {match_id: await ledger.played(match_id) for match_id in final}
        # What the kills interrupted is redelivered: every board comes to show its end.
        await boards_end(fake, players)
        records = await stats(fake, {player.member.id: (player, lobby) for player in players})
    finally:
        ledger.close()
        await host.close()

    # The kills met the matches in play.
    assert len(soak.kills) == len(moments), soak.kills
    assert all(kill.unfinished for kill in soak.kills), soak.kills
    # A running bot answered every command and DM.
    silences = {player.mention: player.silences for player in players if player.silences}
    assert not silences, f"unanswered by a running bot: {silences}\n{host.output()}"

    assert_played_as_seen(fake, pairs, final, logs, records)


def assert_played_as_seen(
    fake: FakeDiscord,
    pairs: list[tuple[Player, Player]],
    final: dict[int, Seen],
    logs: dict[int, list[Logged]],
    records: dict[int, FakeMessage],
) -> None:
    """What the members saw, against what their matches logged: every match finished in play;
    every move seen accepted is logged once, and nothing is logged that was not sent; every
    board shows its result, nothing was posted twice, ``/stats`` (``records``) agrees; no
    Crown's cell, and no 👑, in public before the board that ends its match."""
    players = [player for pair in pairs for player in pair]
    for player in players:
        seen = final[player.match_id]
        # Every match finished in play.
        assert seen.status == "finished", (player.match_id, seen.status)

        # Every move seen accepted is logged once; nothing is logged that was not sent.
        mine = logged_moves(player, logs[player.match_id])
        twice = [move for move, count in Counter(mine).items() if count > 1]
        assert not twice, f"{player.mention}: applied twice: {twice}"
        assert len({(ask, before) for ask, _, before in mine}) == len(mine), mine
        lost = [move for move in player.accepted if move not in mine]
        assert not lost, f"{player.mention}: accepted, not logged: {lost}; logged: {mine}"
        unsent = [move for move in mine if move not in player.tried]
        assert not unsent, f"{player.mention}: logged, never sent: {unsent}"

        # The board shows the result.
        shown_board = board(fake, player)
        assert shown_board is not None
        if seen.winner is None:
            assert "Draw" in shown_board.text, shown_board.text
        else:
            assert f"<@{seen.winner}> wins" in shown_board.text, shown_board.text

        # Nothing was posted twice: the channel holds the board alone, and no prompt or private
        # line came twice by DM.
        assert fake.messages(player.channel) == [shown_board]
        dms = Counter(
            message.content
            for message in fake.dms(player.member)
            if message.author is fake.bot
            and (prompt(message) or message.content.startswith(f"Match #{player.match_id}: "))
        )
        assert not [text for text, count in dms.items() if count > 1], dms

        # /stats agrees with the result.
        wins = int(seen.winner == player.member.id)
        losses = int(seen.winner not in (None, player.member.id))
        draws = int(seen.winner is None)
        line = record_line(records[player.member.id], games.get(player.game).title)
        assert line.startswith(f"{wins} W · {losses} L · {draws} D"), (player.mention, line)

    # No Crown's cell, and no 👑, in public before the board that ends the match.
    for a, b in pairs:
        if a.game != "crown":
            continue
        secrets = [cell_text(cell) for cell in (a.crown, b.crown) if cell is not None]
        for version in versions(fake, a.channel):
            if ends_match(version):
                continue
            text = str(version)
            leaked = [cell for cell in secrets if cell in text]
            assert not leaked and EMOJI[Mark.CROWN] not in text, (a.match_id, leaked, text)
