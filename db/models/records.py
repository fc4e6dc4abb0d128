"""Members' records and Glicko-2 ratings by server and game, and each rated match's change."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, Float, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from db.models.base import Base, UTCDateTime, utcnow

# A new player's Glicko-2 rating: the values of bot.ratings.DEFAULT (db may not import bot).
DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 500.0
DEFAULT_VOLATILITY = 0.09


class PlayerStats(Base):
    """A member's record and Glicko-2 rating for one game in one guild, against people or the bot.

    ``streak`` is +n after n wins in a row, -n after n losses in a row, and 0 after a draw.
    ``rated_at`` is the end of the member's last rated match of the game (``None``: none yet, or
    a record against the bot); the stored deviation is the one reached at ``deviation_at`` and
    grows from there (docs/rules.md, "Ratings"). ``ranked_until`` is when the member stops being
    ranked unless they play again (their deviation grown to provisional, or inactive), so a
    leaderboard asks ``ranked_until > now`` of an index.
    """

    __tablename__ = "player_stats"
    __table_args__ = (Index("ix_player_stats_guild_user", "guild_id", "user_id"),)

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    game: Mapped[str] = mapped_column(String(16), primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    vs_bot: Mapped[bool] = mapped_column(Boolean, primary_key=True, default=False)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)
    draws: Mapped[int] = mapped_column(Integer, default=0)
    streak: Mapped[int] = mapped_column(Integer, default=0)
    best_streak: Mapped[int] = mapped_column(Integer, default=0)
    rating: Mapped[float] = mapped_column(Float, default=DEFAULT_RATING)
    deviation: Mapped[float] = mapped_column(Float, default=DEFAULT_DEVIATION)
    volatility: Mapped[float] = mapped_column(Float, default=DEFAULT_VOLATILITY)
    games_played: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)
    rated_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    deviation_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    ranked_until: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)

    def __repr__(self) -> str:
        return (
            f"<PlayerStats guild={self.guild_id} {self.game} user={self.user_id}"
            f" vs_bot={self.vs_bot} {self.wins}-{self.losses}-{self.draws}>"
        )


Index(
    "ix_player_stats_ranking",
    PlayerStats.guild_id,
    PlayerStats.game,
    PlayerStats.vs_bot,
    PlayerStats.rating.desc(),
    PlayerStats.wins.desc(),
    PlayerStats.user_id,
    PlayerStats.ranked_until,
    PlayerStats.rated_at,
)
"""A leaderboard in its own order (rating, then wins, then member): a page is read straight from
the index, and rows skipped to reach a deep page cost an index step each, with no sort. It
carries ``ranked_until`` and ``rated_at``, which tell the ranked, provisional and inactive lists
apart, so a list's rows are told apart on the index alone, with no table read."""

Index(
    "ix_player_stats_ranked",
    PlayerStats.guild_id,
    PlayerStats.game,
    PlayerStats.vs_bot,
    PlayerStats.ranked_until,
)
"""The members ranked now (``ranked_until`` still ahead): a range of this index, however many
provisional or inactive members rate above them."""


class RatingChange(Base):
    """A member's rating and deviation before and after one rated match, for the rating chart.

    Written with the result, in the match's own transaction. Two kinds of row have no match:
    the first point of a member who was rated before the chart existed (their rating when
    history began, before and after alike), and a season's soft reset (the rating kept, the
    deviation as grown until the season's close before, widened after), written with the
    close (``db.after_match.SEASON_RESET`` tells them apart).
    """

    __tablename__ = "rating_history"
    __table_args__ = (
        Index("ix_rating_history_guild_user_game_at", "guild_id", "user_id", "game", "at"),
        Index("ix_rating_history_match", "match_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    guild_id: Mapped[int] = mapped_column(BigInteger)
    game: Mapped[str] = mapped_column(String(16))
    user_id: Mapped[int] = mapped_column(BigInteger)
    rating_before: Mapped[float] = mapped_column(Float)
    deviation_before: Mapped[float] = mapped_column(Float)
    rating_after: Mapped[float] = mapped_column(Float)
    deviation_after: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(UTCDateTime)
