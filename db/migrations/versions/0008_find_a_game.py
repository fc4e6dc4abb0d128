"""Finding a game: open challenges, the quick-pair queue, and a thread per match.

A match says how its players found each other (``origin``); an open challenge keeps
``opponent_id`` at 0 until a member accepts it, so the column stays NOT NULL and every index on
it keeps working. Matches already there were challenges by name, or a tournament's pairings.
``thread_id`` is the match's own thread. The queue's members and its messages get tables of
their own; a server's settings gain the queue's wait before the bot is offered, and whether
matches are played in threads.

Revision ID: 0008
Revises: 0006
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_MATCHES = sa.table(
    "matches",
    sa.column("origin", sa.String()),
    sa.column("tournament_id", sa.Integer()),
)


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(
            sa.Column("origin", sa.String(length=8), nullable=False, server_default="named")
        )
        batch.add_column(sa.Column("thread_id", sa.BigInteger(), nullable=True))
        batch.create_index(
            "ix_matches_channel_origin_created", ["channel_id", "origin", "created_at"]
        )
    op.get_bind().execute(
        sa.update(_MATCHES).where(_MATCHES.c.tournament_id.is_not(None)).values(origin="paired")
    )
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(sa.Column("queue_fallback", sa.Integer(), nullable=True))
        batch.add_column(
            sa.Column("threads", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.create_table(
        "queue_entries",
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("last_opponent_id", sa.BigInteger(), nullable=True),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("offered", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_queue_entries")),
    )
    op.create_index(
        "ix_queue_entries_channel_game_joined",
        "queue_entries",
        ["channel_id", "game", "joined_at"],
        unique=False,
    )
    op.create_table(
        "queue_boards",
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("shown", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("channel_id", "game", name=op.f("pk_queue_boards")),
    )


def downgrade() -> None:
    op.drop_table("queue_boards")
    op.drop_index("ix_queue_entries_channel_game_joined", table_name="queue_entries")
    op.drop_table("queue_entries")
    with op.batch_alter_table("guild_settings") as batch:
        batch.drop_column("threads")
        batch.drop_column("queue_fallback")
    with op.batch_alter_table("matches") as batch:
        batch.drop_index("ix_matches_channel_origin_created")
        batch.drop_column("thread_id")
        batch.drop_column("origin")
