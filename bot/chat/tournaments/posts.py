"""What members see of a tournament: its sign-up message, round posts, standings and end.

Texts and embeds only, built from a ``TournamentView``; members are named by mention, and the
callers send these with mentions silenced except where a post says whom it notifies.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.chat.boards.render import (
    COLOUR,
    COLOUR_OVER,
    EMBED_DESCRIPTION_MAX,
    fit,
    mention,
    options_text,
)
from bot.i18n import N_, _, formats, n_
from bot.service.tournaments.knockout import knockout_winner
from bot.service.tournaments.pairing import Pairing
from bot.service.tournaments.rounds import LEFT
from bot.service.tournaments.standings import TIEBREAKS, TournamentStanding
from bot.service.tournaments.view import TournamentView

FORMAT_NAMES = {"swiss": N_("Swiss"), "round_robin": N_("Round robin"), "knockout": N_("Knockout")}
"""Each format's name, translated where shown (``format_name``)."""
SHORT = {"Buchholz": N_("BH"), "Sonneborn-Berger": N_("SB"), "head-to-head": N_("H2H")}
"""Tie-breaks as the table abbreviates them (its footer spells them out)."""
TIEBREAK_NAMES = {
    "Buchholz": N_("Buchholz"),
    "Sonneborn-Berger": N_("Sonneborn-Berger"),
    "head-to-head": N_("head-to-head"),
}
WITHDRAWN = {LEFT: N_("left")}
"""How a withdrawal is shown (others: ``withdrawn``)."""


def format_name(view: TournamentView) -> str:
    return _(FORMAT_NAMES[view.format])


def game_title(view: TournamentView) -> str:
    return _(view.title)


def heading(view: TournamentView) -> str:
    """``Tournament #3 · Crystal Capture · Swiss``."""
    return _(
        "Tournament #{id} · {game} · {format}",
        id=view.id,
        game=game_title(view),
        format=format_name(view),
    )


def _shape(view: TournamentView) -> str:
    """The event's format and size in a few words."""
    parts = [format_name(view)]
    if view.format == "swiss":
        parts.append(
            n_("{n} round", "{n} rounds", view.rounds)
            if view.rounds
            else _("rounds set by the number of players")
        )
    if view.max_players:
        parts.append(n_("up to {n} player", "up to {n} players", view.max_players))
    options = options_text(view.game, view.options)
    if options:
        parts.append(options)
    return " · ".join(parts)


def _number(value: float) -> str:
    """Points and tie-breaks as the reader writes them: ``2``, ``1.5``, ``1,5``."""
    return formats.number(value)


def _points(value: float) -> str:
    """``1 point``, ``1.5 points``."""
    if value == int(value):
        return n_("{n} point", "{n} points", int(value))
    return _("{points} points", points=_number(value))


# ---------------------------------------------------------------------- sign-up


def signup_embed(view: TournamentView) -> discord.Embed:
    """The sign-up message: the event, who created it, who has entered, what happens next."""
    names = [mention(e.user_id) for e in view.entrants]
    listed = ", ".join(names) if names else _("nobody yet")
    if view.status == "signup":
        state = _(
            "Press **{join}** to enter. {creator} or an organizer starts it with {command}.",
            join=_("Join"),
            creator=mention(view.creator_id),
            command=formats.command("tournament start"),
        )
    elif view.status == "cancelled":
        state = _("Cancelled.")
    else:
        state = n_(
            "Sign-up is closed: {n} player. The rounds are posted below.",
            "Sign-up is closed: {n} players. The rounds are posted below.",
            len(view.entrants),
        )
    description = "\n\n".join(
        [
            _shape(view) + "\n" + _("Created by {creator}.", creator=mention(view.creator_id)),
            _("**Entrants ({count}):** {names}", count=len(names), names=listed),
            state,
        ]
    )
    colour = COLOUR if view.status in ("signup", "running") else COLOUR_OVER
    return discord.Embed(
        title=_("Tournament #{id} · {game}", id=view.id, game=game_title(view)),
        description=fit(description, EMBED_DESCRIPTION_MAX),
        colour=colour,
    )


