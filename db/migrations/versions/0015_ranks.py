"""Rank roles: the roles a server gives by rating, the roles Parlor gave, and the members whose
rank roles are still to be brought up to date.

``rank_roles`` holds each rank a server set (its game or ``best``, the rating it takes, its role,
whether a season's end brings it up to date), ``rank_grants`` each rank role Parlor gave a
member (the only roles it ever takes away), ``rank_updates`` the members whose roles are owed.
All three start empty: no server has ranks before the upgrade, so no record, rating or match
changes, and a match in play ends as before.

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
    op.create_table(
        "rank_roles",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("role_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("season", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "role_id", name=op.f("pk_rank_roles")),
    )
    op.create_index(
        "ix_rank_roles_guild_game", "rank_roles", ["guild_id", "game", "rating"], unique=True
    )
    op.create_table(
        "rank_grants",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("role_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("given_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "user_id", "role_id", name=op.f("pk_rank_grants")),
    )
    op.create_table(
        "rank_updates",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "user_id", name=op.f("pk_rank_updates")),
    )
    op.create_index("ix_rank_updates_due", "rank_updates", ["due_at"])


def downgrade() -> None:
    op.drop_index("ix_rank_updates_due", table_name="rank_updates")
    op.drop_table("rank_updates")
    op.drop_table("rank_grants")
    op.drop_index("ix_rank_roles_guild_game", table_name="rank_roles")
    op.drop_table("rank_roles")
