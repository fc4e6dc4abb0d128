"""A match's place: how its message is reached (docs/architecture.md, "Where a match lives").

``matches.place`` is ``server`` (a channel of a server that installed the bot: bot-token calls
reach it) or ``interaction`` (a DM or group DM, a server without the app: only interactions
reach its message). Every existing match was challenged in a server that installed the bot, so
each is carried forward as ``server`` and plays on as before.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(
            sa.Column("place", sa.String(length=12), server_default="server", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("place")