# ---------------------------------------------------------------------- rounds


def round_content(view: TournamentView, number: int, *, threaded: bool) -> str:
    if threaded:
        return _(
            "**{heading} · round {number} of {rounds}**: the matches are in the thread below.",
            heading=heading(view),
            number=number,
            rounds=view.rounds,
        )
    return _(
        "**{heading} · round {number} of {rounds}**: the matches are below.",
        heading=heading(view),
        number=number,
        rounds=view.rounds,
    )


def thread_name(view: TournamentView, number: int) -> str:
    """A round's thread: ``Tournament #3 · round 2`` (Discord allows 100 characters)."""
    return _("Tournament #{id} · round {number}", id=view.id, number=number)[:100]


def round_embeds(view: TournamentView, number: int) -> list[discord.Embed]:
    """The round's pairings (for a knockout's first round, the seeded bracket), and the
    standings after the round before."""
    pairings = [p for p in view.pairings_of(number) if p.replay == 0]
    if view.format == "knockout" and number == 1:
        title, lines = _("The bracket (seeded by rating)"), _bracket_lines(view)
    else:
        title, lines = _("Round {number} pairings", number=number), _pairing_lines(pairings)
    embeds = [
        discord.Embed(
            title=title,
            description=fit("\n".join(lines) or _("No games this round."), EMBED_DESCRIPTION_MAX),
            colour=COLOUR,
        )
    ]
    if view.format != "knockout" and number > 1:
        embeds.append(standings_embed(view, through=number - 1))
    return embeds


def _pairing_lines(pairings: Sequence[Pairing]) -> list[str]:
    """``1. @a v @b`` board by board (the first named moves first), then the byes."""
    played = [p for p in pairings if p.seat1 is not None]
    lines = [
        _(
            "{board}. {first} v {second}",
            board=i,
            first=mention(p.seat0),
            second=mention(p.seat1 or 0),
        )
        for i, p in enumerate(played, 1)
    ]
    lines += [
        _("Bye: {player} (a win)", player=mention(p.seat0)) for p in pairings if p.seat1 is None
    ]
    return lines


def _bracket_lines(view: TournamentView) -> list[str]:
    """The first round's bracket, pair by pair, each entrant with its seed."""
    info = view.round_info.get(1)
    slots = info.bracket if info else ()
    seeding = view.seeding()
    placed = sorted((p for p in slots if p is not None), key=lambda p: (*seeding[p], p))
    seeds = {player: seed for seed, player in enumerate(placed, start=1)}

    def named(slot: int | None) -> str:
        return _("bye") if slot is None else f"({seeds[slot]}) {mention(slot)}"

    return [
        _("{board}. {first} v {second}", board=i, first=named(first), second=named(second))
        for i, (first, second) in enumerate(zip(slots[::2], slots[1::2], strict=True), 1)
    ]


# ---------------------------------------------------------------------- standings


def standings_embed(view: TournamentView, *, through: int | None = None) -> discord.Embed:
    """The table (Swiss, round robin) or the bracket's results so far (knockout)."""
    last = view.round if through is None else through
    if view.status == "signup":
        title = _("{heading} · sign-up", heading=heading(view))
        lines = [mention(e.user_id) for e in view.entrants] or [_("Nobody has entered yet.")]
    elif view.format == "knockout":
        title = _("{heading} · results", heading=heading(view))
        lines = _knockout_lines(view)
    else:
        if view.status == "finished":
            title = _("{heading} · final standings", heading=heading(view))
        else:
            title = _("{heading} · after round {number}", heading=heading(view), number=last)
        lines = _table_lines(view.table(last), view)
    embed = discord.Embed(
        title=title,
        description=fit("\n".join(lines), EMBED_DESCRIPTION_MAX),
        colour=COLOUR_OVER if view.status in ("finished", "cancelled") else COLOUR,
    )
    if view.status != "signup" and view.format != "knockout":
        names = TIEBREAKS[view.format]
        legend = " · ".join(f"{_(SHORT[name])}: {_(TIEBREAK_NAMES[name])}" for name in names)
        embed.set_footer(text=_("Points, then the tie-breaks. {legend}.", legend=legend))
    return embed


