"""Answers typed by DM while the bot was away: the prompts it awaits, and the DMs it took.

``dm_prompts`` holds, for each question the bot asked a member by DM and still awaits, the DM
channel and the prompt's message; at its next start the bot reads that channel after the prompt
and takes an answer typed meanwhile. ``dm_answers`` holds the id of every typed DM it took, so
that neither a second start nor the live event takes it again. Both start empty: a prompt asked
before the upgrade is answered as before, by a DM typed while the bot runs.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "dm_prompts",
        sa.Column("match_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=False),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("match_id", "user_id", name=op.f("pk_dm_prompts")),
    )
    op.create_table(
        "dm_answers",
        sa.Column("message_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("taken_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("message_id", name=op.f("pk_dm_answers")),
    )
    op.create_index("ix_dm_answers_taken_at", "dm_answers", ["taken_at"])


def downgrade() -> None:
    op.drop_index("ix_dm_answers_taken_at", table_name="dm_answers")
    op.drop_table("dm_answers")
    op.drop_table("dm_prompts")
