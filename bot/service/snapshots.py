"""A loaded match as anyone may see it, its players named by the caller's ``mention``."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.service.lines import Happened, PublicLine, happened
from bot.service.match_state import OVER, LoadedMatch, history_lines, shown_version
from bot.service.notices import MatchSnapshot
from db.models import MatchStatus
from games.base import Ask, Event

Mention = Callable[[int], str]
"""How a member is named in a text: a Discord mention, or a test's ``@id``."""


def snapshot_of(loaded: LoadedMatch, mention: Mention) -> MatchSnapshot:
    row, engine, state = loaded.row, loaded.game, loaded.state
    to_act: tuple[int, ...] = ()
    asks: dict[int, Ask] = {}
    public_view = None
    if state is not None:
        public_view = engine.view(state, None)
        if row.status not in OVER:
            seats = sorted(engine.to_act(state))
            to_act = tuple(loaded.players[s] for s in seats)
            asks = {loaded.players[s]: engine.ask(state, s) for s in seats}
    winner = (
        loaded.players[row.winner_seat] if row.winner_seat is not None and loaded.players else None
    )
    return MatchSnapshot(
        id=row.id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        game=row.game,
        options=dict(row.options or {}),
        status=row.status,
        version=shown_version(loaded),
        challenger_id=row.challenger_id,
        opponent_id=row.opponent_id,
        players=tuple(loaded.players),
        to_act=to_act,
        asks=asks,
        public_view=public_view,
        deadline=row.deadline,
        deadline_kind=row.deadline_kind,
        winner_id=winner,
        end_reason=row.end_reason,
        message_id=row.message_id,
        vs_bot=bool(row.vs_bot),
        place=row.place,
        history=_history(loaded, mention),
        thread_id=row.thread_id if row.thread_id and row.thread_id == row.channel_id else None,
        thread_unsettled=row.thread_id is None and row.status != MatchStatus.CHALLENGED,
    )


def told(loaded: LoadedMatch, events: Sequence[Event], mention: Mention) -> list[Happened]:
    """The public ``events`` as lines, naming the players with ``mention``."""
    return happened(events, [mention(uid) for uid in loaded.players])


def _history(loaded: LoadedMatch, mention: Mention) -> tuple[PublicLine, ...]:
    """The board's log: the public events before this use case's, named."""
    if len(loaded.players) != 2:
        return ()
    p0, p1 = (mention(uid) for uid in loaded.players)
    earlier = loaded.stored.get("recent") or []
    return history_lines(loaded.row.game, earlier[-4:], (p0, p1))