def _table_lines(table: Sequence[TournamentStanding], view: TournamentView) -> list[str]:
    """``1. @a — 2.5 points · BH 4 · SB 3.25`` per player (short, so that 64 fit)."""
    reasons = {e.user_id: e.withdrawn for e in view.entrants}
    names = TIEBREAKS["swiss" if view.format == "swiss" else "round_robin"]
    lines = []
    for row in table:
        breaks = " · ".join(
            f"{_(SHORT[name])} {_number(value)}"
            for name, value in zip(names, row.tiebreaks, strict=True)
        )
        line = f"{row.rank}. {mention(row.player)} — {_points(row.points)} · {breaks}"
        reason = reasons.get(row.player)
        if reason:
            shown = _(WITHDRAWN[reason]) if reason in WITHDRAWN else _("withdrawn")
            line += f" ({shown})"
        lines.append(line)
    return lines


def _knockout_lines(view: TournamentView) -> list[str]:
    """Each round's matches, one line each with how it was decided, then who is still in."""
    lines = []
    still: set[int] = set()
    for number in range(1, view.round + 1):
        info = view.round_info.get(number)
        still = {p for p in (info.bracket if info else ()) if p is not None}
        lines.append(_("**Round {number}**", number=number))
        for games in _matches(view, number):
            line, loser = _match_line(view, games)
            lines.append(line)
            still -= loser
        byes = [mention(p.seat0) for p in view.pairings_of(number) if p.seat1 is None]
        if byes:
            lines.append(_("Byes: {players}", players=", ".join(byes)))
    if view.status == "running":
        out = {e.user_id for e in view.entrants if e.withdrawn}
        still_in = ", ".join(mention(p) for p in sorted(still - out))
        lines.append(_("**Still in:** {players}", players=still_in))
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
        names = {"winner": mention(winner), "loser": mention(loser)}
        if draws >= 2 and games[-1].score0 == 0.5:
            text = n_(
                "{winner} beat {loser} on rating after {n} draw",
                "{winner} beat {loser} on rating after {n} draws",
                draws,
                **names,
            )
        elif draws:
            text = n_(
                "{winner} beat {loser} after {n} draw",
                "{winner} beat {loser} after {n} draws",
                draws,
                **names,
            )
        else:
            text = _("{winner} beat {loser}", **names)
        return text, {loser}
    pair = {"first": mention(both[0]), "second": mention(both[1])}
    if not all(g.ended for g in games):
        if len(games) > 1:
            return _("{first} v {second}: playing game {game}", game=len(games), **pair), set()
        return _("{first} v {second}: playing", **pair), set()
    left = {e.user_id for e in view.entrants if e.withdrawn} & set(both)
    if len(left) == 1:
        (gone,) = left
        stays = both[1] if gone == both[0] else both[0]
        text = _("{stays} went through: {gone} withdrew", stays=mention(stays), gone=mention(gone))
        return text, {gone}
    return _("{first} v {second}: both withdrew", **pair), set(both)


# ---------------------------------------------------------------------- the end


def end_content(view: TournamentView) -> str:
    """The winner's announcement (or that the event ended without one)."""
    if view.winner_id is None:
        return _("**{heading}** is over, without a winner.", heading=heading(view))
    return _(
        "🏆 {winner} wins **{heading}**!", winner=mention(view.winner_id), heading=heading(view)
    )


def cancelled_content(view: TournamentView, by: int) -> str:
    return _(
        "**{heading}** was cancelled by {member}. Matches in play are called off.",
        heading=heading(view),
        member=mention(by),
    )
