"""Seasons (docs/rules.md, "Seasons"): each server's seasons, their standings per game and
member, the podium posted when one ends, and the server's season settings.

A server's first season opens with the first rated match after the upgrade (the calendar
quarter it falls in, by default); no match played before counts in a season. ``guild_settings``
gains three nullable columns, so every server keeps its settings and reads the defaults for the
new ones (quarters, ranked by rating, no podium channel). Records and ratings are untouched.

Revision ID: 0015
Revises: 0013
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(sa.Column("season_length", sa.String(length=12), nullable=True))
        batch.add_column(sa.Column("season_score", sa.String(length=8), nullable=True))
        batch.add_column(sa.Column("season_channel", sa.BigInteger(), nullable=True))
    op.create_table(
        "seasons",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("state", sa.String(length=8), nullable=False),
        sa.Column("score", sa.String(length=8), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seasons")),
        sa.UniqueConstraint("guild_id", "number", name=op.f("uq_seasons_guild_id_number")),
        sa.UniqueConstraint("guild_id", "starts_at", name=op.f("uq_seasons_guild_id_starts_at")),
    )
    op.create_index("ix_seasons_state_ends_at", "seasons", ["state", "ends_at"])
    op.create_table(
        "season_standings",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("points", sa.Float(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("ranked_until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("provisional", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["season_id"],
            ["seasons.id"],
            name=op.f("fk_season_standings_season_id_seasons"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("season_id", "game", "user_id", name=op.f("pk_season_standings")),
    )
    op.create_index(
        "ix_season_standings_points",
        "season_standings",
        [
            "season_id",
            "game",
            "provisional",
            sa.text("points DESC"),
            sa.text("wins DESC"),
            "user_id",
        ],
    )
    op.create_index(
        "ix_season_standings_rating",
        "season_standings",
        ["season_id", "game", "provisional", sa.text("rating DESC"), "user_id"],
    )
    op.create_index(
        "ix_season_standings_turning",
        "season_standings",
        ["season_id", "game", "provisional", "ranked_until"],
    )
    op.create_index(
        "ix_season_standings_turned", "season_standings", ["provisional", "ranked_until"]
    )
    op.create_table(
        "season_podiums",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("posted", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["season_id"],
            ["seasons.id"],
            name=op.f("fk_season_podiums_season_id_seasons"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("season_id", name=op.f("pk_season_podiums")),
    )
    op.create_index("ix_season_podiums_due", "season_podiums", ["posted", "due_at"])


def downgrade() -> None:
    op.drop_table("season_podiums")
    op.drop_table("season_standings")
    op.drop_table("seasons")
    with op.batch_alter_table("guild_settings") as batch:
        batch.drop_column("season_channel")
        batch.drop_column("season_score")
        batch.drop_column("season_length")
