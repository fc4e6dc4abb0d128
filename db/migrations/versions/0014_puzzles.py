"""Puzzles: positions with one clearly best move, members' answers and puzzle ratings, the daily
puzzle (docs/puzzles.md).

Only new tables and one new setting: ``guild_settings.puzzle_channel`` is empty for every
existing server (no daily puzzle until a manager sets one), and nothing else changes, so every
match, record and setting is carried forward as it is. ``puzzle_sources`` starts empty: the
finished rated matches played before are searched for puzzles too, a few at a time.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def _rating() -> list[sa.Column[float]]:
    return [
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
    ]


def upgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(sa.Column("puzzle_channel", sa.BigInteger(), nullable=True))
    op.create_table(
        "puzzles",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=True),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("key", sa.String(length=128), nullable=False),
        sa.Column("data", _JSON, nullable=False),
        *_rating(),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("solves", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_puzzles_match_id_matches"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_puzzles")),
        sa.UniqueConstraint("guild_id", "key", name=op.f("uq_puzzles_guild_id_key")),
    )
    op.create_index("ix_puzzles_guild_game_rating", "puzzles", ["guild_id", "game", "rating"])
    op.create_index("ix_puzzles_match", "puzzles", ["match_id"])
    op.create_table(
        "puzzle_attempts",
        sa.Column("puzzle_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("action", sa.String(length=64), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["puzzle_id"],
            ["puzzles.id"],
            name=op.f("fk_puzzle_attempts_puzzle_id_puzzles"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("puzzle_id", "user_id", name=op.f("pk_puzzle_attempts")),
    )
    op.create_index("ix_puzzle_attempts_user", "puzzle_attempts", ["user_id"])
    op.create_table(
        "puzzle_ratings",
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        *_rating(),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("solves", sa.Integer(), nullable=False),
        sa.Column("streak", sa.Integer(), nullable=False),
        sa.Column("best_streak", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("user_id", "game", name=op.f("pk_puzzle_ratings")),
    )
    op.create_table(
        "puzzle_sources",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("found", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_puzzle_sources_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_puzzle_sources")),
    )
    op.create_table(
        "daily_puzzles",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("day", sa.String(length=10), nullable=False),
        sa.Column("puzzle_id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("solves", sa.Integer(), nullable=False),
        sa.Column("first_solvers", _JSON, nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("shown", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["puzzle_id"],
            ["puzzles.id"],
            name=op.f("fk_daily_puzzles_puzzle_id_puzzles"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("guild_id", "day", name=op.f("pk_daily_puzzles")),
    )


def downgrade() -> None:
    op.drop_table("daily_puzzles")
    op.drop_table("puzzle_sources")
    op.drop_table("puzzle_ratings")
    op.drop_index("ix_puzzle_attempts_user", table_name="puzzle_attempts")
    op.drop_table("puzzle_attempts")
    op.drop_index("ix_puzzles_match", table_name="puzzles")
    op.drop_index("ix_puzzles_guild_game_rating", table_name="puzzles")
    op.drop_table("puzzles")
    with op.batch_alter_table("guild_settings") as batch:
        batch.drop_column("puzzle_channel")
