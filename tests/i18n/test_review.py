"""Match reviews in every language: what each move knew, the moves named, and the skill and luck
notes, with no English left beside the players' mentions."""

from __future__ import annotations

from typing import Any

import discord
import pytest

import games
from bot.chat.after_game.review import move_embed, summary_embed
from bot.i18n import speaking
from bot.service.replays import FinishedMatch, ReviewShown, review_of
from games.review import phrasing
from tests.games.review_helpers import finished_match
from tests.i18n.leftover import Leftover
from tests.i18n.test_games import TRANSLATED, VARIANTS

LEFTOVER = Leftover(("review", "games"))
"""A review's own texts are ``review.po``'s; the moves it names are the games'."""

SEEDS = range(3)


def shown_in(game: str, options: dict[str, Any], seed: int) -> ReviewShown:
    log, outcome = finished_match(game, options, seed)
    match = FinishedMatch(
        id=7,
        game=game,
        options=options,
        seed=seed,
        players=(111111111111111111, 222222222222222222),
        challenger_id=111111111111111111,
        names=("Alice", "Bob"),
        vs_bot=False,
        winner_seat=None if outcome is None else outcome.winner,
        end_reason=None if outcome is None else outcome.reason.value,
        finished_at=None,
        actions=tuple(log),
    )
    return ReviewShown(match, games.get(game).title, review_of(match))


def embed_texts(embed: discord.Embed) -> list[str]:
    texts = [embed.title or "", embed.description or "", embed.footer.text or ""]
    for field in embed.fields:
        texts += [field.name or "", field.value or ""]
    return texts


def review_texts(shown: ReviewShown) -> list[str]:
    """Every text the review pages show, and the review's own texts in full."""
    texts = embed_texts(summary_embed(shown))
    for move in shown.review.moves:
        texts += embed_texts(move_embed(shown, move))
        texts += [
            phrasing.word(move.move),
            phrasing.word(move.knowledge.text),
            *map(phrasing.word, move.best),
        ]
    for summary in shown.review.players:
        texts += [phrasing.word(note) for note in (summary.skill_note, summary.luck_note) if note]
    return texts


@pytest.mark.parametrize("locale", TRANSLATED)
@pytest.mark.parametrize(
    ("game", "options"), [(game, options) for game, kinds in VARIANTS.items() for options in kinds]
)
def test_a_review_has_no_english(locale: str, game: str, options: dict[str, Any]) -> None:
    found: dict[str, str] = {}
    for seed in SEEDS:
        shown = shown_in(game, options, seed)
        with speaking(locale):
            texts = review_texts(shown)
        assert shown.review.moves
        for text in texts:
            for word in LEFTOVER.english(text, locale):
                found.setdefault(word, text)
    assert not found, found
