"""An index for the limit on challenges one member sends another.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-26
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_matches_challenger_opponent_created",
        "matches",
        ["challenger_id", "opponent_id", "created_at"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index("ix_matches_challenger_opponent_created", table_name="matches")
