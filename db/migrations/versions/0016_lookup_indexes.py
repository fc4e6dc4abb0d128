"""Two indexes, so that two lookups stop reading a whole table.

``ix_outbox_match`` on ``outbox(match_id, kind, version)``: a match's entries are read and
forgotten by match (the lines its message still owes, the boards and DMs shown, a channel's
boards hurried, the cascade when a match is deleted), and each read the whole outbox.

``ix_daily_puzzles_behind`` on ``daily_puzzles(day, guild_id)``, partial: only the posts whose
message does not show their latest change (``shown < version``), in the order the puzzles'
sweep reads them. The sweep runs every few seconds and read every server's every day; the index
holds only the few posts behind, however many days are stored.

Only indexes: every row of every table is carried forward as it is, and a match in play ends
as before.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BEHIND = sa.text("shown < version")
"""``db.models.puzzles.BEHIND`` at this revision, kept here so the upgrade stays as written."""


def upgrade() -> None:
    op.create_index("ix_outbox_match", "outbox", ["match_id", "kind", "version"])
    op.create_index(
        "ix_daily_puzzles_behind",
        "daily_puzzles",
        ["day", "guild_id"],
        sqlite_where=_BEHIND,
        postgresql_where=_BEHIND,
    )


def downgrade() -> None:
    op.drop_index("ix_daily_puzzles_behind", table_name="daily_puzzles")
    op.drop_index("ix_outbox_match", table_name="outbox")
