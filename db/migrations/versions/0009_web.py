"""The servers whose web pages are on, and leaderboards read in their own order.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index("ix_player_stats_leaderboard", table_name="player_stats")
    op.create_index(
        "ix_player_stats_ranking",
        "player_stats",
        ["guild_id", "game", "vs_bot", sa.text("rating DESC"), sa.text("wins DESC"), "user_id"],
    )
    op.create_table(
        "web_sites",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("player_key", sa.String(length=64), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", name=op.f("pk_web_sites")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_web_sites_token_hash")),
    )


def downgrade() -> None:
    op.drop_table("web_sites")
    op.drop_index("ix_player_stats_ranking", table_name="player_stats")
    op.create_index(
        "ix_player_stats_leaderboard", "player_stats", ["guild_id", "game", "vs_bot", "rating"]
    )
