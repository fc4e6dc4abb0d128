"""Tournament posts at their largest fit one Discord message, whole: 64 players' sign-up, pairings,
standings and knockout results."""

from __future__ import annotations

import random
from dataclasses import replace

import discord
import pytest

from bot.chat.tournaments import posts
from bot.service.tournaments.pairing import Entrant, Pairing
from bot.service.tournaments.rounds import LEFT, Format, advance, round_count
from bot.service.tournaments.service import MAX_ENTRANTS
from bot.service.tournaments.view import Round, TournamentView

EMBED_TOTAL_MAX = 6000
BIG_ID = 1575492696485658626
"""A Discord id of today's length: mentions are as long as they will be."""


def played_event(format: Format, players: int, seed: int = 7) -> TournamentView:
    """An event played to its end with random results, as the service would show it."""
    rng = random.Random(seed)
    people = [Entrant(BIG_ID + i, float(rng.randrange(1200, 2000))) for i in range(players)]
    people[-1] = replace(people[-1], withdrawn=LEFT)  # withdrew at once: never paired
    total = round_count(format, people, None)
    progress = advance(format, total, people, [], 0, {})
    brackets = dict(progress.brackets)
    pairings: list[Pairing] = []
    while not progress.over:
        pairings = [
            p if p.ended else replace(p, ended=True, score0=rng.choice((1.0, 0.5, 0.0)))
            for p in progress.pairings
        ]
        pairings = [replace(p, id=n) for n, p in enumerate(pairings, start=1)]
        progress = advance(format, total, people, pairings, progress.round, brackets)
        brackets.update(progress.brackets)
    info = {
        n: Round(n, tuple(brackets.get(n, ())), 3000 + n, 9000 + n)
        for n in range(1, progress.round + 1)
    }
    return TournamentView(
        id=12,
        guild_id=1,
        channel_id=2,
        creator_id=BIG_ID - 1,
        game="crown",
        options={"hints": "auto"},
        format=format,
        rounds=total,
        max_players=None,
        status="finished",
        round=progress.round,
        message_id=5,
        winner_id=progress.winner,
        entrants=tuple(people),
        pairings=tuple(progress.pairings),
        round_info=info,
    )


def assert_fits(*embeds: discord.Embed) -> None:
    total = 0
    for embed in embeds:
        description = embed.description or ""
        assert len(embed.title or "") <= 256
        assert len(description) <= 4096
        assert "\n…\n" not in description, "cut to fit"
        total += len(embed.title or "") + len(description) + len(embed.footer.text or "")
    assert total <= EMBED_TOTAL_MAX


@pytest.mark.parametrize("format", ["swiss", "round_robin", "knockout"])
def test_every_post_of_the_largest_event_fits_whole(format: Format) -> None:
    players = 16 if format == "round_robin" else MAX_ENTRANTS
    view = played_event(format, players)
    assert_fits(posts.signup_embed(replace(view, status="signup")))
    for number in range(1, view.round + 1):
        embeds = posts.round_embeds(view, number)
        assert_fits(*embeds)
        assert len(posts.round_content(view, number, threaded=True)) <= 2000
    assert_fits(posts.standings_embed(view))
    assert len(posts.end_content(view)) <= 2000


def test_the_table_shows_points_tie_breaks_and_who_left() -> None:
    view = played_event("swiss", 8)
    embed = posts.standings_embed(view)
    lines = (embed.description or "").splitlines()
    assert len(lines) == 8 and lines[0].startswith("1. <@")
    assert all(" · BH " in line and " · SB " in line for line in lines)
    assert lines[-1].endswith("(left)")
    assert embed.footer.text == (
        "Points, then the tie-breaks. BH: Buchholz · SB: Sonneborn-Berger."
    )
    assert "final standings" in (embed.title or "")


def test_a_knockout_shows_its_seeded_bracket_then_each_round() -> None:
    view = played_event("knockout", 6)
    (bracket,) = posts.round_embeds(view, 1)
    assert bracket.title == "The bracket (seeded by rating)"
    assert (bracket.description or "").count(" v bye") == 3  # five still in: a bracket of 8
    results = posts.standings_embed(view).description or ""
    assert results.startswith("**Round 1**")
    assert "**Still in:**" not in results  # it is over
