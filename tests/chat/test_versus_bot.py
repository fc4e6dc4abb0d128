"""The Discord layer's part in matches against the bot: its level option and its own DMs."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast, get_args

import games
from bot.chat.boards.delivery import Delivery
from bot.chat.boards.live import Boards
from bot.chat.dms.send import DirectMessages
from bot.chat.matches.channel_holds import ChannelReach
from bot.chat.matches.game_commands import COMMON_OPTIONS
from bot.service.notices import Notice, Private, Prompt, Report
from games.base import Ask, Event
from games.players import LEVELS

from .helpers import ALICE, snapshot

PARLOR = 99


class _Client:
    """Just enough of the client for ``Delivery.deliver``: who it is, and the DMs it sends."""

    def __init__(self) -> None:
        self.user = SimpleNamespace(id=PARLOR)
        self.dms: list[int] = []

    def get_user(self, user_id: int) -> Any:
        async def send(**kwargs: Any) -> Any:
            self.dms.append(user_id)
            return SimpleNamespace(id=len(self.dms), channel=SimpleNamespace(id=user_id))

        return SimpleNamespace(send=send)

    def get_guild(self, guild_id: int) -> None:
        return None


class _Outbox:
    """Just enough of the outbox for ``Delivery.deliver``: what it was told was sent."""

    def __init__(self) -> None:
        self.sent_to: list[int] = []

    def sent(self, match_id: int, version: int, kind: str, user_id: int) -> None:
        self.sent_to.append(user_id)


async def _unused(*args: Any) -> Any:
    raise AssertionError("not called for a match that goes on")


def test_the_level_option_offers_the_players_levels() -> None:
    assert get_args(COMMON_OPTIONS["level"].annotation) == LEVELS


async def test_nothing_is_ever_sent_to_the_bot_itself() -> None:
    crown = games.get("crown")
    state = crown.new({}, 1)
    snap = snapshot("crown", state, players=(ALICE, PARLOR))
    notices: list[Notice] = [
        Private(snap, PARLOR, Event("secret", "Your Crown is at (1,1).", 1)),
        Prompt(snap, PARLOR, Ask.SECRET),
        Prompt(snap, ALICE, Ask.SECRET),
    ]
    client, outbox = _Client(), _Outbox()
    boards = Boards(cast(Any, client), cast(Any, outbox))
    dms = DirectMessages(cast(Any, client), boards)
    reach = ChannelReach(cast(Any, None), dms, call_off=_unused)
    delivery = Delivery(boards, dms, cast(Any, outbox), reach=reach, tournament_moves_on=_unused)
    await delivery.deliver(Report(snap, notices))
    assert client.dms == [ALICE]
    assert outbox.sent_to == [ALICE]
