"""Rank roles in words: the longest listing a server can have fits Discord's embed in every
language, and a rank reads with its game and its rating."""

from __future__ import annotations

import pytest

from bot.chat.ranks.words import rank_line
from bot.i18n import LOCALES, speaking
from bot.service.ranks import BEST, MOST_RANKS, RATING_HIGH, Rank

EMBED_DESCRIPTION = 4096
ROLE_ID = 1_576_340_838_928_089_089
"""A role id as long as Discord's are now (19 digits)."""


@pytest.mark.parametrize("locale", LOCALES)
def test_the_longest_listing_fits_an_embed_in_every_language(locale: str) -> None:
    longest = [Rank(ROLE_ID + i, BEST, RATING_HIGH - i, season=True) for i in range(MOST_RANKS)]
    with speaking(locale):
        listing = "\n".join(f"• {rank_line(rank)}" for rank in longest)
    assert len(listing) <= EMBED_DESCRIPTION


def test_a_rank_reads_with_its_game_and_rating() -> None:
    assert rank_line(Rank(5, "crystal", 1600)) == "<@&5>: Crystal Capture rating 1600 or more"
    with speaking("de"):
        assert rank_line(Rank(5, "crystal", 1600)) == "<@&5>: Kristallfang-Wertung ab 1600"
