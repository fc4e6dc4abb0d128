"""Rank roles in words: a rank's game, a rank as listed, and why a request was refused."""

from __future__ import annotations

import games
from bot.i18n import N_, _
from bot.i18n.formats import command
from bot.service.ranks import BEST, NoSuchRank, Rank, RankTaken, TooManyRanks

BEST_NAME = N_("Best rating over every game")


def game_words(game: str) -> str:
    """A rank's game as the reader reads it: a game's title, or the best over every game."""
    return _(BEST_NAME) if game == BEST else _(games.get(game).title)


def role_mention(role_id: int) -> str:
    return f"<@&{role_id}>"


def rank_line(rank: Rank) -> str:
    """One rank, as ``/ranks list`` shows it."""
    if rank.season:
        return _(
            "{role}: {game} rating {rating} or more, brought up to date when a season ends too",
            role=role_mention(rank.role_id),
            game=game_words(rank.game),
            rating=rank.rating,
        )
    return _(
        "{role}: {game} rating {rating} or more",
        role=role_mention(rank.role_id),
        game=game_words(rank.game),
        rating=rank.rating,
    )


def refused(error: RankTaken | TooManyRanks | NoSuchRank) -> str:
    """What a refused ``/ranks`` request says (``bot.chat.refusals.say`` words them here)."""
    if isinstance(error, RankTaken):
        return _(
            "{game} already has a rank at rating {rating}: {role}. Pick another rating, or "
            "clear that rank first with {command}.",
            game=game_words(error.game),
            rating=error.rating,
            role=role_mention(error.role_id),
            command=command("ranks clear"),
        )
    if isinstance(error, TooManyRanks):
        return _(
            "This server has {most} ranks, the most it may have: clear one first with {command}.",
            most=error.most,
            command=command("ranks clear"),
        )
    if error.role_id is not None:
        return _(
            "{role} is not a rank here: {command} lists them.",
            role=role_mention(error.role_id),
            command=command("ranks list"),
        )
    if error.game is not None:
        return _(
            "{game} has no rank here: {command} lists them.",
            game=game_words(error.game),
            command=command("ranks list"),
        )
    return _("This server has no rank.")
