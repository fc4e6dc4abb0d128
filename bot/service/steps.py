"""What a use case's step works out on a loaded match: the engine's answer taken in, the bot's
own moves, the status and deadline after it, and the notices that tell the players."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from bot.service.errors import OthersTurn
from bot.service.lines import Happened
from bot.service.match_state import OVER, LoadedMatch
from bot.service.notices import MatchSnapshot, Notice, Private, Prompt, Public
from bot.service.runner import MatchRunner
from bot.service.snapshots import told
from bot.service.timeouts import Timeouts
from db.models import MatchStatus
from games.base import Ask, Event, Outcome, Seat
from games.players import DEFAULT_LEVEL, player_for


class Steps:
    """The pieces every use case's step is made of; they name members with the runner's
    ``mention`` and know the bot by the runner's user id."""

    def __init__(self, runner: MatchRunner) -> None:
        self.runner = runner

    def mention(self, user_id: int) -> str:
        return self.runner.mention(user_id)

    def snapshot(self, loaded: LoadedMatch) -> MatchSnapshot:
        return self.runner.snapshot(loaded)

    def told(self, loaded: LoadedMatch, events: Sequence[Event]) -> list[Happened]:
        """The public ``events`` as lines, naming the players."""
        return told(loaded, events, self.runner.mention)

    def played(
        self,
        loaded: LoadedMatch,
        seat: Seat,
        action: Any,
        new_state: Any,
        events: list[Event],
        now: datetime,
    ) -> list[Notice]:
        """Take ``seat``'s applied action in: log it, let the bot answer, move the match on."""
        engine, state = loaded.game, loaded.state
        asks_before = {s: engine.ask(state, s) for s in engine.to_act(state)}
        in_setup = loaded.row.status == MatchStatus.SETUP
        loaded.state = new_state
        loaded.played(seat, asks_before[seat], action, events)
        events = [*events, *self.play_bot(loaded)]
        advance(loaded, loaded.timeouts, now, keep_setup_deadline=in_setup)
        return self.notices(loaded, events, asks_before)

    def conclude(self, loaded: LoadedMatch, outcome: Outcome, now: datetime) -> list[Notice]:
        """End the match from outside the game's rules; the engine words the result."""
        loaded.state, events = loaded.game.conclude(loaded.state, outcome)
        finish(loaded, outcome, now)
        loaded.record(events)
        snap = self.snapshot(loaded)
        return [Public(snap, tuple(self.told(loaded, events)), kind="end")]

    def play_bot(self, loaded: LoadedMatch) -> list[Event]:
        """Let the built-in player act for as long as it is asked (its secret, hint or move).

        It decides from its own seat's view only. Its random choices are seeded from the match,
        so a replay makes the same ones.
        """
        row, engine = loaded.row, loaded.game
        bot_user_id = self.runner.bot_user_id
        if not row.vs_bot or bot_user_id not in loaded.players:
            return []
        seat = loaded.players.index(bot_user_id)
        player = player_for(row.game, row.bot_level or DEFAULT_LEVEL)
        events: list[Event] = []
        state = loaded.state
        while engine.outcome(state) is None and seat in engine.to_act(state):
            rng = random.Random(f"{row.seed}:{row.version}:{len(loaded.log)}")
            ask = engine.ask(state, seat)
            legal = engine.legal_actions(state, seat)
            action = player.choose(engine.view(state, seat), ask, legal, rng)
            state, happened = engine.apply(state, seat, action)
            loaded.played(seat, ask, action, happened)
            events += happened
        loaded.state = state
        return events

    def whose_turn(self, loaded: LoadedMatch) -> OthersTurn:
        """The refusal of a player who is not to act: who is, and what they are asked."""
        seats = sorted(loaded.game.to_act(loaded.state))
        if len(seats) != 1:
            return OthersTurn()
        ask = loaded.game.ask(loaded.state, seats[0])
        return OthersTurn(loaded.players[seats[0]], ask)

    def notices(
        self, loaded: LoadedMatch, events: Sequence[Event], asks_before: Mapping[Seat, Ask]
    ) -> list[Notice]:
        snap = self.snapshot(loaded)
        notices: list[Notice] = []
        public = self.told(loaded, events)
        if public:
            kind = "end" if loaded.row.status in OVER else "update"
            notices.append(Public(snap, tuple(public), kind=kind))
        for seat, uid in enumerate(loaded.players):
            notices += [Private(snap, uid, event) for event in events if event.audience == seat]
        notices.extend(self.new_prompts(loaded, asks_before))
        return notices

    def new_prompts(self, loaded: LoadedMatch, asks_before: Mapping[Seat, Ask]) -> list[Prompt]:
        """Prompts for seats newly asked for something private (a secret or a hint)."""
        engine, state = loaded.game, loaded.state
        if engine.outcome(state) is not None:
            return []
        prompts = []
        for seat in sorted(engine.to_act(state)):
            ask = engine.ask(state, seat)
            if ask in (Ask.SECRET, Ask.HINT) and asks_before.get(seat) is not ask:
                prompts.append(self.prompt(loaded, seat, ask))
        return prompts

    def prompt(self, loaded: LoadedMatch, seat: Seat, ask: Ask) -> Prompt:
        snap = self.snapshot(loaded)
        return Prompt(snap, loaded.players[seat], ask, loaded.game.view(loaded.state, seat))


def advance(
    loaded: LoadedMatch, timeouts: Timeouts, now: datetime, *, keep_setup_deadline: bool = False
) -> None:
    """Set status and deadline from the engine state after a change."""
    row, engine, state = loaded.row, loaded.game, loaded.state
    outcome = engine.outcome(state)
    if outcome is not None:
        finish(loaded, outcome, now)
        return
    asks = {engine.ask(state, s) for s in engine.to_act(state)}
    if Ask.SECRET in asks:
        row.status = MatchStatus.SETUP
        if not keep_setup_deadline:
            row.deadline, row.deadline_kind = now + timeouts.delta("setup"), "setup"
    else:
        row.status = MatchStatus.ACTIVE
        kind = "hint" if Ask.HINT in asks else "turn"
        row.deadline, row.deadline_kind = now + timeouts.delta(kind), kind
    row.state = engine.dump(state)


def finish(loaded: LoadedMatch, outcome: Outcome, now: datetime) -> None:
    row = loaded.row
    row.status = MatchStatus.FINISHED
    row.state = loaded.game.dump(loaded.state)
    row.deadline = row.deadline_kind = None
    row.winner_seat = outcome.winner
    row.end_reason = outcome.reason.value
    row.finished_at = now


def abort(loaded: LoadedMatch, reason: str, now: datetime) -> None:
    row = loaded.row
    if loaded.state is not None:
        row.state = loaded.game.dump(loaded.state)
    row.status = MatchStatus.ABORTED
    row.deadline = row.deadline_kind = None
    row.end_reason = reason
    row.finished_at = now
