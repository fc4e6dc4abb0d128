"""The Discord layer's part in matches against the bot: its level option and its own DMs."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast, get_args

import games
from bot.chat.delivery import Delivery
from bot.chat.direct import DirectMessages
from bot.chat.game_cog import COMMON_OPTIONS
from bot.chat.live_boards import Boards
from bot.chat.outbox import Outbox
from bot.service.notices import Notice, Private, Prompt, Report
from games.base import Ask
from games.players import LEVELS

from .helpers import ALICE, snapshot

PARLOR = 99


class _Client:
    """Just enough of the client for ``Delivery.deliver``: who it is, and the DMs it sends."""

    def __init__(self) -> None:
        self.user = SimpleNamespace(id=PARLOR)
        self.dms: list[int] = []

    def get_user(self, user_id: int) -> Any:
        async def send(**kwargs: Any) -> None:
            self.dms.append(user_id)

        return SimpleNamespace(send=send)

    def get_guild(self, guild_id: int) -> None:
        return None


class _Service:
    """Just enough of the match service for the outbox: its confirmation."""

    def __init__(self) -> None:
        self.delivered_versions: list[tuple[int, int]] = []

    async def delivered(self, match_id: int, version: int) -> None:
        self.delivered_versions.append((match_id, version))


async def _unused(*args: Any) -> Any:
    raise AssertionError("not called for a match that goes on")


def test_the_level_option_offers_the_players_levels() -> None:
    assert get_args(COMMON_OPTIONS["level"].annotation) == LEVELS


async def test_nothing_is_ever_sent_to_the_bot_itself() -> None:
    crown = games.get("crown")
    state = crown.new({}, 1)
    snap = snapshot("crown", state, players=(ALICE, PARLOR))
    notices: list[Notice] = [
        Private(snap, PARLOR, "Your Crown is at (1,1)."),
        Prompt(snap, PARLOR, Ask.SECRET, "Choose your secret."),
        Prompt(snap, ALICE, Ask.SECRET, "Choose your secret."),
    ]
    client, service = _Client(), _Service()
    outbox = Outbox(cast(Any, service))
    boards = Boards(cast(Any, client), outbox)
    dms = DirectMessages(cast(Any, client), boards)
    delivery = Delivery(boards, dms, outbox, call_off=_unused, match_over=_unused)
    await delivery.deliver(Report(snap, notices))
    assert client.dms == [ALICE]
    await outbox.close()
    assert service.delivered_versions == [(snap.id, snap.version)]
