"""What members see of a tournament: its sign-up message, round posts, standings and end.

Texts and embeds only, built from a ``TournamentView``; members are named by mention, and the
callers send these with mentions silenced except where a post says whom it notifies.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.chat.render import COLOUR, COLOUR_OVER, EMBED_DESCRIPTION_MAX, fit, mention, options_text
from bot.service.tournaments.knockout import knockout_winner
from bot.service.tournaments.pairing import Pairing
from bot.service.tournaments.rounds import LEFT
from bot.service.tournaments.standings import TIEBREAKS, TournamentStanding
from bot.service.tournaments.view import TournamentView

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
    pairings = [p for p in view.pairings_of(number) if p.replay == 0]
    if view.format == "knockout" and number == 1:
        title, lines = "The bracket (seeded by rating)", _bracket_lines(view)
    else:
        title, lines = f"Round {number} pairings", _pairing_lines(pairings)
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


def _pairing_lines(pairings: Sequence[Pairing]) -> list[str]:
    """``1. @a v @b`` board by board (the first named moves first), then the byes."""
    played = [p for p in pairings if p.seat1 is not None]
    lines = [f"{i}. {mention(p.seat0)} v {mention(p.seat1 or 0)}" for i, p in enumerate(played, 1)]
    lines += [f"Bye: {mention(p.seat0)} (a win)" for p in pairings if p.seat1 is None]
    return lines


def _bracket_lines(view: TournamentView) -> list[str]:
    """The first round's bracket, pair by pair, each entrant with its seed."""
    info = view.round_info.get(1)
    slots = info.bracket if info else ()
    rating = view.ratings()
    placed = sorted((p for p in slots if p is not None), key=lambda p: (-rating[p], p))
    seeds = {player: seed for seed, player in enumerate(placed, start=1)}

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


def _table_lines(table: Sequence[TournamentStanding], view: TournamentView) -> list[str]:
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
    """Each round's matches, one line each with how it was decided, then who is still in."""
    lines = []
    still: set[int] = set()
    for number in range(1, view.round + 1):
        info = view.round_info.get(number)
        still = {p for p in (info.bracket if info else ()) if p is not None}
        lines.append(f"**Round {number}**")
        for games in _matches(view, number):
            line, loser = _match_line(view, games)
            lines.append(line)
            still -= loser
        byes = [mention(p.seat0) for p in view.pairings_of(number) if p.seat1 is None]
        if byes:
            lines.append(f"Byes: {', '.join(byes)}")
    if view.status == "running":
        out = {e.user_id for e in view.entrants if e.withdrawn}
        lines.append(f"**Still in:** {', '.join(mention(p) for p in sorted(still - out))}")
    return lines


def _matches(view: TournamentView, number: int) -> list[list[Pairing]]:
    """The round's matches between two players: each its games in the order played."""
    boards: dict[int, list[Pairing]] = {}
    for pairing in sorted(view.pairings_of(number), key=lambda p: (p.board, p.replay)):
        if pairing.seat1 is not None:
            boards.setdefault(pairing.board, []).append(pairing)
    return list(boards.values())


def _match_line(view: TournamentView, games: Sequence[Pairing]) -> tuple[str, set[int]]:
    """How a knockout match stands or was decided, and who it knocked out.

    ``@a beat @b``, ``... after 1 draw``, ``... on rating after 2 draws``, ``@a v @b: playing
    game 2``, ``@a went through: @b withdrew``.
    """
    first = games[0]
    assert first.seat1 is not None
    both = (first.seat0, first.seat1)
    draws = sum(1 for g in games if g.ended and g.score0 == 0.5)
    winner = knockout_winner(view.entrants, both, games)
    if winner is not None:
        loser = both[1] if winner == both[0] else both[0]
        how = f" after {draws} draw{'s' if draws > 1 else ''}" if draws else ""
        if draws >= 2 and games[-1].score0 == 0.5:
            how = f" on rating{how}"
        return f"{mention(winner)} beat {mention(loser)}{how}", {loser}
    if not all(g.ended for g in games):
        game = f" game {len(games)}" if len(games) > 1 else ""
        return f"{mention(both[0])} v {mention(both[1])}: playing{game}", set()
    left = {e.user_id for e in view.entrants if e.withdrawn} & set(both)
    if len(left) == 1:
        (gone,) = left
        stays = both[1] if gone == both[0] else both[0]
        return f"{mention(stays)} went through: {mention(gone)} withdrew", {gone}
    return f"{mention(both[0])} v {mention(both[1])}: both withdrew", set(both)


# ---------------------------------------------------------------------- the end


def end_content(view: TournamentView) -> str:
    """The winner's announcement (or that the event ended without one)."""
    if view.winner_id is None:
        return f"**{heading(view)}** is over, without a winner."
    return f"🏆 {mention(view.winner_id)} wins **{heading(view)}**!"


def cancelled_content(view: TournamentView, by: int) -> str:
    return f"**{heading(view)}** was cancelled by {mention(by)}. Matches in play are called off."
