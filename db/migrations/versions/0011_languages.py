"""Languages: a server's chosen language and its preferred locale, and each member's last locale.

``guild_settings.language`` is what ``/settings language:`` chose for the server's public
posts; ``guild_settings.preferred_locale`` the server's preferred locale as Discord last
reported it. ``member_locales`` keeps the locale each member's client last used with the bot,
for their DMs. Every existing server starts with neither (English until Discord reports its
locale at the next start), and no member has a locale until they next use the bot.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(sa.Column("language", sa.String(length=16), nullable=True))
        batch.add_column(sa.Column("preferred_locale", sa.String(length=16), nullable=True))
    op.create_table(
        "member_locales",
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("locale", sa.String(length=16), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_member_locales")),
    )


def downgrade() -> None:
    op.drop_table("member_locales")
    with op.batch_alter_table("guild_settings") as batch:
        batch.drop_column("preferred_locale")
        batch.drop_column("language")
