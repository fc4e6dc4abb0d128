"""What members see of a tournament: its sign-up message, round posts, standings and end.

Texts and embeds only, built from a ``TournamentView``; members are named by mention, and the
callers send these with mentions silenced except where a post says whom it notifies.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.chat.render import COLOUR, COLOUR_OVER, EMBED_DESCRIPTION_MAX, fit, mention, options_text
from bot.service.pairing import Pairing, knockout_winner
from bot.service.rounds import LEFT, Fixture
from bot.service.standings import TIEBREAKS, Standing
from bot.service.tournaments import TournamentView

FORMAT_NAMES = {"swiss": "Swiss", "round_robin": "Round robin", "knockout": "Knockout"}
SHORT = {"Buchholz": "BH", "Sonneborn-Berger": "SB", "head-to-head": "H2H"}
"""Tie-breaks as the table abbreviates them (its footer spells them out)."""
WITHDRAWN = {LEFT: "left"}
"""How a withdrawal is shown (others: ``withdrawn``)."""


def heading(view: TournamentView) -> str:
    """``Tournament #3 · Crystal Capture · Swiss``."""
    return f"Tournament #{view.id} · {view.title} · {FORMAT_NAMES[view.format]}"


def _shape(view: TournamentView) -> str:
    """The event's format and size in a few words."""
    parts = [FORMAT_NAMES[view.format]]
    if view.format == "swiss":
        parts.append(f"{view.rounds} rounds" if view.rounds else "ceil(log2(players)) rounds")
    if view.max_players:
        parts.append(f"up to {view.max_players} players")
    options = options_text(view.game, view.options)
    if options:
        parts.append(options)
    return " · ".join(parts)


def _number(value: float) -> str:
    """Points and tie-breaks as people write them: ``2``, ``1.5``."""
    return f"{value:g}"


def _points(value: float) -> str:
    """``1 point``, ``1.5 points``."""
    return f"{_number(value)} point{'' if value == 1 else 's'}"


# ---------------------------------------------------------------------- sign-up


def signup_embed(view: TournamentView) -> discord.Embed:
    """The sign-up message: the event, who created it, who has entered, what happens next."""
    names = [mention(e.user_id) for e in view.entrants]
    listed = ", ".join(names) if names else "nobody yet"
    if view.status == "signup":
        state = (
            f"Press **Join** to enter. {mention(view.creator_id)} or an organizer starts it "
            "with `/tournament start`."
        )
    elif view.status == "cancelled":
        state = "Cancelled."
    else:
        state = f"Sign-up is closed: {len(view.entrants)} players. The rounds are posted below."
    description = "\n\n".join(
        [
            f"{_shape(view)}\nCreated by {mention(view.creator_id)}.",
            f"**Entrants ({len(names)}):** {listed}",
            state,
        ]
    )
    colour = COLOUR if view.status in ("signup", "running") else COLOUR_OVER
    return discord.Embed(
        title=f"Tournament #{view.id} · {view.title}",
        description=fit(description, EMBED_DESCRIPTION_MAX),
        colour=colour,
    )


# ---------------------------------------------------------------------- rounds


def round_content(view: TournamentView, number: int, *, threaded: bool) -> str:
    where = "in the thread below" if threaded else "below"
    return f"**{heading(view)} · round {number} of {view.rounds}**: the matches are {where}."


def round_embeds(view: TournamentView, number: int) -> list[discord.Embed]:
    """The round's pairings (for a knockout's first round, the seeded bracket), and the
    standings after the round before."""
    fixtures = [f for f in view.fixtures_of(number) if f.replay == 0]
    if view.format == "knockout" and number == 1:
        title, lines = "The bracket (seeded by rating)", _bracket_lines(view)
    else:
        title, lines = f"Round {number} pairings", _pairing_lines(fixtures)
    embeds = [
        discord.Embed(
            title=title,
            description=fit("\n".join(lines) or "No games this round.", EMBED_DESCRIPTION_MAX),
            colour=COLOUR,
        )
    ]
    if view.format != "knockout" and number > 1:
        embeds.append(standings_embed(view, through=number - 1))
    return embeds


def _pairing_lines(fixtures: Sequence[Fixture]) -> list[str]:
    """``1. @a v @b`` board by board (the first named moves first), then the byes."""
    played = [f for f in fixtures if f.seat1 is not None]
    lines = [f"{i}. {mention(f.seat0)} v {mention(f.seat1 or 0)}" for i, f in enumerate(played, 1)]
    lines += [f"Bye: {mention(f.seat0)} (a win)" for f in fixtures if f.seat1 is None]
    return lines


def _bracket_lines(view: TournamentView) -> list[str]:
    """The first round's bracket, pair by pair, each entrant with its seed."""
    info = view.round_info.get(1)
    slots = info.bracket if info else ()
    seeds = {
        e.user_id: seed
        for seed, e in enumerate(
            sorted(view.entrants, key=lambda e: (-e.rating, e.user_id)), start=1
        )
    }

    def named(slot: int | None) -> str:
        return "bye" if slot is None else f"({seeds[slot]}) {mention(slot)}"

    return [
        f"{i}. {named(first)} v {named(second)}"
        for i, (first, second) in enumerate(zip(slots[::2], slots[1::2], strict=True), 1)
    ]


