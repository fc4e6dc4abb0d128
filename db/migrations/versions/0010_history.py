"""After the game: each rated match's rating changes, stored reviews, and players' names.

``rating_history`` holds every member's rating and deviation before and after each rated match.
History starts at the current ratings: each record against people gets one point at its rating
as it stands, dated when the record last changed, and no rating changes. ``match_reviews`` keeps
a review once computed. A seat's ``display_name`` is stored when its match ends; matches that
ended before have none.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_STATS = sa.table(
    "player_stats",
    sa.column("guild_id", sa.BigInteger()),
    sa.column("game", sa.String()),
    sa.column("user_id", sa.BigInteger()),
    sa.column("vs_bot", sa.Boolean()),
    sa.column("rating", sa.Float()),
    sa.column("deviation", sa.Float()),
    sa.column("updated_at", sa.DateTime(timezone=True)),
)


def upgrade() -> None:
    with op.batch_alter_table("match_players") as batch:
        batch.add_column(sa.Column("display_name", sa.String(length=64), nullable=True))
    history = op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=True),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("rating_before", sa.Float(), nullable=False),
        sa.Column("deviation_before", sa.Float(), nullable=False),
        sa.Column("rating_after", sa.Float(), nullable=False),
        sa.Column("deviation_after", sa.Float(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_rating_history_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_history")),
    )
    op.create_index(
        "ix_rating_history_guild_user_game_at",
        "rating_history",
        ["guild_id", "user_id", "game", "at"],
    )
    op.create_index("ix_rating_history_match", "rating_history", ["match_id"])
    op.create_table(
        "match_reviews",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column(
            "review", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_match_reviews_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_match_reviews")),
    )
    # History starts where the ratings stand: one point per record against people.
    op.get_bind().execute(
        sa.insert(history).from_select(
            [
                "guild_id",
                "game",
                "user_id",
                "rating_before",
                "deviation_before",
                "rating_after",
                "deviation_after",
                "at",
            ],
            sa.select(
                _STATS.c.guild_id,
                _STATS.c.game,
                _STATS.c.user_id,
                _STATS.c.rating,
                _STATS.c.deviation,
                _STATS.c.rating,
                _STATS.c.deviation,
                _STATS.c.updated_at,
            ).where(_STATS.c.vs_bot == sa.false()),
        )
    )


def downgrade() -> None:
    op.drop_table("match_reviews")
    op.drop_index("ix_rating_history_match", table_name="rating_history")
    op.drop_index("ix_rating_history_guild_user_game_at", table_name="rating_history")
    op.drop_table("rating_history")
    with op.batch_alter_table("match_players") as batch:
        batch.drop_column("display_name")
