"""Snapshots built straight from engine states, as the match service would build them."""

from __future__ import annotations

from typing import Any

import games
from bot.chat.components import Layout
from bot.service.notices import MatchSnapshot, Prompt
from games.base import Ask

GUILD, CHANNEL = 500, 600
ALICE, BOB = 11, 22


def snapshot(
    game: str,
    state: Any,
    *,
    match_id: int = 7,
    version: int = 3,
    players: tuple[int, int] = (ALICE, BOB),
    message_id: int | None = 900,
) -> MatchSnapshot:
    """The snapshot of a started match in ``state`` (status from the engine)."""
    engine = games.get(game)
    outcome = engine.outcome(state)
    seats = sorted(engine.to_act(state))
    asks = {players[s]: engine.ask(state, s) for s in seats}
    if outcome is not None:
        status = "finished"
    elif Ask.SECRET in asks.values():
        status = "setup"
    else:
        status = "active"
    winner = None if outcome is None or outcome.winner is None else players[outcome.winner]
    return MatchSnapshot(
        id=match_id,
        guild_id=GUILD,
        channel_id=CHANNEL,
        game=game,
        options=engine.options(state),
        status=status,
        version=version,
        challenger_id=players[0],
        opponent_id=players[1],
        players=players,
        to_act=tuple(players[s] for s in seats),
        asks=asks,
        public_view=engine.view(state, None),
        deadline=None,
        deadline_kind=None,
        winner_id=winner,
        end_reason=None if outcome is None else outcome.reason.value,
        message_id=message_id,
    )


def prompt(game: str, state: Any, seat: int) -> Prompt:
    """The prompt the service would send ``seat`` in ``state``."""
    engine = games.get(game)
    snap = snapshot(game, state)
    return Prompt(snap, snap.players[seat], engine.ask(state, seat), engine.view(state, seat))


def args(layout: Layout, verb: str) -> set[str]:
    """The ``arg`` of every enabled button with ``verb``."""
    return {b.press.arg for row in layout for b in row if not b.disabled and b.press.verb == verb}


def play(game: str, state: Any, *moves: tuple[int, str]) -> Any:
    engine = games.get(game)
    for seat, text in moves:
        state, _ = engine.apply(state, seat, engine.parse(state, seat, text))
    return state