# ---------------------------------------------------------------------- standings


def standings_embed(view: TournamentView, *, through: int | None = None) -> discord.Embed:
    """The table (Swiss, round robin) or the bracket's results so far (knockout)."""
    last = view.round if through is None else through
    if view.status == "signup":
        title = f"{heading(view)} · sign-up"
        lines = [mention(e.user_id) for e in view.entrants] or ["Nobody has entered yet."]
    elif view.format == "knockout":
        title = f"{heading(view)} · results"
        lines = _knockout_lines(view)
    else:
        done = "final standings" if view.status == "finished" else f"after round {last}"
        title = f"{heading(view)} · {done}"
        lines = _table_lines(view.table(last), view)
    embed = discord.Embed(
        title=title,
        description=fit("\n".join(lines), EMBED_DESCRIPTION_MAX),
        colour=COLOUR_OVER if view.status in ("finished", "cancelled") else COLOUR,
    )
    if view.status != "signup" and view.format != "knockout":
        names = TIEBREAKS[view.format]
        legend = " · ".join(f"{SHORT[name]}: {name}" for name in names)
        embed.set_footer(text=f"Points, then the tie-breaks. {legend}.")
    return embed


def _table_lines(table: Sequence[Standing], view: TournamentView) -> list[str]:
    """``1. @a — 2.5 points · BH 4 · SB 3.25`` per player (short, so that 64 fit)."""
    reasons = {e.user_id: e.withdrawn for e in view.entrants}
    names = TIEBREAKS["swiss" if view.format == "swiss" else "round_robin"]
    lines = []
    for row in table:
        breaks = " · ".join(
            f"{SHORT[name]} {_number(value)}"
            for name, value in zip(names, row.tiebreaks, strict=True)
        )
        line = f"{row.rank}. {mention(row.player)} — {_points(row.points)} · {breaks}"
        reason = reasons.get(row.player)
        if reason:
            line += f" ({WITHDRAWN.get(reason, 'withdrawn')})"
        lines.append(line)
    return lines


def _knockout_lines(view: TournamentView) -> list[str]:
    """Each round's games with their results, then who is still in."""
    lines = []
    for number in range(1, view.round + 1):
        games = [_game_line(f) for f in view.fixtures_of(number) if f.seat1 is not None]
        byes = [mention(f.seat0) for f in view.fixtures_of(number) if f.seat1 is None]
        lines.append(f"**Round {number}**")
        lines += games
        if byes:
            lines.append(f"Byes: {', '.join(byes)}")
    if view.status == "running":
        still = [mention(p) for p in _still_in(view)]
        lines.append(f"**Still in:** {', '.join(still)}")
    return lines


def _still_in(view: TournamentView) -> list[int]:
    """The players of the current round who have not been knocked out."""
    info = view.round_info.get(view.round)
    slots = [p for p in (info.bracket if info else ()) if p is not None]
    out = {e.user_id for e in view.entrants if e.withdrawn}
    players = [e.player for e in view.entrants]
    boards: dict[int, list[Fixture]] = {}
    for fixture in view.fixtures_of(view.round):
        if fixture.seat1 is not None:
            boards.setdefault(fixture.board, []).append(fixture)
    for games in boards.values():
        first = min(games, key=lambda f: f.replay)
        assert first.seat1 is not None
        pairing = Pairing(first.seat0, first.seat1)
        winner = knockout_winner(players, pairing, [f.game for f in games])
        if winner is not None:
            out.add(pairing.seat1 if winner == pairing.seat0 else pairing.seat0)
    return [p for p in slots if p not in out]


def _game_line(fixture: Fixture) -> str:
    """``@a 1-0 @b``, ``@a ½-½ @b``, ``@a v @b: no result`` or ``@a v @b: playing``."""
    first, second = mention(fixture.seat0), mention(fixture.seat1 or 0)
    game = f" (game {fixture.replay + 1})" if fixture.replay else ""
    if not fixture.ended:
        return f"{first} v {second}{game}: playing"
    if fixture.score0 is None:
        return f"{first} v {second}{game}: no result"
    score = {1.0: "1-0", 0.5: "½-½", 0.0: "0-1"}[fixture.score0]
    return f"{first} {score} {second}{game}"


# ---------------------------------------------------------------------- the end


def end_content(view: TournamentView) -> str:
    """The winner's announcement (or that the event ended without one)."""
    if view.winner_id is None:
        return f"**{heading(view)}** is over, without a winner."
    return f"🏆 {mention(view.winner_id)} wins **{heading(view)}**!"


def cancelled_content(view: TournamentView, by: int) -> str:
    return f"**{heading(view)}** was cancelled by {mention(by)}. Matches in play are called off."
